package main

import (
	"context"
	"fmt"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/workspace"
)

var cmdInit = &command{
	name:    "init",
	args:    "",
	summary: "make a workspace, or adopt the git repository at --dir",
	help: `
In a directory without a git repository, init makes one (branch main) with
a first commit. In an existing repository, every tracked text file becomes
an artifact in one "adopt" commit on top of the existing history; binary,
non-UTF-8, oversized files, symlinks and submodules are skipped with a
reason. Running init again adopts files tracked since. init then builds the
reference index (its parse cache is kept for later commands). On a
terminal, both show a progress bar on stderr; never with --json.`,
	run: runInit,
}

func runInit(m *Main, ctx context.Context, fs *flagSet, args []string) (err error) {
	if _, err := fs.parse(args); err != nil {
		return err
	}
	opts, err := m.options()
	if err != nil {
		return err
	}
	adopting := m.progressBar("adopting files")
	opts.AdoptProgress = adopting.report()
	svc, rep, err := workspace.Init(m.workDir(), opts)
	adopting.clear()
	if err != nil {
		return err
	}
	defer closeService(svc, &err)
	// The first index build happens now, with its progress shown, rather
	// than in the first command that needs references; its parse cache is
	// saved for them.
	indexing := m.progressBar("indexing references")
	err = svc.IndexReferences(ctx, indexing.report())
	indexing.clear()
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		fmt.Fprintf(m.Stderr, "lunad: warning: the reference index was not built (the first command that needs it builds it): %v\n", err)
	}
	if m.json {
		return m.printJSON(initJSON{Root: rep.Root, Created: rep.Created, Adopted: nonNil(rep.Adopted), Skipped: nonNil(rep.Skipped)})
	}
	how := "adopted existing repository"
	if rep.Created {
		how = "created new repository"
	}
	fmt.Fprintf(m.Stdout, "workspace %s (%s)\n", rep.Root, how)
	fmt.Fprintf(m.Stdout, "adopted %d %s\n", len(rep.Adopted), plural(len(rep.Adopted), "file", "files"))
	for _, a := range rep.Adopted {
		fmt.Fprintf(m.Stdout, "  %s  %s\n", a.ID, a.Path)
	}
	fmt.Fprintf(m.Stdout, "skipped %d %s\n", len(rep.Skipped), plural(len(rep.Skipped), "file", "files"))
	for _, s := range rep.Skipped {
		fmt.Fprintf(m.Stdout, "  %s: %s\n", s.Path, s.Reason)
	}
	return nil
}

// initJSON is init's JSON output; unlike gitstore.AdoptReport it always
// has both lists.
type initJSON struct {
	Root    string             `json:"root"`
	Created bool               `json:"created"`
	Adopted []lunad.Artifact   `json:"adopted"`
	Skipped []gitstore.Skipped `json:"skipped"`
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
