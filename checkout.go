package lunad

// Checkout is a git checkout and where git keeps its state, laid out as
// git lays out linked worktrees (`git worktree add`): what belongs to one
// working tree lives in GitDir, what every worktree of the repository
// shares in CommonDir. In the main checkout both are <Root>/.git.
type Checkout struct {
	// Root is the working tree's top directory (gitdir.Root).
	Root string
	// GitDir holds this working tree's HEAD and index, and lunad's state
	// for it (luna/: the writer lock, the pending list, caches, the
	// daemon's socket): <Root>/.git, or <main>/.git/worktrees/NAME for a
	// linked worktree (what the .git file's "gitdir:" line names).
	GitDir string
	// CommonDir holds what the worktrees share: objects, refs (branches,
	// lunad's run logs), packed-refs, config. The directory GitDir's
	// "commondir" file names, else GitDir itself (the main checkout, a
	// submodule).
	CommonDir string
}

// Linked reports whether the checkout is a linked worktree (its git dir is
// not the repository's common dir).
func (c Checkout) Linked() bool { return c.GitDir != c.CommonDir }
