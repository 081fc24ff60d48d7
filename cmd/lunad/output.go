package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/lunad/lunad"
)

// printJSON writes v as indented JSON and a newline.
func (m *Main) printJSON(v any) error {
	enc := json.NewEncoder(m.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// table writes aligned columns: a header, then rows.
type table struct {
	tw *tabwriter.Writer
}

func newTable(w io.Writer, header ...string) *table {
	t := &table{tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)}
	t.row(header...)
	return t
}

func (t *table) row(cells ...string) {
	for i, c := range cells {
		if c == "" {
			cells[i] = "-"
		}
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

func (t *table) flush() error { return t.tw.Flush() }

// printList prints items as a JSON array ([] when there are none), or as
// a table: the header, then one row per item.
func printList[T any](m *Main, items []T, header []string, row func(T) []string) error {
	if m.json {
		return m.printJSON(nonNil(items))
	}
	t := newTable(m.Stdout, header...)
	for _, it := range items {
		t.row(row(it)...)
	}
	return t.flush()
}

// nonNil returns s, or an empty slice for nil: JSON shows [], not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// short abbreviates a commit hash for tables and one-line output.
func short(commit string) string {
	if len(commit) > 8 {
		return commit[:8]
	}
	return commit
}

// writeJSON is the JSON form of a write's result (create, undo, redo,
// restore, mv, archive, link; edit adds its matches).
type writeJSON struct {
	ID       string         `json:"id"`
	Path     string         `json:"path"`
	Version  int            `json:"version"`
	Commit   string         `json:"commit"`
	Op       lunad.Op       `json:"op"`
	Replayed bool           `json:"replayed"`
	Artifact lunad.Artifact `json:"artifact"`
	Warning  string         `json:"warning,omitempty"`
}

type editJSON struct {
	writeJSON
	Matches []lunad.Match `json:"matches"`
}

func toWriteJSON(r lunad.Result) writeJSON {
	return writeJSON{ID: r.Artifact.ID, Path: r.Artifact.Path, Version: r.Version.Number, Commit: r.Version.Commit,
		Op: r.Version.Op, Replayed: r.Replayed, Artifact: r.Artifact, Warning: r.Warning}
}

// warn tells on stderr what went wrong after a write was committed (see
// lunad.Result.Warning); the write succeeded and the exit status is 0, so
// that no script retries it.
func (m *Main) warn(r lunad.Result) {
	if r.Warning != "" {
		fmt.Fprintln(m.Stderr, "lunad: warning:", r.Warning)
	}
}

// printResult prints a write's result: its JSON form, or one line
// "ID vN COMMIT" (with " replayed" when an idempotency key matched).
func (m *Main) printResult(r lunad.Result) error {
	m.warn(r)
	if m.json {
		return m.printJSON(toWriteJSON(r))
	}
	_, err := fmt.Fprintln(m.Stdout, resultLine(r, ""))
	return err
}

func resultLine(r lunad.Result, tiers string) string {
	line := fmt.Sprintf("%s v%d %s", r.Artifact.ID, r.Version.Number, short(r.Version.Commit))
	if tiers != "" {
		line += " (" + tiers + ")"
	}
	if r.Replayed {
		line += " replayed"
	}
	return line
}

// printEdit prints an edit's result with the tier each block matched by.
func (m *Main) printEdit(r lunad.EditResult) error {
	m.warn(r.Result)
	if m.json {
		return m.printJSON(editJSON{writeJSON: toWriteJSON(r.Result), Matches: nonNil(r.Matches)})
	}
	tiers := make([]string, len(r.Matches))
	for i, mt := range r.Matches {
		tiers[i] = string(mt.Tier)
	}
	_, err := fmt.Fprintln(m.Stdout, resultLine(r.Result, strings.Join(tiers, ", ")))
	return err
}
