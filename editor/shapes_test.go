package editor

import (
	"reflect"
	"strings"
	"testing"
)

// pyConfig is a file the reply-shape tests edit.
const pyConfig = "import os\n\n\ndef parse_config(path):\n    with open(path) as f:\n        return f.read()\n\n\nGREETING = \"hello\"\nNAME = 'lunad'\n"

func TestApplyNoOpAmongBlocks(t *testing.T) {
	runApply(t, []applyCase{
		{name: "no-op between two edits is skipped and reported", content: "a\nb\nc\n",
			blocks:  []Block{blk("a\n", "A\n"), blk("b\n", "b\n"), blk("c\n", "C\n")},
			want:    "A\nb\nC\n",
			matches: []Match{m(0, TierExact, 1, 1), m(1, TierNoOp, 2, 2), m(2, TierExact, 3, 3)}},
		{name: "no-op whose text is not in the file", content: "a\nb\n",
			blocks:  []Block{blk("zzz\n", "zzz\n"), blk("b\n", "B\n")},
			want:    "a\nB\n",
			matches: []Match{m(0, TierNoOp, 0, 0), m(1, TierExact, 2, 2)}},
		{name: "every block a no-op is refused", content: "a\nb\n",
			blocks: []Block{blk("a\n", "a\n"), blk("b\n", "b\n")}, err: ErrAlreadyApplied},
		{name: "an empty SEARCH is not a no-op", content: "a\n",
			blocks: []Block{blk("\n", "\n"), blk("a\n", "A\n")}, err: ErrEmptySearch},
	})
}

func TestApplyTypographicQuotes(t *testing.T) {
	runApply(t, []applyCase{
		{name: "curly double quotes in SEARCH and REPLACE", content: pyConfig,
			blocks:  []Block{blk("GREETING = \u201chello\u201d\n", "GREETING = \u201chello, world\u201d\n")},
			want:    "import os\n\n\ndef parse_config(path):\n    with open(path) as f:\n        return f.read()\n\n\nGREETING = \"hello, world\"\nNAME = 'lunad'\n",
			matches: []Match{m(0, TierQuotes, 9, 9)}},
		{name: "curly single quotes with lost indentation", content: "def f():\n    return 'x'\n",
			blocks:  []Block{blk("return \u2018x\u2019\n", "return \u2018y\u2019\n")},
			want:    "def f():\n    return 'y'\n",
			matches: []Match{m(0, TierQuotes, 2, 2)}},
		{name: "curly quotes that fit two places are refused", content: "s = \"a\"\nt = 1\ns = \"a\"\n",
			blocks: []Block{blk("s = \u201ca\u201d\n", "s = \"b\"\n")}, err: ErrAmbiguous, check: ambiguousAt(TierQuotes, 1, 3)},
		{name: "REPLACE's curly quotes are kept in a file that has some", content: "say \u201chi\u201d\nname = 'x'\n",
			blocks:  []Block{blk("name = \u2018x\u2019\n", "name = \u2018y\u2019 \u201cnew\u201d\n")},
			want:    "say \u201chi\u201d\nname = \u2018y\u2019 \u201cnew\u201d\n",
			matches: []Match{m(0, TierQuotes, 2, 2)}},
		{name: "curly quotes in the file are matched exactly", content: "say \u201chi\u201d\n",
			blocks: []Block{blk("say \u201chi\u201d\n", "say \u201cbye\u201d\n")}, want: "say \u201cbye\u201d\n", matches: []Match{m(0, TierExact, 1, 1)}},
	})
}

func TestApplyUnwrapped(t *testing.T) {
	runApply(t, []applyCase{
		{name: "file name and fence inside SEARCH and REPLACE", content: pyConfig,
			blocks: []Block{{Path: "app/config.py",
				Search:  "config.py\n```python\nNAME = 'lunad'\n```\n",
				Replace: "config.py\n```python\nNAME = 'lunad2'\n```\n"}},
			want:    "import os\n\n\ndef parse_config(path):\n    with open(path) as f:\n        return f.read()\n\n\nGREETING = \"hello\"\nNAME = 'lunad2'\n",
			matches: []Match{m(0, TierUnwrapped, 10, 10)}},
		{name: "fence lines only, no path", content: pyConfig,
			blocks:  []Block{blk("```python\nGREETING = \"hello\"\n```\n", "```python\nGREETING = \"hi\"\n```\n")},
			want:    "import os\n\n\ndef parse_config(path):\n    with open(path) as f:\n        return f.read()\n\n\nGREETING = \"hi\"\nNAME = 'lunad'\n",
			matches: []Match{m(0, TierUnwrapped, 9, 9)}},
		{name: "source fence around SEARCH only", content: pyConfig,
			blocks:  []Block{blk("<source>python\nimport os\n</source>\n", "import os\nimport sys\n")},
			want:    "import os\nimport sys\n\n\ndef parse_config(path):\n    with open(path) as f:\n        return f.read()\n\n\nGREETING = \"hello\"\nNAME = 'lunad'\n",
			matches: []Match{m(0, TierUnwrapped, 1, 1)}},
		{name: "a fence that is in the file is matched as it is", content: "text\n```\ncode\n```\n",
			blocks: []Block{blk("```\ncode\n```\n", "```\nmore code\n```\n")}, want: "text\n```\nmore code\n```\n",
			matches: []Match{m(0, TierExact, 2, 4)}},
		{name: "a first line naming another file is content, not wrapping", content: "x\nreturn\ny\n",
			blocks: []Block{{Path: "a.py", Search: "b.py\n```\nreturn\n```\n", Replace: "b.py\n```\nreturn 1\n```\n"}}, err: ErrNoMatch},
		{name: "a bare word before a fence is content", content: "x\nreturn\ny\n",
			blocks: []Block{blk("value\n```\nreturn\n", "value\n```\nreturn 1\n")}, err: ErrNoMatch},
		{name: "unwrapped text found twice is refused as ambiguous", content: "a\nb\na\n",
			blocks: []Block{blk("```\na\n```\n", "```\nA\n```\n")}, err: ErrAmbiguous, check: ambiguousAt(TierExact, 1, 3)},
	})
}

func TestNoMatchHints(t *testing.T) {
	lockfile := "import os\n\n\ndef parse_lockfile(path):\n    return open(path).read()\n\n\ndef parse_config(path, defaults=None):\n    with open(path) as f:\n        return f.read()\n"
	hints := func(want ...Hint) func(*testing.T, error) {
		return func(t *testing.T, err error) {
			e := err.(*NoMatchError)
			if !reflect.DeepEqual(e.Hints, want) {
				t.Errorf("hints %+v, want %+v", e.Hints, want)
			}
			if len(want) == 0 && !strings.HasSuffix(err.Error(), "; re-read the file and copy the lines to change exactly") {
				t.Errorf("message %q", err)
			}
		}
	}
	runApply(t, []applyCase{
		{name: "the line with the same name beats a similar other name", content: lockfile,
			blocks: []Block{blk("def parse_config(path):\n", "def parse_config(path, strict=False):\n")}, err: ErrNoMatch,
			check: hints(Hint{Line: 8, Text: "def parse_config(path, defaults=None):", Score: 0.605})},
		{name: "same name on the corresponding lines of a window", content: lockfile,
			blocks: []Block{blk("def parse_config(path):\n    with open(path) as fh:\n", "x\n")}, err: ErrNoMatch,
			check: hints(Hint{Line: 8, Text: "def parse_config(path, defaults=None):", Score: 0.605}, Hint{Line: 9, Text: "    with open(path) as f:", Score: 0.955})},
		{name: "unrelated text gets no hint", content: lockfile,
			blocks: []Block{blk("SELECT name FROM users WHERE id = 1;\n", "x\n")}, err: ErrNoMatch, check: hints()},
		{name: "a slip in the only word still gets a hint", content: "total_count = compute_total(items)\n",
			blocks: []Block{blk("total_cuont = compute_total(items)\n", "x\n")}, err: ErrNoMatch,
			check: hints(Hint{Line: 1, Text: "total_count = compute_total(items)", Score: 0.941})},
	})
}

func TestEachWord(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"def parse_config(path, defaults=None):", []string{"def", "parse_config", "path", "defaults", "None"}},
		{"x = 10 + 2_000", []string{"x"}},
		{"_private v2 __init__", []string{"_private", "v2", "__init__"}},
		{"größe := 3; 日本", []string{"größe", "日本"}},
		{"", nil},
	} {
		t.Run(c.in, func(t *testing.T) {
			var got []string
			eachWord(c.in, func(w string) { got = append(got, w) })
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
