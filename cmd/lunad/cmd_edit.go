package main

import (
	"context"
	"fmt"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/daemon"
	"github.com/lunad/lunad/editor"
)

var cmdEdit = &command{
	name:    "edit",
	args:    "ID (--search-file F --replace-file F | --blocks-file F | --patch-file F | --content-file F)",
	summary: "edit an artifact and commit the change",
	help: `
Give exactly one kind of edit:
  --search-file S --replace-file R   replace the text in file S by the text in file R
  --blocks-file F                    Aider-style fenced SEARCH/REPLACE blocks
  --patch-file F                     a unified diff
  --content-file F                   the whole new content
"-" reads standard input (for one of the flags). SEARCH text is matched
exactly first, then ignoring trailing whitespace, indentation, blank lines,
elisions, and finally fuzzily; the tier each block matched by is printed:
  ID vVERSION COMMIT (TIER, ...)
Exit code 4 means the edit did not apply (no match, ambiguous, or no change);
the error names the closest candidates. Exit code 3 means --base-version is
not the current version: read the artifact again and redo the edit.`,
	run: runEdit,
}

func runEdit(m *Main, ctx context.Context, c *command, args []string) (err error) {
	fs := m.newFlags(c)
	searchFile := fs.String("search-file", "", "`file` with the text to find (with --replace-file)")
	replaceFile := fs.String("replace-file", "", "`file` with the replacement text (with --search-file)")
	blocksFile := fs.String("blocks-file", "", "`file` with fenced SEARCH/REPLACE blocks")
	patchFile := fs.String("patch-file", "", "`file` with a unified diff")
	contentFile := fs.String("content-file", "", "`file` with the whole new content")
	ch := fs.changeFlags(true)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if err := fs.nargs(pos, 1, 1); err != nil {
		return err
	}
	if (*searchFile == "") != (*replaceFile == "") {
		return fs.usageError("--search-file and --replace-file go together")
	}
	kinds := 0
	for _, f := range []string{*searchFile, *blocksFile, *patchFile, *contentFile} {
		if f != "" {
			kinds++
		}
	}
	if kinds != 1 {
		return fs.usageError("give exactly one of --search-file/--replace-file, --blocks-file, --patch-file or --content-file")
	}
	opts, err := m.options()
	if err != nil {
		return err
	}
	// Edit descriptions may be larger than the content they edit.
	limit := 4 * opts.MaxContent
	req := daemon.EditRequest{ID: pos[0], Change: ch.change()}
	switch {
	case *searchFile != "":
		search, err := m.readInput("search-file", *searchFile, limit)
		if err != nil {
			return err
		}
		replace, err := m.readInput("replace-file", *replaceFile, limit)
		if err != nil {
			return err
		}
		req.Blocks = []editor.Block{{Search: string(search), Replace: string(replace)}}
	case *blocksFile != "":
		b, err := m.readInput("blocks-file", *blocksFile, limit)
		if err != nil {
			return err
		}
		if len(b) == 0 {
			return fmt.Errorf("%w: --blocks-file %s is empty", lunad.ErrInvalid, *blocksFile)
		}
		req.BlocksText = string(b)
	case *patchFile != "":
		b, err := m.readInput("patch-file", *patchFile, limit)
		if err != nil {
			return err
		}
		if len(b) == 0 {
			return fmt.Errorf("%w: --patch-file %s is empty", lunad.ErrInvalid, *patchFile)
		}
		req.Patch = string(b)
	default:
		if req.Content, err = m.readInput("content-file", *contentFile, opts.MaxContent); err != nil {
			return err
		}
		req.Rewrite = true
	}
	svc, err := m.open()
	if err != nil {
		return err
	}
	defer closeService(svc, &err)
	res, err := svc.Edit(ctx, req)
	if err != nil {
		return err
	}
	return m.printEdit(res)
}
