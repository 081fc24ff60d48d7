package editor

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// sentinels are every error the package returns at the top of a chain.
var sentinels = []error{ErrNoMatch, ErrAmbiguous, ErrAlreadyApplied, ErrBadBlocks, ErrBadPatch, ErrBinary, ErrInvalidUTF8, ErrEmptySearch}

func checkSentinel(t *testing.T, err error) {
	t.Helper()
	for _, s := range sentinels {
		if errors.Is(err, s) {
			if !strings.Contains(err.Error(), s.Error()) {
				t.Fatalf("message %q does not name %q", err, s)
			}
			return
		}
	}
	t.Fatalf("error %v (%T) wraps no sentinel", err, err)
}

func checkErrResult(t *testing.T, r Result, err error) {
	t.Helper()
	checkSentinel(t, err)
	if r.Content != nil || r.Matches != nil {
		t.Fatalf("result %+v returned with error %v", r, err)
	}
}

func FuzzParseBlocks(f *testing.F) {
	for _, s := range []string{
		"main.go\n```go\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n```\n",
		"<<<<< SEARCH\r\na\r\n=========\r\n>>>>>>>>> REPLACE",
		"<<<<<<< SEARCH\na\n=======\nb\n=======\n>>>>>>> REPLACE\n",
		"x\n<<<<<<< SEARCH\n<<<<<<< SEARCH\n",
		"### **`a b`**:\n~~~\n<<<<<<< search\n=======\n>>>>>>> replace\n",
		"calc.py\n<source>python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n</source>\n...\n<source lang=\"py\">\n<<<<<<< SEARCH\nc\n=======\n>>>>>>> REPLACE\n</source>\n",
		"x.go\n````\n```go\n<<<<<<< SEARCH\n```go\nx.go\na\n```\n=======\n```go\nb\n```\n>>>>>>> REPLACE\n```\n````\n\u2026\n",
		"------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n<pre>\n------- SEARCH\n</pre>\n",
		"*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch\n",
		"*** Begin Patch\n*** Update File: a.md\n@@ Title\n Title\n-=======\n+>>>>>>> REPLACE\n\n*** End of File\n*** End Patch\n",
		"x.py\n<<<<<<< SEARCH\ns = \u201chi\u201d\n=======\ns = \u2018hi\u2019\n>>>>>>> REPLACE\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		blocks, err := ParseBlocks(text)
		if err != nil {
			if blocks != nil {
				t.Fatalf("blocks %v with error %v", blocks, err)
			}
			checkSentinel(t, err)
			return
		}
		if len(blocks) == 0 || !utf8.ValidString(text) {
			t.Fatalf("%d blocks from %q", len(blocks), text)
		}
		var again strings.Builder
		markers := false // a block holds a marker line (only an apply_patch hunk can)
		for _, b := range blocks {
			for _, s := range []string{b.Search, b.Replace} {
				if !utf8.ValidString(s) || s != "" && !strings.HasSuffix(s, "\n") || strings.Contains(s, "\r\n") {
					t.Fatalf("bad text %q in %+v", s, b)
				}
			}
			if strings.ContainsAny(b.Path, " \t\n") {
				t.Fatalf("path %q", b.Path)
			}
			for _, l := range strings.Split(b.Search+b.Replace, "\n") {
				markers = markers || isSearch(l) || isReplace(l) || isMarker(l, '=', "")
			}
			again.WriteString("<<<<<<< SEARCH\n" + b.Search + "=======\n" + b.Replace + ">>>>>>> REPLACE\n")
		}
		if markers {
			if applyPatchStart(strings.Split(strings.ReplaceAll(text, "\r", ""), "\n")) < 0 {
				t.Fatalf("a marker line inside a block of %q", text)
			}
			return
		}
		// The blocks written out again parse to the same blocks.
		back, err := ParseBlocks(again.String())
		if err != nil || len(back) != len(blocks) {
			t.Fatalf("re-parse: %v, %d blocks", err, len(back))
		}
		for i := range back {
			if back[i].Search != blocks[i].Search || back[i].Replace != blocks[i].Replace {
				t.Fatalf("re-parse of block %d: %+v != %+v", i, back[i], blocks[i])
			}
		}
	})
}

func FuzzApplyBlocks(f *testing.F) {
	for _, s := range [][3]string{
		{"a\nb\nc\n", "b\n", "B\n"},
		{"s = \"hi\"\nt = 'x'\n", "s = \u201chi\u201d\nt = \u2018x\u2019\n", "s = \u201cbye\u201d\n"},
		{"a\nb\nc\n", "calc.py\n```python\nb\n```\n", "calc.py\n```python\nB\n```\n"},
		{"x\n```\ny\n```\n", "<source>\ny\n</source>\n", "<source>\nz\n</source>\n"},
		{"a\r\nb\r\nc", "c", "C\nD"},
		{goFunc, "if x {\n\ty()\n}\n", "if x {\n\tz()\n}\n"},
		{"a\nb\nc\nd\n", "a\n\nb\n", "a\nB\n"},
		{"def f():\n    x = 1\n    return x\n", "def f():\n    ...\n    return x\n", "def g():\n    ...\n    return x\n"},
		{"\tfmt.Println(\"hello, world\")\n", "\tfmt.Printn(\"hello, world\")\n", "x\n"},
		{"x\nx\n", "x\n", "y\n"},
		{"", "", "new\n"},
		{"a  \n\tb\n", " a\n b \n", "c\n"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, content, search, replace string) {
		r, err := ApplyBlocks([]byte(content), []Block{{Search: search, Replace: replace}})
		if err != nil {
			checkErrResult(t, r, err)
			return
		}
		if Validate(r.Content) != nil || len(r.Matches) != 1 || r.Content == nil {
			t.Fatalf("bad result %q %+v", r.Content, r.Matches)
		}
		if content == "" {
			if string(r.Content) != replace {
				t.Fatalf("create: %q", r.Content)
			}
			return
		}
		d := newDoc([]byte(content))
		mt := r.Matches[0]
		if mt.StartLine < 1 || mt.EndLine < mt.StartLine-1 || mt.EndLine > len(d.lines) {
			t.Fatalf("match %+v out of %d lines", mt, len(d.lines))
		}
		out := string(r.Content)
		// The final newline, the lines before (but for the last one's
		// ending) and the lines after the match are kept.
		// (Without a final newline, deleting the last line can leave an
		// empty last line, which looks like a final newline.)
		if out != "" && d.finalNL && !strings.HasSuffix(out, "\n") {
			t.Fatalf("final newline changed: %q -> %q", content, out)
		}
		if pre := d.s[:d.start[max(mt.StartLine-2, 0)]]; !strings.HasPrefix(out, pre) {
			t.Fatalf("lines before the match changed: %q -> %q", content, out)
		}
		if post := d.s[d.start[mt.EndLine]:]; !strings.HasSuffix(out, post) {
			t.Fatalf("lines after the match changed: %q -> %q", content, out)
		}
		// An exact match of LF text is plain replacement.
		if mt.Tier == TierExact && !strings.Contains(content+search+replace, "\r") && d.finalNL &&
			strings.HasSuffix(search, "\n") && strings.HasSuffix(replace, "\n") {
			want := d.s[:d.start[mt.StartLine-1]] + replace + d.s[d.start[mt.EndLine]:]
			if out != want {
				t.Fatalf("exact: got %q, want %q", out, want)
			}
		}
	})
}

func FuzzApplyPatch(f *testing.F) {
	for _, s := range [][3]string{
		{tenLines, "@@ -4,3 +4,3 @@\n l4\n-l5\n+L5\n l6\n", "a\nb"},
		{"a\nb", "@@ -2 +2 @@\n-b\n\\ No newline at end of file\n+b\n", "a\r\nb\r\n"},
		{"a\r\nb\r\n", "@@ @@\n a\n-b\n+c\n", ""},
		{"-- x\n++ y\n", "@@ -1,2 +1 @@\n--- x\n-++ y\n+z\n", "x\r"},
		{"", "@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n", "\n\n"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, content, patch, b string) {
		r, err := ApplyPatch([]byte(content), patch)
		if err != nil {
			checkErrResult(t, r, err)
		} else if Validate(r.Content) != nil || len(r.Matches) == 0 {
			t.Fatalf("bad result %q %+v", r.Content, r.Matches)
		}
		// Diff and ApplyPatch round-trip on any two texts.
		if Validate([]byte(content)) != nil || Validate([]byte(b)) != nil {
			return
		}
		d := Diff("a", "b", []byte(content), []byte(b))
		if content == b {
			if d != "" {
				t.Fatalf("Diff of equal texts: %q", d)
			}
			return
		}
		r, err = ApplyPatch([]byte(content), d)
		if err != nil || !bytes.Equal(r.Content, []byte(b)) {
			t.Fatalf("ApplyPatch(%q, Diff -> %q) = %q, %v\n%s", content, b, r.Content, err, d)
		}
	})
}

func FuzzRewrite(f *testing.F) {
	f.Add([]byte("a\r\nb\r\n"), []byte("a\nb\n"))
	f.Add([]byte(""), []byte("\x00"))
	f.Add([]byte("x"), []byte("\xed\xa0\x80"))
	f.Fuzz(func(t *testing.T, old, newContent []byte) {
		r, err := Rewrite(old, newContent)
		if err != nil {
			checkErrResult(t, r, err)
			if Validate(newContent) == nil {
				t.Fatalf("valid content refused: %v", err)
			}
			return
		}
		if Validate(newContent) != nil || !bytes.Equal(r.Content, newContent) || r.Content == nil || len(r.Matches) != 1 {
			t.Fatalf("Rewrite(%q) = %q %+v", newContent, r.Content, r.Matches)
		}
	})
}
