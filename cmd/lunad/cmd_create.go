package main

import (
	"context"
	"fmt"

	"github.com/lunad/lunad"
)

var cmdCreate = &command{
	name:    "create",
	args:    "--title TITLE [--type TYPE] [--path PATH] [--content-file FILE|-]",
	summary: "add an artifact; prints its new ID",
	help: `
The path defaults to one derived from the title and type (e.g. "Design
notes" → design-notes.md); the type defaults to one inferred from the path
(text/markdown for .md, code/python for .py, text/plain otherwise).
Content is empty unless --content-file gives it ("-" reads standard input).`,
	run: runCreate,
}

func runCreate(m *Main, ctx context.Context, fs *flagSet, args []string) error {
	var spec lunad.CreateSpec
	fs.StringVar(&spec.Title, "title", "", "the artifact's `title` (required, one line)")
	fs.StringVar(&spec.Type, "type", "", "artifact `type`, kind/name (e.g. text/markdown, code/go)")
	fs.StringVar(&spec.Path, "path", "", "`path` relative to the workspace root")
	status := fs.String("status", "", "`status`: active (default), draft or archived")
	contentFile := fs.String("content-file", "", "read the content from `file` (- for standard input)")
	fs.changeFlags(&spec.Change, false)
	if _, err := fs.parse(args); err != nil {
		return err
	}
	if spec.Title == "" {
		return fs.usageError("create needs --title")
	}
	spec.Status = lunad.Status(*status)
	opts, err := m.options()
	if err != nil {
		return err
	}
	spec.Content = []byte{} // not nil: gitstore.Create writes no file for nil content
	if *contentFile != "" {
		if spec.Content, err = m.readInput("content-file", *contentFile, opts.MaxContent); err != nil {
			return err
		}
	}
	return m.withWorkspace(ctx, func(svc lunad.Workspace) error {
		res, err := svc.Create(ctx, spec)
		if err != nil {
			return err
		}
		m.warn(res)
		if m.json {
			return m.printJSON(toWriteJSON(res))
		}
		_, err = fmt.Fprintln(m.Stdout, res.Artifact.ID)
		return err
	})
}
