package editor

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

const tenLines = "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n"

func TestApplyPatch(t *testing.T) {
	cases := []struct {
		name    string
		content string
		patch   string
		want    string
		matches []Match
	}{
		{"simple with headers", tenLines,
			"--- a/f\n+++ b/f\n@@ -4,3 +4,3 @@\n l4\n-l5\n+L5\n l6\n",
			"l1\nl2\nl3\nl4\nL5\nl6\nl7\nl8\nl9\nl10\n", []Match{m(0, TierPatch, 4, 6)}},
		{"git preamble and a fence", tenLines,
			"```diff\ndiff --git a/f b/f\nindex 1234567..89abcde 100644\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-l1\n+L1\n l2\n```\n",
			"L1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n", []Match{m(0, TierPatch, 1, 2)}},
		{"no headers, counts left out", tenLines, "@@ -2 +2 @@\n-l2\n+L2\n",
			"l1\nL2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n", []Match{m(0, TierPatch, 2, 2)}},
		{"header without numbers", tenLines, "@@ @@\n l7\n-l8\n",
			"l1\nl2\nl3\nl4\nl5\nl6\nl7\nl9\nl10\n", []Match{m(0, TierPatch, 7, 8)}},
		{"offset hunk", tenLines, "@@ -2,3 +2,3 @@\n l6\n-l7\n+L7\n l8\n",
			"l1\nl2\nl3\nl4\nl5\nl6\nL7\nl8\nl9\nl10\n", []Match{m(0, TierPatch, 6, 8)}},
		{"several hunks, the offset carried", tenLines,
			"@@ -1,2 +1,3 @@\n l1\n+new\n l2\n@@ -7,2 +8,2 @@\n l7\n-l8\n+L8\n",
			"l1\nnew\nl2\nl3\nl4\nl5\nl6\nl7\nL8\nl9\nl10\n", []Match{m(0, TierPatch, 1, 2), m(1, TierPatch, 7, 8)}},
		{"stated line wins over another match", "x\ny\nx\ny\n", "@@ -3,2 +3,2 @@\n x\n-y\n+Y\n",
			"x\ny\nx\nY\n", []Match{m(0, TierPatch, 3, 4)}},
		{"blank context line without its space", "a\n\nb\n", "@@ -1,3 +1,3 @@\n a\n\n-b\n+B\n",
			"a\n\nB\n", []Match{m(0, TierPatch, 1, 3)}},
		{"trailing blank lines after the hunk", "a\nb\n", "@@ -1,2 +1,2 @@\n a\n-b\n+B\n\n\n",
			"a\nB\n", []Match{m(0, TierPatch, 1, 2)}},
		{"lines that look like headers, by the counts", "-- x\n++ y\nz\n", "@@ -1,3 +1,1 @@\n--- x\n-++ y\n z\n",
			"z\n", []Match{m(0, TierPatch, 1, 3)}},
		{"remove the final newline", "a\nb\n", "@@ -2 +2 @@\n-b\n+b\n\\ No newline at end of file\n",
			"a\nb", []Match{m(0, TierPatch, 2, 2)}},
		{"add the final newline", "a\nb", "@@ -2 +2 @@\n-b\n\\ No newline at end of file\n+b\n",
			"a\nb\n", []Match{m(0, TierPatch, 2, 2)}},
		{"append to a file without final newline", "a\nb", "@@ -1,2 +1,3 @@\n a\n b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
			"", nil}, // invalid: a context line with the marker must be last on both sides
		{"no marker: the missing final newline is kept", "a\nb", "@@ -2 +2,2 @@\n b\n+c\n",
			"a\nb\nc", []Match{m(0, TierPatch, 2, 2)}},
		{"CRLF file, LF patch: added lines get CRLF", "a\r\nb\r\nc\r\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
			"a\r\nB\r\nc\r\n", []Match{m(0, TierPatch, 1, 3)}},
		{"CRLF patch lines are taken as they are", "a\nb\n", "@@ -2 +2 @@\n-b\n+B\r\n",
			"a\nB\r\n", []Match{m(0, TierPatch, 2, 2)}},
		{"create on empty content", "", "--- /dev/null\n+++ b/new\n@@ -0,0 +1,2 @@\n+x\n+y\n",
			"x\ny\n", []Match{m(0, TierPatch, 1, 0)}},
		{"insert at the top by line number", "a\n", "@@ -0,0 +1 @@\n+top\n",
			"top\na\n", []Match{m(0, TierPatch, 1, 0)}},
		{"git format-patch signature", "a\n", "@@ -1 +1 @@\n-a\n+b\n-- \n2.43.0\n",
			"b\n", []Match{m(0, TierPatch, 1, 1)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := ApplyPatch([]byte(c.content), c.patch)
			if c.matches == nil {
				if !errors.Is(err, ErrBadPatch) {
					t.Fatalf("got %q, %v; want ErrBadPatch", r.Content, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(r.Content) != c.want || !reflect.DeepEqual(r.Matches, c.matches) {
				t.Errorf("got %q %+v\nwant %q %+v", r.Content, r.Matches, c.want, c.matches)
			}
		})
	}
}

func TestApplyPatchErrors(t *testing.T) {
	cases := []struct {
		name    string
		content string
		patch   string
		err     error
		check   func(t *testing.T, err error)
	}{
		{"wrong context", tenLines, "@@ -4,3 +4,3 @@\n l4\n-l5x\n+L5\n l6\n", ErrNoMatch, func(t *testing.T, err error) {
			var e *NoMatchError
			if !errors.As(err, &e) || e.Kind != "hunk" || e.Block != 0 || e.Search != "l4" {
				t.Fatalf("got %#v", err)
			}
			if want := []Hint{{4, "l4", 1}, {5, "l5", 0.667}, {6, "l6", 1}}; !reflect.DeepEqual(e.Hints, want) {
				t.Errorf("hints %+v", e.Hints)
			}
			if errors.Is(err, ErrBadPatch) {
				t.Error("a context mismatch is not a malformed patch")
			}
			for _, s := range []string{"hunk 1: ", "must match the file exactly", "@@ -4,3 +4,3 @@", "at line 4", "     5 | l5"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("message lacks %q: %s", s, err)
				}
			}
		}},
		{"second hunk wrong: nothing applied", tenLines, "@@ -1 +1 @@\n-l1\n+L1\n@@ -9 +9 @@\n-l99\n+L9\n", ErrNoMatch, func(t *testing.T, err error) {
			if e := err.(*NoMatchError); e.Block != 1 || !strings.HasPrefix(err.Error(), "hunk 2: ") {
				t.Errorf("got %v", err)
			}
		}},
		{"hunks out of order", tenLines, "@@ -8 +8 @@\n-l8\n+L8\n@@ -2 +2 @@\n-l2\n+L2\n", ErrNoMatch, nil},
		{"ambiguous away from the stated line", "x\ny\nx\ny\nz\n", "@@ -5 +5 @@\n x\n-y\n+Y\n", ErrAmbiguous, func(t *testing.T, err error) {
			var e *AmbiguousError
			if !errors.As(err, &e) || e.Kind != "hunk" || e.Tier != TierPatch || !reflect.DeepEqual(e.Lines, []int{1, 3}) {
				t.Errorf("got %#v", err)
			}
		}},
		{"no hunks", tenLines, "--- a/f\n+++ b/f\n", ErrBadPatch, nil},
		{"no changes", tenLines, "@@ -1,2 +1,2 @@\n l1\n l2\n", ErrBadPatch, nil},
		{"cut off", tenLines, "@@ -1,3 +1,3 @@\n l1\n-l2\n", ErrBadPatch, func(t *testing.T, err error) {
			var e *ParseError
			if !errors.As(err, &e) || e.Line != 1 || !strings.Contains(err.Error(), "cut off") {
				t.Errorf("got %v", err)
			}
		}},
		{"two files", tenLines, "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-l1\n+L1\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-x\n+y\n", ErrBadPatch, func(t *testing.T, err error) {
			if e := err.(*ParseError); e.Line != 6 || !strings.Contains(e.Msg, "one file") {
				t.Errorf("got %v", err)
			}
		}},
		{"hunk line outside a hunk", tenLines, "@@ -1 +1 @@\n-l1\n+L1\ngarbage\n+more\n", ErrBadPatch, nil},
		{"marker not at the end", tenLines, "@@ -1,2 +1,2 @@\n-l1\n\\ No newline at end of file\n+L1\n l2\n", ErrBadPatch, nil},
		{"marker first", tenLines, "@@ -1 +1 @@\n\\ No newline at end of file\n", ErrBadPatch, nil},
		{"insertion without a place", tenLines, "@@ @@\n+x\n", ErrBadPatch, nil},
		{"negative count", tenLines, "@@ -1,-5 @@\n-l1\n+L1\n", ErrBadPatch, wantMsg("the hunk header \"@@ -1,-5 @@\" does not have one -OLD and one +NEW range")},
		{"negative count, both ranges", tenLines, "@@ -1,-5 +1,1 @@\n-l1\n+L1\n", ErrBadPatch, wantMsg("has an old range -1,-5 whose count is negative")},
		{"negative new count", tenLines, "@@ -1 +1,-2 @@\n-l1\n+L1\n", ErrBadPatch, wantMsg("has a new range +1,-2 whose count is negative")},
		{"garbled count", tenLines, "@@ -1,x +1 @@\n-l1\n+L1\n", ErrBadPatch, wantMsg("whose count is not a number")},
		{"garbled start", tenLines, "@@ -1 +-3 @@\n-l1\n+L1\n", ErrBadPatch, wantMsg("whose start is not a line number")},
		{"insertion past the end", "a\n", "@@ -5,0 +6 @@\n+x\n", ErrBadPatch, nil},
		{"binary content", "a\x00", "@@ -1 +1 @@\n-a\n+b\n", ErrBinary, nil},
		{"invalid patch text", "a\n", "@@ -1 +1 @@\n-a\n+\xff\n", ErrInvalidUTF8, func(t *testing.T, err error) {
			if e := err.(*TextError); e.What != "patch" || e.Line != 3 {
				t.Errorf("got %#v", e)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := ApplyPatch([]byte(c.content), c.patch)
			if !errors.Is(err, c.err) {
				t.Fatalf("err = %v, want %v", err, c.err)
			}
			if r.Content != nil || r.Matches != nil {
				t.Fatalf("result %+v with an error", r)
			}
			if c.check != nil {
				c.check(t, err)
			}
		})
	}
}

// wantMsg checks that an error's message contains want.
func wantMsg(want string) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		t.Helper()
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q does not say %q", err, want)
		}
	}
}
