package main

import (
	"context"
	"strings"
)

var cmdRestore = &command{
	name:    "restore",
	args:    "ID@VERSION",
	summary: "bring back an earlier version's content and metadata, as a new version",
	help:    `Prints ID vVERSION COMMIT. "lunad restore ID VERSION" works too.`,
	run:     runRestore,
}

func runRestore(m *Main, ctx context.Context, c *command, args []string) (err error) {
	fs := m.newFlags(c)
	ch := fs.changeFlags(true)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if err := fs.nargs(pos, 1, 2); err != nil {
		return err
	}
	ref, at := pos[0], ""
	if len(pos) == 2 {
		at = pos[1]
	} else if i := strings.LastIndexByte(ref, '@'); i > 0 {
		ref, at = ref[:i], ref[i+1:]
	}
	if at == "" {
		return fs.usageError("restore needs a version: lunad restore ID@VERSION")
	}
	n, err := fs.parseVersion("VERSION", at)
	if err != nil {
		return err
	}
	svc, err := m.open()
	if err != nil {
		return err
	}
	defer closeService(svc, &err)
	res, err := svc.Restore(ctx, ref, n, ch.change())
	if err != nil {
		return err
	}
	return m.printResult(res)
}
