package main

import (
	"context"

	"github.com/lunad/lunad"
)

// writeOp is a write to the workspace, given the positional arguments and
// the provenance flags.
type writeOp func(svc lunad.Workspace, pos []string, ch lunad.Change) (lunad.Result, error)

// write adds the provenance flags, parses args, runs op on the workspace
// and prints its result.
func (fs *flagSet) write(ctx context.Context, args []string, op writeOp) error {
	var ch lunad.Change
	fs.changeFlags(&ch, true)
	return fs.withWorkspace(ctx, args, func(svc lunad.Workspace, pos []string) error {
		res, err := op(svc, pos, ch)
		if err != nil {
			return err
		}
		return fs.m.printResult(res)
	})
}

// writeTo runs a write to one artifact, the ID argument, that takes no
// flags but the provenance flags. op is a method of lunad.Workspace, such
// as lunad.Workspace.Undo.
func writeTo(op func(svc lunad.Workspace, ctx context.Context, req lunad.RefRequest) (lunad.Result, error)) runFunc {
	return func(m *Main, ctx context.Context, fs *flagSet, args []string) error {
		return fs.write(ctx, args, func(svc lunad.Workspace, pos []string, ch lunad.Change) (lunad.Result, error) {
			return op(svc, ctx, lunad.RefRequest{Ref: pos[0], Change: ch})
		})
	}
}

var cmdMove = &command{
	name:    "mv",
	args:    "ID PATH",
	summary: "move an artifact to a new path; its ID stays",
	help:    `Prints ID vVERSION COMMIT.`,
	minArgs: 2, maxArgs: 2,
	run: func(m *Main, ctx context.Context, fs *flagSet, args []string) error {
		return fs.write(ctx, args, func(svc lunad.Workspace, pos []string, ch lunad.Change) (lunad.Result, error) {
			return svc.Move(ctx, lunad.MoveRequest{Ref: pos[0], Path: pos[1], Change: ch})
		})
	},
}

var cmdArchive = &command{
	name:    "archive",
	args:    "ID",
	summary: "mark an artifact archived; its file stays",
	help:    `Prints ID vVERSION COMMIT.`,
	minArgs: 1, maxArgs: 1,
	run: writeTo(lunad.Workspace.Archive),
}

var cmdRemove = &command{
	name:    "rm",
	args:    "ID|PATH",
	summary: "delete an artifact's file; undo brings it back",
	help: `
One commit deletes the file and keeps the artifact's metadata with status
removed: list no longer shows it, its path is free, references to it are
broken, and undo brings back the file and metadata as a new version.
Prints ID vVERSION COMMIT.`,
	minArgs: 1, maxArgs: 1,
	run: writeTo(lunad.Workspace.Remove),
}

var cmdLink = &command{
	name:    "link",
	args:    "SRC DST [--kind KIND]",
	summary: "record a typed link from one artifact to another",
	help:    `KIND is a lowercase word such as depends_on (default references). Prints ID vVERSION COMMIT of SRC.`,
	minArgs: 2, maxArgs: 2,
	run: func(m *Main, ctx context.Context, fs *flagSet, args []string) error {
		kind := fs.String("kind", "", "link `kind` (default references)")
		return fs.write(ctx, args, func(svc lunad.Workspace, pos []string, ch lunad.Change) (lunad.Result, error) {
			return svc.Link(ctx, lunad.LinkRequest{Src: pos[0], Dst: pos[1], Kind: *kind, Change: ch})
		})
	},
}

var cmdUndo = &command{
	name:    "undo",
	args:    "ID",
	summary: "revert an artifact's latest change not yet undone, as a new version",
	help: `
Repeated undos walk further back; redo reverts the latest undo. The stack is
derived from history, so it survives across sessions. Prints ID vVERSION COMMIT.`,
	minArgs: 1, maxArgs: 1,
	run: writeTo(lunad.Workspace.Undo),
}

var cmdRedo = &command{
	name:    "redo",
	args:    "ID",
	summary: "revert the latest undo of an artifact",
	help:    `Prints ID vVERSION COMMIT.`,
	minArgs: 1, maxArgs: 1,
	run: writeTo(lunad.Workspace.Redo),
}
