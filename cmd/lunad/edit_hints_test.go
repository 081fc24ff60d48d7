package main

import (
	"strings"
	"testing"
)

// TestEditHints checks the "did you mean" lines lunad edit prints when a
// SEARCH text is not found: the closest line by name, "line N" for one
// line, the artifact's real ID (also when the edit named it by path), and
// no hint at all for text that is nothing like the artifact.
func TestEditHints(t *testing.T) {
	content := "import os\n\n\ndef parse_lockfile(path):\n    return open(path).read()\n\n\ndef parse_config(path, defaults=None):\n    with open(path) as f:\n        return f.read()\n"
	w, id := newWSWith(t, "app/config.py", content)
	for _, tc := range []struct {
		name, ref, search string
		want              string // stderr after the first line
	}{
		{"one line, named by path", "app/config.py", "def parse_config(path):\n",
			"did you mean line 8 (similarity 0.60)?\n     8 | def parse_config(path, defaults=None):\n" +
				"copy the lines exactly as they are in the artifact (`lunad show " + id + "`) and try again\n"},
		{"two lines, named by ID", id, "def parse_config(path):\n    with open(path) as fh:\n",
			"did you mean lines 8-9 (similarity 0.73)?\n     8 | def parse_config(path, defaults=None):\n     9 |     with open(path) as f:\n" +
				"copy the lines exactly as they are in the artifact (`lunad show " + id + "`) and try again\n"},
		{"unrelated text", id, "SELECT name FROM users WHERE id = 1;\n", ""},
	} {
		w.subtest(t, tc.name, func(t *testing.T) {
			res := w.run("edit", tc.ref, "--search-file", w.file("s", tc.search), "--replace-file", w.file("r", "x\n"))
			w.checkFail(res, 4, "SEARCH text not found")
			first, rest, _ := strings.Cut(res.stderr, "\n")
			if rest != tc.want {
				t.Errorf("after %q:\n got %q\nwant %q", first, rest, tc.want)
			}
			if tc.want == "" && !strings.HasSuffix(first, "re-read the file and copy the lines to change exactly") {
				t.Errorf("first line %q", first)
			}
		})
	}
}

// TestEditReplyShapes runs lunad edit on a reply as models write it: the
// file name, then a <source>python fence around each block, a no-op block
// among them, and a line of dots between them. It applies, and the output
// lists the no-op.
func TestEditReplyShapes(t *testing.T) {
	w, id := newWSWith(t, "calc.py", "def add(a, b):\n    return a + b\n\n\ndef area(r):\n    return 3.14 * r * r\n")
	reply := "calc.py\n<source>python\n<<<<<<< SEARCH\n    return a + b\n=======\n    return a + b  # sum\n>>>>>>> REPLACE\n</source>\n...\n" +
		"<source>python\n<<<<<<< SEARCH\ndef area(r):\n=======\ndef area(r):\n>>>>>>> REPLACE\n</source>\n\n" +
		"<source>python\n<<<<<<< SEARCH\n    return 3.14 * r * r\n=======\n    return math.pi * r * r\n>>>>>>> REPLACE\n</source>\n"
	out := w.ok("edit", id, "--blocks-file", w.file("reply", reply))
	if !strings.HasSuffix(out, " (exact, no-op, exact)\n") {
		t.Errorf("output %q", out)
	}
	if got, want := w.show(id), "def add(a, b):\n    return a + b  # sum\n\n\ndef area(r):\n    return math.pi * r * r\n"; got != want {
		t.Errorf("content %q, want %q", got, want)
	}
}
