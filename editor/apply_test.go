package editor

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// applyCase is one ApplyBlocks call: on success want and matches are the
// exact result; on failure err is the sentinel and check (if any) looks at
// the typed error.
type applyCase struct {
	name    string
	content string
	blocks  []Block
	want    string
	matches []Match
	err     error
	check   func(t *testing.T, err error)
}

func blk(search, replace string) Block { return Block{Search: search, Replace: replace} }

func m(block int, tier Tier, start, end int) Match {
	return Match{Block: block, Tier: tier, StartLine: start, EndLine: end}
}

func runApply(t *testing.T, cases []applyCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			orig := c.content
			r, err := ApplyBlocks([]byte(c.content), c.blocks)
			if c.content != orig {
				t.Fatal("input modified")
			}
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("err = %v, want %v", err, c.err)
				}
				if r.Content != nil || r.Matches != nil {
					t.Fatalf("result %+v returned with an error", r)
				}
				if c.check != nil {
					c.check(t, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if string(r.Content) != c.want {
				t.Errorf("content\n got %q\nwant %q", r.Content, c.want)
			}
			if !reflect.DeepEqual(r.Matches, c.matches) {
				t.Errorf("matches\n got %+v\nwant %+v", r.Matches, c.matches)
			}
		})
	}
}

// ambiguousAt checks an *AmbiguousError's tier and candidate lines.
func ambiguousAt(tier Tier, lines ...int) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		var a *AmbiguousError
		if !errors.As(err, &a) {
			t.Fatalf("%T is not *AmbiguousError", err)
		}
		if a.Tier != tier || !reflect.DeepEqual(a.Lines, lines) {
			t.Errorf("ambiguous at %s %v, want %s %v", a.Tier, a.Lines, tier, lines)
		}
		if !strings.HasPrefix(err.Error(), "block 1: ") || !strings.Contains(err.Error(), "add surrounding lines") {
			t.Errorf("message %q", err)
		}
	}
}

func TestApplyNoMatch(t *testing.T) {
	content := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello world\")\n\treturn\n}\n"
	runApply(t, []applyCase{
		{name: "hints", content: content, blocks: []Block{blk("func main() {\n    fmt.Println(\"hello wrld\")\n    exit()\n", "x\n")},
			err: ErrNoMatch, check: func(t *testing.T, err error) {
				var e *NoMatchError
				if !errors.As(err, &e) {
					t.Fatalf("%T", err)
				}
				want := []Hint{
					{Line: 5, Text: "func main() {", Score: 1},
					{Line: 6, Text: "\tfmt.Println(\"hello world\")", Score: 0.962},
					{Line: 7, Text: "\treturn", Score: 0},
				}
				if e.Block != 0 || e.Kind != "block" || e.Search != "func main() {" || !reflect.DeepEqual(e.Hints, want) {
					t.Errorf("got %+v", e)
				}
				for _, s := range []string{"block 1: ", "SEARCH must match the file exactly", "the closest lines are 5-7", "     6 | \tfmt.Println(\"hello world\")", "copy them exactly"} {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("message lacks %q:\n%s", s, err)
					}
				}
			}},
		{name: "block from another file", content: content,
			blocks: []Block{blk("def parse(argv):\n    opts = {}\n    for a in argv:\n        opts[a] = True\n", "x\n")}, err: ErrNoMatch},
		{name: "short search is never fuzzy", content: "x = 10\n", blocks: []Block{blk("x = 11\n", "x = 12\n")}, err: ErrNoMatch},
		{name: "partial line", content: "foo bar baz\n", blocks: []Block{blk("bar\n", "qux\n")}, err: ErrNoMatch},
		{name: "empty content", content: "", blocks: []Block{blk("a\n", "b\n")}, err: ErrNoMatch,
			check: func(t *testing.T, err error) {
				if e := err.(*NoMatchError); e.Hints != nil {
					t.Errorf("hints %v for empty content", e.Hints)
				}
			}},
		{name: "elision markers do not correspond", content: "a\nb\nc\n", blocks: []Block{blk("a\n...\nc\n", "A\nc\n")},
			err: ErrNoMatch, check: func(t *testing.T, err error) {
				if e := err.(*NoMatchError); !strings.Contains(e.Detail, "REPLACE must have a `...` line") {
					t.Errorf("detail %q", e.Detail)
				}
			}},
		{name: "elision parts out of order", content: "a\nb\nc\n", blocks: []Block{blk("c\n...\na\n", "C\n...\nA\n")},
			err: ErrNoMatch, check: func(t *testing.T, err error) {
				if e := err.(*NoMatchError); !strings.Contains(e.Detail, "not in that order") {
					t.Errorf("detail %q", e.Detail)
				}
			}},
		{name: "inconsistent relative indentation", content: "if a:\n    b()\n    c()\n", blocks: []Block{blk("if a:\nb()\n    c()\n", "x\n")},
			err: ErrNoMatch},
		{name: "fuzzy: close but structured differently", content: "if engine_ready:\n    start_engine()\n    report_status()\n",
			blocks: []Block{blk("if engine_ready:\n    start_engine()\nreport_status()\n", "if engine_ready:\n    start_engine()\nreport_status(verbose=True)\n")},
			err:    ErrNoMatch, check: func(t *testing.T, err error) {
				if e := err.(*NoMatchError); e.Detail != "lines 1-3 are close but indented differently relative to each other" {
					t.Errorf("detail %q", e.Detail)
				}
			}},
		{name: "fuzzy search gives up on too much work", content: strings.Repeat(strings.Repeat("x", 1000)+"\n", 300),
			blocks: []Block{blk(strings.Repeat(strings.Repeat("x", 500)+"y"+strings.Repeat("x", 499)+"\n", 10), "z\n")},
			err:    ErrNoMatch, check: func(t *testing.T, err error) {
				if e := err.(*NoMatchError); e.Detail != "too many similar places for an approximate search" {
					t.Errorf("detail %q", e.Detail)
				}
			}},
		{name: "SEARCH longer than the content", content: "alpha\nbeta\n", blocks: []Block{blk("alpha\nbeta\ngamma\n", "x\n")},
			err: ErrNoMatch, check: func(t *testing.T, err error) {
				if e := err.(*NoMatchError); !reflect.DeepEqual(e.Hints, []Hint{{1, "alpha", 1}, {2, "beta", 1}}) {
					t.Errorf("hints %+v", e.Hints)
				}
			}},
	})
}

func TestApplyAlreadyApplied(t *testing.T) {
	already := func(line int, noop bool, around ...bool) func(*testing.T, error) {
		return func(t *testing.T, err error) {
			var e *AlreadyAppliedError
			if !errors.As(err, &e) {
				t.Fatalf("%T", err)
			}
			if e.Block != 0 || e.Line != line || e.NoOp != noop || e.Around != (len(around) > 0) {
				t.Errorf("got %+v, want line %d noop %v", e, line, noop)
			}
		}
	}
	runApply(t, []applyCase{
		{name: "replace present, search gone", content: "a\nB\nc\n", blocks: []Block{blk("b\n", "B\n")},
			err: ErrAlreadyApplied, check: already(2, false)},
		{name: "replace present with other indentation", content: "if a:\n    B\n", blocks: []Block{blk("b\n", "B\n")},
			err: ErrAlreadyApplied, check: already(2, false)},
		{name: "insertion retried", content: "import os\nimport sys\n", blocks: []Block{blk("import os\n", "import os\nimport sys\n")},
			err: ErrAlreadyApplied, check: already(1, false, true)},
		{name: "replace present twice is not applied", content: "a\nB\nB\n", blocks: []Block{blk("b\n", "B\n")}, err: ErrNoMatch},
		{name: "search equals replace", content: "a\nb\n", blocks: []Block{blk("b\n", "b\n")},
			err: ErrAlreadyApplied, check: already(2, true)},
		{name: "search equals replace, not found", content: "a\n", blocks: []Block{blk("b\n", "b\n")},
			err: ErrAlreadyApplied, check: already(0, true)},
	})
}

func TestApplyPreservation(t *testing.T) {
	runApply(t, []applyCase{
		{name: "CRLF file, LF edit", content: "a\r\nb\r\nc\r\n", blocks: []Block{blk("b\n", "B\nB2\n")},
			want: "a\r\nB\r\nB2\r\nc\r\n", matches: []Match{m(0, TierExact, 2, 2)}},
		{name: "CRLF file, CRLF edit", content: "a\r\nb\r\nc\r\n", blocks: []Block{blk("b\r\n", "B\r\n")},
			want: "a\r\nB\r\nc\r\n", matches: []Match{m(0, TierExact, 2, 2)}},
		{name: "CRLF file, trailing whitespace tier", content: "a \r\nb\r\n", blocks: []Block{blk("a\nb\n", "a\nc\n")},
			want: "a \r\nc\r\n", matches: []Match{m(0, TierTrailingWhitespace, 1, 2)}},
		{name: "mixed endings: other lines untouched", content: "a\r\nb\nc\r\nd\n", blocks: []Block{blk("c\n", "C\n")},
			want: "a\r\nb\nC\nd\n", matches: []Match{m(0, TierExact, 3, 3)}},
		{name: "no final newline: edit last line", content: "a\nb", blocks: []Block{blk("b", "B\nC")},
			want: "a\nB\nC", matches: []Match{m(0, TierExact, 2, 2)}},
		{name: "no final newline: REPLACE with newline", content: "a\nb", blocks: []Block{blk("b\n", "B\n")},
			want: "a\nB", matches: []Match{m(0, TierExact, 2, 2)}},
		{name: "no final newline: delete last line", content: "a\nb", blocks: []Block{blk("b\n", "")},
			want: "a", matches: []Match{m(0, TierExact, 2, 2)}},
		{name: "no final newline: edit inside", content: "a\nb\nc", blocks: []Block{blk("a\n", "A\n")},
			want: "A\nb\nc", matches: []Match{m(0, TierExact, 1, 1)}},
		{name: "no final newline, CRLF", content: "a\r\nb", blocks: []Block{blk("b\n", "B\nC\n")},
			want: "a\r\nB\r\nC", matches: []Match{m(0, TierExact, 2, 2)}},
		{name: "final newline kept: REPLACE without one", content: "a\nb\n", blocks: []Block{blk("b", "B")},
			want: "a\nB\n", matches: []Match{m(0, TierExact, 2, 2)}},
		{name: "delete everything", content: "a\nb\n", blocks: []Block{blk("a\nb\n", "")},
			want: "", matches: []Match{m(0, TierExact, 1, 2)}},
		{name: "unicode untouched", content: "é\n日本\n😀\n", blocks: []Block{blk("日本\n", "中文\n")},
			want: "é\n中文\n😀\n", matches: []Match{m(0, TierExact, 2, 2)}},
	})
}

func TestApplyMultiBlock(t *testing.T) {
	runApply(t, []applyCase{
		{name: "in order, each on the previous result", content: "a\nb\nc\n",
			blocks:  []Block{blk("a\n", "A\nA2\n"), blk("A2\nb\n", "B\n"), blk("c\n", "C\n")},
			want:    "A\nB\nC\n",
			matches: []Match{m(0, TierExact, 1, 1), m(1, TierExact, 2, 3), m(2, TierExact, 3, 3)}},
		{name: "second block fails: nothing applied", content: "a\nb\nc\n",
			blocks: []Block{blk("a\n", "A\n"), blk("zzz\n", "Z\n")}, err: ErrNoMatch,
			check: func(t *testing.T, err error) {
				if e := err.(*NoMatchError); e.Block != 1 || !strings.HasPrefix(err.Error(), "block 2: ") {
					t.Errorf("block %d, message %q", e.Block, err)
				}
			}},
		{name: "second block ambiguous after the first", content: "a\nb\n",
			blocks: []Block{blk("a\n", "b\n"), blk("b\n", "c\n")}, err: ErrAmbiguous,
			check: func(t *testing.T, err error) {
				if e := err.(*AmbiguousError); e.Block != 1 || !reflect.DeepEqual(e.Lines, []int{1, 2}) {
					t.Errorf("got %+v", e)
				}
			}},
		{name: "create then edit", content: "", blocks: []Block{blk("", "x\ny\n"), blk("y\n", "z\n")},
			want: "x\nz\n", matches: []Match{m(0, TierExact, 1, 0), m(1, TierExact, 2, 2)}},
	})
}

func TestApplyInvalid(t *testing.T) {
	textErr := func(what string, offset, line int) func(*testing.T, error) {
		return func(t *testing.T, err error) {
			var e *TextError
			if !errors.As(err, &e) || e.What != what || e.Offset != offset || e.Line != line {
				t.Errorf("got %#v (%v), want %s at %d line %d", err, err, what, offset, line)
			}
		}
	}
	runApply(t, []applyCase{
		{name: "empty SEARCH on content", content: "a\n", blocks: []Block{blk("", "b\n")}, err: ErrEmptySearch,
			check: func(t *testing.T, err error) {
				if !strings.HasPrefix(err.Error(), "block 1: empty SEARCH") || !strings.Contains(err.Error(), "rewrite") {
					t.Errorf("message %q", err)
				}
			}},
		{name: "blank SEARCH on content", content: "a\n\n", blocks: []Block{blk("\n  \n", "b\n")}, err: ErrEmptySearch},
		{name: "binary content", content: "a\nb\x00c\n", blocks: []Block{blk("a\n", "b\n")}, err: ErrBinary, check: textErr("content", 3, 2)},
		{name: "invalid UTF-8 content", content: "a\nb\xffc\n", blocks: []Block{blk("a\n", "b\n")}, err: ErrInvalidUTF8, check: textErr("content", 3, 2)},
		{name: "invalid SEARCH", content: "a\n", blocks: []Block{blk("a\n", "b\n"), blk("\xc3(\n", "b\n")}, err: ErrInvalidUTF8, check: textErr("block 2: SEARCH", 0, 1)},
		{name: "binary REPLACE", content: "a\n", blocks: []Block{blk("a\n", "x\n\x00")}, err: ErrBinary, check: textErr("block 1: REPLACE", 2, 2)},
		{name: "no blocks", content: "a\n", blocks: nil, err: ErrBadBlocks},
	})
}
