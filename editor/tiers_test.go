package editor

import (
	"errors"
	"strings"
	"testing"
)

const goFunc = "func f() {\n\tif x {\n\t\ty()\n\t}\n}\n"

// pyTabs is Python indented with tabs, with a docstring's second line
// aligned with spaces; pyTabs4 is its lines 2-5 with a tab written as 4
// spaces.
const (
	pyTabs  = "class A:\n\tdef f(self):\n\t\t\"\"\"Doc\n\t\t    more.\"\"\"\n\t\tif x:\n\t\t\tpass\n"
	pyTabs4 = "    def f(self):\n        \"\"\"Doc\n            more.\"\"\"\n        if x:\n"
)

func TestApplyTiers(t *testing.T) {
	runApply(t, []applyCase{
		// 1. exact
		{name: "exact/middle line", content: "a\nb\nc\n", blocks: []Block{blk("b\n", "B\n")},
			want: "a\nB\nc\n", matches: []Match{m(0, TierExact, 2, 2)}},
		{name: "exact/first and last lines", content: "a\nb\nc\n", blocks: []Block{blk("a\nb\nc\n", "x\n")},
			want: "x\n", matches: []Match{m(0, TierExact, 1, 3)}},
		{name: "exact/insert lines", content: goFunc, blocks: []Block{blk("\t\ty()\n", "\t\ty()\n\t\tz()\n")},
			want: "func f() {\n\tif x {\n\t\ty()\n\t\tz()\n\t}\n}\n", matches: []Match{m(0, TierExact, 3, 3)}},
		{name: "exact/delete lines", content: "a\nb\nc\nd\n", blocks: []Block{blk("b\nc\n", "")},
			want: "a\nd\n", matches: []Match{m(0, TierExact, 2, 3)}},
		{name: "exact/search without final newline", content: "a\nb\nc\n", blocks: []Block{blk("b", "B")},
			want: "a\nB\nc\n", matches: []Match{m(0, TierExact, 2, 2)}},
		{name: "exact/search with CRLF", content: "a\nb\nc\n", blocks: []Block{blk("b\r\nc\r\n", "B\r\n")},
			want: "a\nB\n", matches: []Match{m(0, TierExact, 2, 3)}},
		{name: "exact/wins over trailing whitespace", content: "b \nb\n", blocks: []Block{blk("b\n", "B\n")},
			want: "b \nB\n", matches: []Match{m(0, TierExact, 2, 2)}},

		// 2. trailing whitespace
		{name: "trailing/in the file, kept on context lines", content: "a  \nb\t\nc\n", blocks: []Block{blk("a\nb\n", "a\nB\n")},
			want: "a  \nB\nc\n", matches: []Match{m(0, TierTrailingWhitespace, 1, 2)}},
		{name: "trailing/in SEARCH", content: "a\nb\n", blocks: []Block{blk("a \nb \n", "a \nX\n")},
			want: "a\nX\n", matches: []Match{m(0, TierTrailingWhitespace, 1, 2)}},

		// 3. indentation
		{name: "indentation/under-indented, re-indented with tabs", content: goFunc,
			blocks:  []Block{blk("if x {\n\ty()\n}\n", "if x {\n\ty()\n\tz()\n}\n")},
			want:    "func f() {\n\tif x {\n\t\ty()\n\t\tz()\n\t}\n}\n",
			matches: []Match{m(0, TierIndentation, 2, 4)}},
		{name: "indentation/spaces for tabs", content: goFunc,
			blocks:  []Block{blk("    if x {\n        y()\n    }\n", "    if x {\n        y(1)\n        if z {\n            w()\n        }\n    }\n")},
			want:    "func f() {\n\tif x {\n\t\ty(1)\n\t\tif z {\n\t\t\tw()\n\t\t}\n\t}\n}\n",
			matches: []Match{m(0, TierIndentation, 2, 4)}},
		{name: "indentation/over-indented", content: "def f():\n    return 1\n",
			blocks: []Block{blk("        return 1\n", "        return 2\n")}, want: "def f():\n    return 2\n",
			matches: []Match{m(0, TierIndentation, 2, 2)}},
		{name: "indentation/2-space SEARCH in a 4-space file", content: "class A:\n    def f(self):\n        return 1\n",
			blocks:  []Block{blk("  def f(self):\n    return 1\n", "  def f(self):\n    x = 1\n    return x\n")},
			want:    "class A:\n    def f(self):\n        x = 1\n        return x\n",
			matches: []Match{m(0, TierIndentation, 2, 3)}},
		{name: "indentation/8-space tabs with alignment spaces", content: "func f() {\n\tfoo(a,\n\t    b)\n}\n",
			blocks:  []Block{blk("        foo(a,\n            b)\n", "        foo(a,\n            c)\n        bar()\n")},
			want:    "func f() {\n\tfoo(a,\n\t    c)\n\tbar()\n}\n",
			matches: []Match{m(0, TierIndentation, 2, 3)}},
		{name: "indentation/one level, nested line added", content: "class A:\n    def f(self):\n        pass\n",
			blocks:  []Block{blk("pass\n", "if self.x:\n    return 1\n")},
			want:    "class A:\n    def f(self):\n        if self.x:\n            return 1\n",
			matches: []Match{m(0, TierIndentation, 3, 3)}},
		// A new line as wide as an aligned continuation line (a docstring's
		// second line, 2 tabs and 4 spaces) is a statement one level deeper:
		// it is written in the file's unit (3 tabs), not copied.
		{name: "indentation/new line as wide as an aligned line", content: pyTabs,
			blocks:  []Block{blk(pyTabs4, pyTabs4+"            y()\n")},
			want:    strings.Replace(pyTabs, "\t\tif x:\n", "\t\tif x:\n\t\t\ty()\n", 1),
			matches: []Match{m(0, TierIndentation, 2, 5)}},
		// A changed line keeps the indentation of the line it replaces.
		{name: "indentation/changed aligned line keeps its alignment", content: pyTabs,
			blocks:  []Block{blk(pyTabs4, strings.Replace(pyTabs4, "more.", "more text.", 1))},
			want:    strings.Replace(pyTabs, "more.", "more text.", 1),
			matches: []Match{m(0, TierIndentation, 2, 5)}},
		{name: "indentation/the edit's own alignment spaces are kept", content: "func f() {\n\tfoo(a,\n\t    b)\n}\n",
			blocks:  []Block{blk("\t\tfoo(a,\n\t\t    b)\n", "\t\tfoo(a,\n\t\t    b,\n\t\t    c)\n\t\tbar(x,\n\t\t    y)\n")},
			want:    "func f() {\n\tfoo(a,\n\t    b,\n\t    c)\n\tbar(x,\n\t    y)\n}\n",
			matches: []Match{m(0, TierIndentation, 2, 3)}},
		// 8 spaces for a tab, not 4 spaces and a shift: a line nested in the
		// new lines is one tab deeper.
		{name: "indentation/8-space tabs, nested new lines", content: "func f() {\n\tif x {\n\t\tfoo(a,\n\t\t    b)\n\t}\n}\n",
			blocks: []Block{blk("                foo(a,\n                    b)\n",
				"                foo(a,\n                    b)\n                if y {\n                        z()\n                }\n")},
			want:    "func f() {\n\tif x {\n\t\tfoo(a,\n\t\t    b)\n\t\tif y {\n\t\t\tz()\n\t\t}\n\t}\n}\n",
			matches: []Match{m(0, TierIndentation, 3, 4)}},
		// REPLACE indented with tabs, SEARCH with spaces (or the reverse):
		// never a mixed indentation that neither the file nor the edit has.
		{name: "indentation/tab in REPLACE, 2 spaces in SEARCH", content: "func f() int {\n\treturn 1\n}\n",
			blocks: []Block{blk("  return 1   \n", "\treturn 3\n")}, want: "func f() int {\n\treturn 3\n}\n",
			matches: []Match{m(0, TierIndentation, 2, 2)}},
		{name: "indentation/2 spaces in REPLACE, tab in SEARCH", content: "func f() {\n\t\treturn 1\n}\n",
			blocks: []Block{blk("\treturn 1\n", "  return 3\n")}, want: "func f() {\n\t\treturn 3\n}\n",
			matches: []Match{m(0, TierIndentation, 2, 2)}},
		{name: "indentation/tab in REPLACE, 3 spaces in SEARCH: refused", content: "func f() int {\n\treturn 1\n}\n",
			blocks: []Block{blk("   return 1\n", "\treturn 3\n")}, err: ErrNoMatch,
			check: func(t *testing.T, err error) {
				var e *NoMatchError
				if !errors.As(err, &e) || !strings.Contains(e.Detail, `"\treturn 3" is indented with tabs while SEARCH is indented with spaces`) {
					t.Errorf("error %v", err)
				}
			}},

		// 4. blank lines
		{name: "blank-lines/around SEARCH and REPLACE", content: "a\nb\nc\n", blocks: []Block{blk("\nb\n\n", "\nB\n\n")},
			want: "a\nB\nc\n", matches: []Match{m(0, TierBlankLines, 2, 2)}},
		{name: "blank-lines/inside SEARCH only", content: "x\na\nb\nc\ny\n", blocks: []Block{blk("a\n\nb\nc\n", "a\nb\nC\n")},
			want: "x\na\nb\nC\ny\n", matches: []Match{m(0, TierBlankLines, 2, 4)}},
		{name: "blank-lines/inside both, mirrored", content: "x\na\nb\nc\ny\n", blocks: []Block{blk("a\n\nb\nc\n", "a\n\nb\nC\n")},
			want: "x\na\nb\nC\ny\n", matches: []Match{m(0, TierBlankLines, 2, 4)}},
		{name: "blank-lines/one extra in a run", content: "a\n\nb\nc\n", blocks: []Block{blk("a\n\n\nb\n", "a\n\n\nb\nb2\n")},
			want: "a\n\nb\nb2\nc\n", matches: []Match{m(0, TierBlankLines, 1, 3)}},
		{name: "blank-lines/with lost indentation", content: goFunc, blocks: []Block{blk("\ny()\n", "\nz()\n")},
			want: "func f() {\n\tif x {\n\t\tz()\n\t}\n}\n", matches: []Match{m(0, TierBlankLines, 3, 3)}},

		// 5. elision
		{name: "elision/middle kept", content: "def f():\n    x = 1\n    y = 2\n    z = 3\n    return x\n",
			blocks:  []Block{blk("def f():\n    ...\n    return x\n", "def g():\n    ...\n    return x + 1\n")},
			want:    "def g():\n    x = 1\n    y = 2\n    z = 3\n    return x + 1\n",
			matches: []Match{m(0, TierElision, 1, 5)}},
		{name: "elision/comment marker", content: "func f() {\n\ta()\n\tb()\n\treturn\n}\n",
			blocks:  []Block{blk("func f() {\n\t// ... existing code ...\n\treturn\n", "func f() {\n\t// ... existing code ...\n\tc()\n\treturn\n")},
			want:    "func f() {\n\ta()\n\tb()\n\tc()\n\treturn\n}\n",
			matches: []Match{m(0, TierElision, 1, 4)}},
		{name: "elision/two markers, empty run", content: "a\nb\nc\nd\ne\n",
			blocks:  []Block{blk("a\n...\nb\n...\ne\n", "A\n...\nB\n...\nE\n")},
			want:    "A\nB\nc\nd\nE\n",
			matches: []Match{m(0, TierElision, 1, 5)}},
		{name: "elision/trailing marker", content: "a\nb\nc\n", blocks: []Block{blk("a\n...\n", "A\n...\n")},
			want: "A\nb\nc\n", matches: []Match{m(0, TierElision, 1, 1)}},

		// 6. fuzzy
		{name: "fuzzy/one-character slip on a changed line",
			content: "func main() {\n\tfmt.Println(\"hello, world\")\n\tos.Exit(0)\n}\n",
			blocks:  []Block{blk("\tfmt.Printn(\"hello, world\")\n", "\tfmt.Println(\"goodbye, world\")\n")},
			want:    "func main() {\n\tfmt.Println(\"goodbye, world\")\n\tos.Exit(0)\n}\n",
			matches: []Match{m(0, TierFuzzy, 2, 2)}},
		{name: "fuzzy/slip on a context line keeps the file's line",
			content: "func main() {\n\tfmt.Println(\"hello, world\")\n\tos.Exit(0)\n}\n",
			blocks:  []Block{blk("\tfmt.Printn(\"hello, world\")\n\tos.Exit(0)\n", "\tfmt.Printn(\"hello, world\")\n\tos.Exit(1)\n")},
			want:    "func main() {\n\tfmt.Println(\"hello, world\")\n\tos.Exit(1)\n}\n",
			matches: []Match{m(0, TierFuzzy, 2, 3)}},
		{name: "fuzzy/slip and lost indentation",
			content: "func main() {\n\tfmt.Println(\"hello, world\")\n\tos.Exit(0)\n}\n",
			blocks:  []Block{blk("fmt.Println(\"hello, wrld\")\nos.Exit(0)\n", "fmt.Println(\"hello, world\")\nif err != nil {\n\tos.Exit(0)\n}\n")},
			want:    "func main() {\n\tfmt.Println(\"hello, world\")\n\tif err != nil {\n\t\tos.Exit(0)\n\t}\n}\n",
			matches: []Match{m(0, TierFuzzy, 2, 3)}},
	})
}

func TestApplyAmbiguous(t *testing.T) {
	runApply(t, []applyCase{
		{name: "exact", content: "x\ny\nx\ny\n", blocks: []Block{blk("x\n", "z\n")},
			err: ErrAmbiguous, check: ambiguousAt(TierExact, 1, 3)},
		{name: "exact overlapping", content: "a\na\na\n", blocks: []Block{blk("a\na\n", "b\n")},
			err: ErrAmbiguous, check: ambiguousAt(TierExact, 1, 2)},
		{name: "trailing-whitespace", content: "x \ny\nx\t\ny\n", blocks: []Block{blk("x\ny\n", "z\n")},
			err: ErrAmbiguous, check: ambiguousAt(TierTrailingWhitespace, 1, 3)},
		{name: "indentation", content: "\tx\n\t\ty\n\n    x\n        y\n", blocks: []Block{blk("x\n  y\n", "z\n")},
			err: ErrAmbiguous, check: ambiguousAt(TierIndentation, 1, 4)},
		{name: "blank-lines", content: "a\nb\nc\na\nb\n", blocks: []Block{blk("a\n\nb\n", "z\n")},
			err: ErrAmbiguous, check: ambiguousAt(TierBlankLines, 1, 4)},
		{name: "elision", content: "start\nx\nend\nmid\nend\n", blocks: []Block{blk("start\n...\nend\n", "start\n...\nEND\n")},
			err: ErrAmbiguous, check: ambiguousAt(TierElision, 3, 5)},
		{name: "fuzzy", content: "\tresult := compute(alpha, beta)\n\tother()\n\tresult := compute(alpha, betb)\n",
			blocks: []Block{blk("\tresult := compute(alpha, betc)\n", "x\n")},
			err:    ErrAmbiguous, check: ambiguousAt(TierFuzzy, 1, 3)},
		{name: "indentation here or extra blank lines there", content: "x\n\n\t\talpha()\n\n\t\t\talpha()\n\t\t\tfor {\n",
			blocks: []Block{blk("\n\t\t\talpha()\n\n", "\n\t\t\tbeta()\n\n")},
			err:    ErrAmbiguous, check: ambiguousAt(TierIndentation, 2, 4)},
		{name: "not first-match-wins across a later tier", content: "x\n  y\nx \ny\n", blocks: []Block{blk("x\ny\n", "z\n")},
			// exact: none; trailing-whitespace: line 3 only (line 1-2 needs indentation)
			want: "x\n  y\nz\n", matches: []Match{m(0, TierTrailingWhitespace, 3, 4)}},
	})
}

func TestIsElision(t *testing.T) {
	for _, l := range []string{"...", "    ...", "# ...", "// ...", "\t// ... existing code ...", "-- ...", "/* ... */", "<!-- ... -->", "…", "# … rest unchanged …"} {
		if !isElision(l) {
			t.Errorf("%q is an elision", l)
		}
	}
	for _, l := range []string{"", "x ...", "...x", "foo(...)", "// see ... below", "....", "# TODO"} {
		if isElision(l) {
			t.Errorf("%q is not an elision", l)
		}
	}
}
