package editor

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

func TestMerge3(t *testing.T) {
	for _, tc := range []struct {
		name, base, ours, theirs string
		want                     string // "" with conflicts > 0
		conflicts                int
	}{
		{name: "nothing changed", base: "a\nb\n", ours: "a\nb\n", theirs: "a\nb\n", want: "a\nb\n"},
		{name: "theirs only", base: "a\nb\nc\n", ours: "a\nb\nc\n", theirs: "a\nB\nc\n", want: "a\nB\nc\n"},
		{name: "ours only", base: "a\nb\nc\n", ours: "a\nB\nc\n", theirs: "a\nb\nc\n", want: "a\nB\nc\n"},
		{name: "separate paragraphs", base: "# T\n\none\n\ntwo\n\nthree\n", ours: "# T\n\none\n\ntwo\n\nTHREE by hand\n",
			theirs: "# T\n\none\n\nTWO by the agent\n\nthree\n", want: "# T\n\none\n\nTWO by the agent\n\nTHREE by hand\n"},
		{name: "same change both sides", base: "a\nb\n", ours: "a\nX\n", theirs: "a\nX\n", want: "a\nX\n"},
		{name: "same line changed differently", base: "a\nb\nc\n", ours: "a\nO\nc\n", theirs: "a\nT\nc\n", conflicts: 1},
		{name: "adjacent lines conflict", base: "a\nb\nc\nd\n", ours: "a\nB\nc\nd\n", theirs: "a\nb\nC\nd\n", conflicts: 1},
		{name: "inserts at one place", base: "a\nb\n", ours: "a\nx\nb\n", theirs: "a\ny\nb\n", conflicts: 1},
		{name: "delete and keep", base: "a\nb\nc\n\nd\n", ours: "a\nc\n\nd\n", theirs: "a\nb\nc\n\nD\n", want: "a\nc\n\nD\n"},
		{name: "CRLF kept", base: "a\r\nb\r\n\r\nc\r\n", ours: "A\r\nb\r\n\r\nc\r\n", theirs: "a\r\nb\r\n\r\nC\r\n", want: "A\r\nb\r\n\r\nC\r\n"},
		{name: "no final newline kept", base: "a\n\nb", ours: "x\n\nb", theirs: "a\n\nb2", want: "x\n\nb2"},
		{name: "final newline added on one side", base: "a\n\nb", ours: "A\n\nb", theirs: "a\n\nb\n", want: "A\n\nb\n"},
		{name: "line end change is a change", base: "a\nb\n", ours: "a\r\nb\n", theirs: "a\nb\n", want: "a\r\nb\n"},
		{name: "empty base, both write", base: "", ours: "x\n", theirs: "y\n", conflicts: 1},
		{name: "empty base, one writes", base: "", ours: "", theirs: "y\n", want: "y\n"},
		{name: "appends at the end differ", base: "a\n", ours: "a\nb\n", theirs: "a\nc\n", conflicts: 1},
		{name: "two conflicts", base: "a\n\nb\n\nc\n", ours: "A\n\nb\n\nC\n", theirs: "1\n\nb\n\n3\n", conflicts: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, conflicts := Merge3([]byte(tc.base), []byte(tc.ours), []byte(tc.theirs))
			if len(conflicts) != tc.conflicts {
				t.Fatalf("conflicts %+v, want %d", conflicts, tc.conflicts)
			}
			if tc.conflicts > 0 {
				if got != nil {
					t.Fatalf("merged text %q returned with conflicts", got)
				}
				return
			}
			if string(got) != tc.want {
				t.Fatalf("Merge3 = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestMerge3ConflictNamesBothSides(t *testing.T) {
	_, c := Merge3([]byte("a\nb\nc\n"), []byte("a\nours\nc\n"), []byte("a\ntheirs\nc\n"))
	if len(c) != 1 || c[0] != (Conflict{Line: 2, Base: "b\n", Ours: "ours\n", Theirs: "theirs\n"}) {
		t.Fatalf("conflicts %+v", c)
	}
}

func FuzzMerge3(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n", "a\nb\nC\n")
	f.Add("# T\n\none\n\ntwo\n", "# T\n\nONE\n\ntwo\n", "# T\n\none\n\nTWO\n")
	f.Add("a\r\nb", "a\r\nb\n", "x\r\nb")
	f.Add("", "x", "y")
	f.Fuzz(func(t *testing.T, x, y, z string) {
		if !utf8.ValidString(x) || !utf8.ValidString(y) || !utf8.ValidString(z) {
			return
		}
		X, Y, Z := []byte(x), []byte(y), []byte(z)
		for _, p := range []struct {
			name             string
			base, ours, thrs []byte
			want             []byte
		}{
			{"merge(x,x,y)=y", X, X, Y, Y},
			{"merge(x,y,x)=y", X, Y, X, Y},
			{"merge(x,y,y)=y", X, Y, Y, Y},
		} {
			got, c := Merge3(p.base, p.ours, p.thrs)
			if c != nil || !bytes.Equal(got, p.want) {
				t.Fatalf("%s: got %q, %+v; want %q", p.name, got, c, p.want)
			}
		}
		a, ca := Merge3(X, Y, Z)
		b, cb := Merge3(X, Z, Y)
		if (ca == nil) != (cb == nil) {
			t.Fatalf("merge(x,y,z) conflicts %v but merge(x,z,y) %v", ca, cb)
		}
		if ca == nil && !bytes.Equal(a, b) {
			t.Fatalf("clean merges differ: %q vs %q", a, b)
		}
		if ca == nil && utf8.Valid(a) == false {
			t.Fatalf("merge of UTF-8 texts is not UTF-8: %q", a)
		}
	})
}
