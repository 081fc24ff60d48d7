package main

import (
	"context"
	"fmt"

	"github.com/lunad/lunad"
)

var cmdBranch = &command{
	name:    "branch",
	args:    "NAME [--from REF]",
	summary: "create a branch (without switching to it)",
	help:    `REF is a branch name or a commit (default: the current commit). Prints "branch NAME at COMMIT".`,
	minArgs: 1, maxArgs: 1,
	run: runBranch,
}

func runBranch(m *Main, ctx context.Context, fs *flagSet, args []string) error {
	from := fs.String("from", "", "start at `ref`, a branch or commit (default: the current commit)")
	return fs.withWorkspace(ctx, args, func(svc lunad.Workspace, pos []string) error {
		b, err := svc.Branch(ctx, lunad.BranchRequest{Name: pos[0], From: *from})
		if err != nil {
			return err
		}
		return m.printBranch("branch", b)
	})
}

var cmdSwitch = &command{
	name:    "switch",
	args:    "NAME",
	summary: "check out a branch: HEAD and the working tree follow",
	help: `Refuses (exit 1) when uncommitted changes would be overwritten, naming the
files. Prints "switched to NAME at COMMIT".`,
	minArgs: 1, maxArgs: 1,
	run: runSwitch,
}

func runSwitch(m *Main, ctx context.Context, fs *flagSet, args []string) error {
	return fs.withWorkspace(ctx, args, func(svc lunad.Workspace, pos []string) error {
		b, err := svc.Switch(ctx, pos[0])
		if err != nil {
			return err
		}
		return m.printBranch("switched to", b)
	})
}

func (m *Main) printBranch(what string, b lunad.Branch) error {
	if m.json {
		return m.printJSON(b)
	}
	_, err := fmt.Fprintf(m.Stdout, "%s %s at %s\n", what, b.Name, short(b.Commit))
	return err
}

var cmdBranches = &command{
	name:    "branches",
	args:    "",
	summary: "list the branches; * marks the current one",
	run:     runBranches,
}

func runBranches(m *Main, ctx context.Context, fs *flagSet, args []string) error {
	return fs.withWorkspace(ctx, args, func(svc lunad.Workspace, _ []string) error {
		bs, err := svc.Branches(ctx)
		if err != nil {
			return err
		}
		return printList(m, bs, []string{"CURRENT", "NAME", "COMMIT"}, func(b lunad.Branch) []string {
			cur := " "
			if b.Current {
				cur = "*"
			}
			return []string{cur, b.Name, short(b.Commit)}
		})
	})
}
