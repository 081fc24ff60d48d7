package main

import (
	"context"
	"fmt"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/gitstore"
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

func runCreate(m *Main, ctx context.Context, c *command, args []string) (err error) {
	fs := m.newFlags(c)
	title := fs.String("title", "", "the artifact's `title` (required, one line)")
	typ := fs.String("type", "", "artifact `type`, kind/name (e.g. text/markdown, code/go)")
	path := fs.String("path", "", "`path` relative to the workspace root")
	status := fs.String("status", "", "`status`: active (default), draft or archived")
	contentFile := fs.String("content-file", "", "read the content from `file` (- for standard input)")
	ch := fs.changeFlags(false)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if err := fs.nargs(pos, 0, 0); err != nil {
		return err
	}
	if *title == "" {
		return fs.usageError("create needs --title")
	}
	opts, err := m.options()
	if err != nil {
		return err
	}
	content := []byte{} // not nil: gitstore.Create writes no file for nil content
	if *contentFile != "" {
		if content, err = m.readInput("content-file", *contentFile, opts.MaxContent); err != nil {
			return err
		}
	}
	svc, err := m.open()
	if err != nil {
		return err
	}
	defer closeService(svc, &err)
	res, err := svc.Create(ctx, gitstore.CreateSpec{
		Title: *title, Type: *typ, Path: *path, Status: lunad.Status(*status), Content: content, Change: ch.change(),
	})
	if err != nil {
		return err
	}
	if m.json {
		return m.printJSON(toWriteJSON(res))
	}
	_, err = fmt.Fprintln(m.Stdout, res.Artifact.ID)
	return err
}
