package main

import (
	"context"
	"strings"

	"github.com/lunad/lunad"
)

var cmdRestore = &command{
	name:    "restore",
	args:    "ID@VERSION",
	summary: "bring back an earlier version's content and metadata, as a new version",
	help:    `Prints ID vVERSION COMMIT. "lunad restore ID VERSION" works too.`,
	minArgs: 1, maxArgs: 2,
	run: runRestore,
}

func runRestore(m *Main, ctx context.Context, fs *flagSet, args []string) error {
	var ch lunad.Change
	fs.changeFlags(&ch, true)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	ref, n, err := restoreTarget(fs, pos)
	if err != nil {
		return err
	}
	return m.withWorkspace(ctx, func(svc lunad.Workspace) error {
		res, err := svc.Restore(ctx, lunad.RestoreRequest{Ref: ref, Version: n, Change: ch})
		if err != nil {
			return err
		}
		return m.printResult(res)
	})
}

// restoreTarget reads the artifact and version to restore from "ID@VERSION"
// or "ID VERSION".
func restoreTarget(fs *flagSet, pos []string) (ref string, version int, err error) {
	ref, at := pos[0], ""
	if len(pos) == 2 {
		at = pos[1]
	} else if i := strings.LastIndexByte(ref, '@'); i > 0 {
		ref, at = ref[:i], ref[i+1:]
	}
	if at == "" {
		return "", 0, fs.usageError("restore needs a version: lunad restore ID@VERSION")
	}
	version, err = fs.parseVersion("VERSION", at)
	return ref, version, err
}
