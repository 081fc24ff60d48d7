// Package tree is lunad's host-side access to a goal's worktree, a
// directory whose contents an attacker controlled a moment before: the
// commands the model runs, and the user's own test commands, change it
// at will (a directory swapped for a symbolic link, a FIFO or /dev/zero
// named .gitignore, a file hard-linked to one elsewhere).
//
// Every path is relative to the Root, slash-separated and local (no
// "..", not absolute), and resolves beneath the root's directory without
// following a symbolic link anywhere on its way: openat2(2) with
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|RESOLVE_NO_MAGICLINKS where the
// kernel has it, else a walk from the root's descriptor that opens each
// component with O_NOFOLLOW. So:
//
//   - a symbolic link where lunad expects a file or a directory, on the
//     path or at its end, is ErrSymlink; lunad never reads, writes or
//     deletes through one (Remove deletes a link itself, Readlink reads
//     its target);
//   - ReadFile opens with O_NONBLOCK (a FIFO cannot block it), requires
//     a regular file (ErrNotRegular otherwise) and reads at most its
//     limit (ErrTooLarge past it);
//   - WriteFile never writes into an existing file: it writes a new
//     temporary file in the parent directory, opened by descriptor, and
//     renames it over the name, so a file hard-linked to one outside the
//     worktree is replaced, not written through; missing directories are
//     made with mkdirat, beneath the root the same way.
//
// What it does not do: it does not stop another process changing the
// worktree while lunad works on it (a name checked is then gone or
// different; each call is safe on its own, and a sequence of calls sees
// whatever the names hold at each call), and it trusts the root's own
// path, which is lunad's.
package tree
