package main

import (
	"context"

	"github.com/lunad/lunad/daemon"
	"github.com/lunad/lunad/gitstore"
)

// writeOp runs a write on the service with the positional arguments.
type writeOp func(svc *daemon.Service, ch gitstore.Change, pos []string) (gitstore.Result, error)

// runWrite runs a write command that takes n positional arguments and the
// provenance flags; more flags may be added by extra.
func runWrite(m *Main, args []string, c *command, n int, extra func(*flagSet), op writeOp) (err error) {
	fs := m.newFlags(c)
	ch := fs.changeFlags(true)
	if extra != nil {
		extra(fs)
	}
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if err := fs.nargs(pos, n, n); err != nil {
		return err
	}
	svc, err := m.open()
	if err != nil {
		return err
	}
	defer closeService(svc, &err)
	res, err := op(svc, ch.change(), pos)
	if err != nil {
		return err
	}
	return m.printResult(res)
}

var cmdMove = &command{
	name:    "mv",
	args:    "ID PATH",
	summary: "move an artifact to a new path; its ID stays",
	help:    `Prints ID vVERSION COMMIT.`,
	run: func(m *Main, ctx context.Context, c *command, args []string) error {
		return runWrite(m, args, c, 2, nil, func(svc *daemon.Service, ch gitstore.Change, pos []string) (gitstore.Result, error) {
			return svc.Move(ctx, pos[0], pos[1], ch)
		})
	},
}

var cmdArchive = &command{
	name:    "archive",
	args:    "ID",
	summary: "mark an artifact archived; its file stays",
	help:    `Prints ID vVERSION COMMIT.`,
	run: func(m *Main, ctx context.Context, c *command, args []string) error {
		return runWrite(m, args, c, 1, nil, func(svc *daemon.Service, ch gitstore.Change, pos []string) (gitstore.Result, error) {
			return svc.Archive(ctx, pos[0], ch)
		})
	},
}

var cmdLink = &command{
	name:    "link",
	args:    "SRC DST [--kind KIND]",
	summary: "record a typed link from one artifact to another",
	help:    `KIND is a lowercase word such as depends_on (default references). Prints ID vVERSION COMMIT of SRC.`,
	run: func(m *Main, ctx context.Context, c *command, args []string) error {
		var kind *string
		return runWrite(m, args, c, 2,
			func(fs *flagSet) { kind = fs.String("kind", "", "link `kind` (default references)") },
			func(svc *daemon.Service, ch gitstore.Change, pos []string) (gitstore.Result, error) {
				return svc.Link(ctx, pos[0], pos[1], *kind, ch)
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
	run: func(m *Main, ctx context.Context, c *command, args []string) error {
		return runWrite(m, args, c, 1, nil, func(svc *daemon.Service, ch gitstore.Change, pos []string) (gitstore.Result, error) {
			return svc.Undo(ctx, pos[0], ch)
		})
	},
}

var cmdRedo = &command{
	name:    "redo",
	args:    "ID",
	summary: "revert the latest undo of an artifact",
	help:    `Prints ID vVERSION COMMIT.`,
	run: func(m *Main, ctx context.Context, c *command, args []string) error {
		return runWrite(m, args, c, 1, nil, func(svc *daemon.Service, ch gitstore.Change, pos []string) (gitstore.Result, error) {
			return svc.Redo(ctx, pos[0], ch)
		})
	},
}
