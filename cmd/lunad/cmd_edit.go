package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/lunad/lunad"
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
	minArgs: 1, maxArgs: 1,
	run: runEdit,
}

func runEdit(m *Main, ctx context.Context, fs *flagSet, args []string) error {
	var f editFiles
	fs.StringVar(&f.search, "search-file", "", "`file` with the text to find (with --replace-file)")
	fs.StringVar(&f.replace, "replace-file", "", "`file` with the replacement text (with --search-file)")
	fs.StringVar(&f.blocks, "blocks-file", "", "`file` with fenced SEARCH/REPLACE blocks")
	fs.StringVar(&f.patch, "patch-file", "", "`file` with a unified diff")
	fs.StringVar(&f.content, "content-file", "", "`file` with the whole new content")
	var req lunad.EditRequest
	fs.changeFlags(&req.Change, true)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if err := f.check(fs); err != nil {
		return err
	}
	req.ID = pos[0]
	if err := m.readEdit(&req, f); err != nil {
		return err
	}
	return m.withWorkspace(ctx, func(svc lunad.Workspace) error {
		res, err := svc.Edit(ctx, req)
		if err != nil {
			return withArtifactID(ctx, svc, req.ID, err)
		}
		return m.printEdit(res)
	})
}

// editFiles are the files edit's flags name: the edit, in one of its kinds.
type editFiles struct {
	search, replace, blocks, patch, content string
}

// check reports a usage error unless f gives exactly one kind of edit.
func (f editFiles) check(fs *flagSet) error {
	if (f.search == "") != (f.replace == "") {
		return fs.usageError("--search-file and --replace-file go together")
	}
	kinds := 0
	for _, name := range []string{f.search, f.blocks, f.patch, f.content} {
		if name != "" {
			kinds++
		}
	}
	if kinds != 1 {
		return fs.usageError("give exactly one of --search-file/--replace-file, --blocks-file, --patch-file or --content-file")
	}
	return nil
}

// readEdit reads the edit the files f describe into req.
func (m *Main) readEdit(req *lunad.EditRequest, f editFiles) error {
	opts, err := m.options()
	if err != nil {
		return err
	}
	// Edit descriptions may be larger than the content they edit.
	limit := 4 * opts.MaxContent
	switch {
	case f.search != "":
		search, err := m.readInput("search-file", f.search, limit)
		if err != nil {
			return err
		}
		replace, err := m.readInput("replace-file", f.replace, limit)
		if err != nil {
			return err
		}
		req.Blocks = []lunad.Block{{Search: string(search), Replace: string(replace)}}
	case f.blocks != "":
		req.BlocksText, err = m.readNonEmpty("blocks-file", f.blocks, limit)
	case f.patch != "":
		req.Patch, err = m.readNonEmpty("patch-file", f.patch, limit)
	default:
		req.Content, err = m.readInput("content-file", f.content, opts.MaxContent)
		req.Rewrite = true
	}
	return err
}

// readNonEmpty is readInput for a file that must not be empty.
func (m *Main) readNonEmpty(flagName, name string, limit int) (string, error) {
	b, err := m.readInput(flagName, name, limit)
	if err != nil {
		return "", err
	}
	if len(b) == 0 {
		return "", fmt.Errorf("%w: --%s %s is empty", lunad.ErrInvalid, flagName, name)
	}
	return string(b), nil
}

// notFoundIn is a SEARCH text that was not found (the *editor.NoMatchError
// err wraps) in the artifact ID, which the hints name.
type notFoundIn struct {
	id  string
	err error
}

func (e *notFoundIn) Error() string { return e.err.Error() }
func (e *notFoundIn) Unwrap() error { return e.err }

// withArtifactID gives err, if a SEARCH text was not found, the ID of the
// artifact ref names, so that the hints can say which artifact to read;
// any other error (or one for an artifact that cannot be read) is err.
func withArtifactID(ctx context.Context, svc lunad.Workspace, ref string, err error) error {
	var nm *editor.NoMatchError
	if !errors.As(err, &nm) || len(nm.Hints) == 0 {
		return err
	}
	a, aerr := svc.Artifact(ctx, ref)
	if aerr != nil {
		return err
	}
	return &notFoundIn{id: a.ID, err: err}
}

// printHints writes the "did you mean" lines of a SEARCH text that was not
// found: the closest lines of the artifact (the editor gives none when
// nothing is close), and the command that shows it.
func printHints(w io.Writer, err error) {
	var nm *editor.NoMatchError
	if !errors.As(err, &nm) || len(nm.Hints) == 0 {
		return
	}
	where := fmt.Sprintf("line %d", nm.Hints[0].Line)
	if last := nm.Hints[len(nm.Hints)-1].Line; last != nm.Hints[0].Line {
		where = fmt.Sprintf("lines %d-%d", nm.Hints[0].Line, last)
	}
	fmt.Fprintf(w, "did you mean %s (similarity %.2f)?\n", where, nm.Score)
	for _, h := range nm.Hints {
		fmt.Fprintf(w, "%6d | %s\n", h.Line, printable(h.Text))
	}
	var in *notFoundIn
	if errors.As(err, &in) {
		fmt.Fprintf(w, "copy the lines exactly as they are in the artifact (`lunad show %s`) and try again\n", in.id)
		return
	}
	fmt.Fprintln(w, "copy the lines exactly as they are in the artifact and try again")
}
