package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/lunad/lunad"
)

var cmdList = &command{
	name:    "list",
	args:    "",
	summary: "list the artifacts on the current branch",
	run:     runList,
}

func runList(m *Main, ctx context.Context, fs *flagSet, args []string) error {
	return fs.withWorkspace(ctx, args, func(svc lunad.Workspace, _ []string) error {
		arts, err := svc.List(ctx)
		if err != nil {
			return err
		}
		return printList(m, arts, []string{"ID", "PATH", "TYPE", "TITLE", "STATUS", "VERSION", "COMMIT"}, func(a lunad.Artifact) []string {
			return []string{a.ID, a.Path, a.Type, a.Title, string(a.Status), strconv.Itoa(a.Version), short(a.Commit)}
		})
	})
}

var cmdShow = &command{
	name:    "show",
	args:    "ID[@VERSION|@COMMIT]",
	summary: "print an artifact's content, byte for byte",
	help: `
ID may also be the artifact's path. @VERSION selects an earlier version,
@COMMIT the state at a commit (a full hash or a unique prefix of 4 or more
hex digits). With --json, prints {"artifact": {...}, "content": "..."}.`,
	minArgs: 1, maxArgs: 1,
	run: runShow,
}

func runShow(m *Main, ctx context.Context, fs *flagSet, args []string) error {
	return fs.withWorkspace(ctx, args, func(svc lunad.Workspace, pos []string) error {
		ref, at := resolveAt(ctx, svc, pos[0])
		content, a, err := svc.Read(ctx, ref, at)
		if err != nil {
			return err
		}
		if m.json {
			return m.printJSON(struct {
				Artifact lunad.Artifact `json:"artifact"`
				Content  string         `json:"content"`
			}{a, string(content)})
		}
		_, err = m.Stdout.Write(content)
		return err
	})
}

// resolveAt splits "REF@AT", unless the whole argument names an artifact
// (a path may contain "@") and REF does not.
func resolveAt(ctx context.Context, svc lunad.Workspace, arg string) (ref, at string) {
	ref, at = splitAt(arg)
	if at == "" {
		return ref, at
	}
	if _, err := svc.Artifact(ctx, ref); errors.Is(err, lunad.ErrNotFound) {
		if _, err := svc.Artifact(ctx, arg); err == nil {
			return arg, ""
		}
	}
	return ref, at
}

var cmdLog = &command{
	name:    "log",
	args:    "[ID]",
	summary: "show an artifact's versions, or every lunad commit, newest first",
	minArgs: 0, maxArgs: 1,
	run: runLog,
}

func runLog(m *Main, ctx context.Context, fs *flagSet, args []string) error {
	return fs.withWorkspace(ctx, args, func(svc lunad.Workspace, pos []string) error {
		ref := "" // every lunad commit
		if len(pos) == 1 {
			ref = pos[0]
		}
		vs, err := svc.History(ctx, ref)
		if err != nil {
			return err
		}
		slices.Reverse(vs)
		return printList(m, vs, []string{"COMMIT", "ARTIFACT", "VERSION", "OP", "AGENT", "TIME", "KEY", "MESSAGE"}, func(v lunad.Version) []string {
			num := ""
			if v.Number > 0 {
				num = strconv.Itoa(v.Number)
			}
			return []string{short(v.Commit), v.Artifact, num, string(v.Op), v.Agent, v.Time.UTC().Format(time.RFC3339), v.IdempotencyKey, v.Message}
		})
	})
}

var cmdDiff = &command{
	name:    "diff",
	args:    "ID [FROM [TO]]",
	summary: "show a unified diff between two versions of an artifact",
	help: `
With no version, diffs the previous version against the current one; with
FROM only, FROM against the current version; with both, FROM against TO.
With --json, prints {"id", "from", "to", "diff"}.`,
	minArgs: 1, maxArgs: 3,
	run: runDiff,
}

func runDiff(m *Main, ctx context.Context, fs *flagSet, args []string) error {
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	var from, to int
	if len(pos) > 1 {
		if from, err = fs.parseVersion("FROM", pos[1]); err != nil {
			return err
		}
	}
	if len(pos) > 2 {
		if to, err = fs.parseVersion("TO", pos[2]); err != nil {
			return err
		}
	}
	return m.withWorkspace(ctx, func(svc lunad.Workspace) error {
		d, err := svc.Diff(ctx, pos[0], from, to)
		if err != nil {
			return err
		}
		if !m.json {
			_, err = fmt.Fprint(m.Stdout, d)
			return err
		}
		a, err := svc.Artifact(ctx, pos[0])
		if err != nil {
			return err
		}
		if to == 0 {
			to = a.Version
		}
		if from == 0 {
			from = to - 1
		}
		return m.printJSON(struct {
			ID   string `json:"id"`
			From int    `json:"from"`
			To   int    `json:"to"`
			Diff string `json:"diff"`
		}{a.ID, from, to, d})
	})
}
