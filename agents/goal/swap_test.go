package goal

import (
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/lunad/lunad/agents/goal/tree"
)

// swapPaths are the names a swap works on: tracked files and the
// directories they are in, the .gitignore, and new names.
var swapPaths = []string{"src", "src/a.txt", "src/b", "src/b/c.txt", ".gitignore", "d.txt", "new.txt", "src/new", "build", "build/x"}

// swap is one change an attacker makes to the worktree between lunad's
// steps: op picks what, at swapPaths[at].
func swap(dir, outside string, op, at byte) {
	rel := swapPaths[int(at)%len(swapPaths)]
	for d := filepath.Dir(rel); d != "."; d = filepath.Dir(d) {
		if info, err := os.Lstat(filepath.Join(dir, d)); err == nil && !info.IsDir() {
			return // the attacker's own acts stay in the worktree, as in the sandbox
		}
	}
	p := filepath.Join(dir, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	switch op % 8 {
	case 0:
		os.RemoveAll(p)
		os.WriteFile(p, []byte("changed\n"), 0o644)
	case 1:
		os.RemoveAll(p)
		os.Mkdir(p, 0o755)
	case 2: // a link to the directory outside, where lunad's undo would write
		os.RemoveAll(p)
		os.Symlink(outside, p)
	case 3: // a link to a file outside
		os.RemoveAll(p)
		os.Symlink(filepath.Join(outside, "config"), p)
	case 4: // a FIFO no one writes to
		os.RemoveAll(p)
		syscall.Mkfifo(p, 0o644)
	case 5: // a second name of the file outside
		os.RemoveAll(p)
		os.Link(filepath.Join(outside, "config"), p)
	case 6:
		os.RemoveAll(p)
	case 7: // a link to /dev/zero
		os.RemoveAll(p)
		os.Symlink("/dev/zero", p)
	}
}

// outsideState is every file outside holds, with its content.
func outsideState(t *testing.T, outside string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(outside, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		out[p] = d.Type().String() + " " + string(b)
		return nil
	})
	return out
}

// FuzzSwaps: whatever files, directories, symbolic links, FIFOs and hard
// links a command swaps in before the snapshot, between it and the
// absorbing of its changes (or their undoing past the disk budget, when
// the middle sequence's length is odd), and between that and the undoing
// of the tests' changes, lunad's host-side work on the worktree
// (snapshots, .gitignore reading, measuring, undo, absorb) ends and
// changes nothing outside it.
func FuzzSwaps(f *testing.F) {
	f.Add([]byte{2, 0, 0, 1}, []byte{2, 0}, []byte{3, 1})       // a tracked directory swapped for a link outside
	f.Add([]byte{}, []byte{2, 2, 6, 1}, []byte{5, 1, 4, 4})     // links and a hard link where deleted files were
	f.Add([]byte{0, 4}, []byte{4, 4, 7, 4}, []byte{2, 8})       // .gitignore a FIFO, then /dev/zero
	f.Add([]byte{}, []byte{5, 3, 2, 0}, []byte{0, 3, 3, 1})     // a hard link, then the directory a link
	f.Add([]byte{1, 8}, []byte{7, 1, 4, 9}, []byte{6, 0, 7, 0}) // /dev/zero and a FIFO as tracked files
	f.Add([]byte{1, 8}, []byte{2, 8, 0, 9, 0}, []byte{2, 0})    // over the budget: a link to outside where build was
	f.Fuzz(func(t *testing.T, pre, during, after []byte) {
		if len(pre)+len(during)+len(after) > 64 {
			return
		}
		dir, outside := t.TempDir(), t.TempDir()
		writeFiles(t, outside, map[string]string{"config": "[core]\n", "keys/authorized_keys": "ssh-ed25519 mine\n"})
		writeFiles(t, dir, map[string]string{"src/a.txt": "a\n", "src/b/c.txt": "c\n", ".gitignore": "build/\n", "d.txt": "d\n"})
		want := outsideState(t, outside)
		steps := func(ops []byte) {
			for i := 0; i+1 < len(ops); i += 2 {
				swap(dir, outside, ops[i], ops[i+1])
			}
		}
		steps(pre)
		r, err := tree.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		x := &executor{a: newAgents(t, &shell{}, allow{}), ctx: context.Background(), dir: dir, root: r, step: 1}
		if len(during)%2 == 1 {
			x.a.o.Disk = 1 // every command is over the budget: its changes are undone
		}
		before, err := snap(r)
		if err != nil {
			t.Fatal(err)
		}
		was, err := measure(r)
		if err != nil {
			t.Fatal(err)
		}
		steps(during)
		var e effect
		if x.a.fitDisk(r, before, was, "the command") == "" {
			x.absorb(before, "the command", &e)
		}
		steps(after)
		if now, err := snap(r); err == nil {
			for _, c := range before.changesTo(now) {
				x.undoTests(before, c)
			}
		}
		if got := outsideState(t, outside); !maps.Equal(got, want) {
			t.Fatalf("outside the worktree changed:\n%v\nwas\n%v", got, want)
		}
	})
}
