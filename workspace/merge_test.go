package workspace_test

import (
	"slices"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/workspace"
)

// TestMergeStageWrite: how a stage's write lands on an artifact a person
// changed since the version the stage read — its edits applied again
// where they still match exactly, else a three-way merge, else a conflict.
func TestMergeStageWrite(t *testing.T) {
	for _, tc := range []struct {
		name, base, ours, theirs string
		edits                    []lunad.Block
		want                     string // "" for a conflict
	}{
		{name: "edit applied again next to a person's change", base: "a\nb\nc\n", ours: "a\nB by hand\nc\n", theirs: "a\nb\nC\n",
			edits: []lunad.Block{{Search: "c\n", Replace: "C\n"}}, want: "a\nB by hand\nC\n"},
		{name: "the same without the edit conflicts", base: "a\nb\nc\n", ours: "a\nB by hand\nc\n", theirs: "a\nb\nC\n"},
		{name: "edits that are not the whole write are merged", base: "a\n\nb\n\nc\n", ours: "A\n\nb\n\nc\n", theirs: "a\n\nb\n\nC, rewritten\n",
			edits: []lunad.Block{{Search: "c\n", Replace: "C\n"}}, want: "A\n\nb\n\nC, rewritten\n"},
		{name: "an edit whose text the person changed conflicts", base: "x\n\nsay hi\n\nz\n", ours: "x\n\nsay hello\n\nz\n", theirs: "x\n\nsay hi there\n\nz\n",
			edits: []lunad.Block{{Search: "say hi\n", Replace: "say hi there\n"}}},
		{name: "an edit that would match twice now is merged", base: "k\n\nv\n", ours: "k\n\nv\n\nk\n", theirs: "K\n\nv\n",
			edits: []lunad.Block{{Search: "k\n", Replace: "K\n"}}, want: "K\n\nv\n\nk\n"},
		{name: "CRLF and no final newline kept", base: "a\r\n\r\nb", ours: "a\r\n\r\nb, by hand", theirs: "A\r\n\r\nb",
			edits: []lunad.Block{{Search: "a", Replace: "A"}}, want: "A\r\n\r\nb, by hand"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, conflicts := workspace.MergeStageWrite([]byte(tc.base), []byte(tc.ours), []byte(tc.theirs), tc.edits)
			if tc.want == "" {
				if len(conflicts) == 0 {
					t.Fatalf("merged %q, want a conflict", got)
				}
				return
			}
			if len(conflicts) > 0 || string(got) != tc.want {
				t.Fatalf("got %q, conflicts at %v; want %q", got, conflicts, tc.want)
			}
		})
	}
	// More edits than are applied again under the write lock: merged by
	// lines, where this one conflicts.
	many := []lunad.Block{{Search: "c\n", Replace: "C\n"}}
	for len(many) <= 64 {
		many = append(many, lunad.Block{Search: "a\n", Replace: "z\n"}, lunad.Block{Search: "z\n", Replace: "a\n"})
	}
	if got, c := workspace.MergeStageWrite([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"), []byte("a\nb\nC\n"), many[:63]); len(c) > 0 || string(got) != "a\nB\nC\n" {
		t.Fatalf("63 edits: %q %v, want them applied again", got, c)
	}
	if _, c := workspace.MergeStageWrite([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"), []byte("a\nb\nC\n"), many); len(c) == 0 {
		t.Fatal("65 edits were applied again")
	}
	if _, c := workspace.MergeStageWrite([]byte("a\nb\n"), []byte("a\nB1\n"), []byte("a\nB2\n"), nil); !slices.Equal(c, []int{2}) {
		t.Fatalf("conflict lines %v, want [2]", c)
	}
}
