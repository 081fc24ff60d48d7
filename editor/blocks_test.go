package editor

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseBlocks(t *testing.T) {
	cases := []struct {
		name string
		text string
		want []Block
	}{
		{"path line and fence", "Here is the change:\n\nmain.go\n```go\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n```\n",
			[]Block{{Path: "main.go", Search: "old\n", Replace: "new\n"}}},
		{"path inside the fence", "```python\napp/x.py\n<<<<<<< SEARCH\na\nb\n=======\nc\n>>>>>>> REPLACE\n```",
			[]Block{{Path: "app/x.py", Search: "a\nb\n", Replace: "c\n"}}},
		{"no fence", "x.txt\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n",
			[]Block{{Path: "x.txt", Search: "a\n", Replace: "b\n"}}},
		{"no path", "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n",
			[]Block{{Search: "a\n", Replace: "b\n"}}},
		{"prose is not a path", "Change the greeting:\n```\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n",
			[]Block{{Search: "a\n", Replace: "b\n"}}},
		{"markdown around the path", "### **`src/lib.rs`**:\n```rust\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n",
			[]Block{{Path: "src/lib.rs", Search: "a\n", Replace: "b\n"}}},
		{"several blocks, path carried over", "a.go\n```go\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n```\n\nThen:\n\n```go\n<<<<<<< SEARCH\n3\n=======\n4\n>>>>>>> REPLACE\n```\n\nb.go\n```go\n<<<<<<< SEARCH\n5\n=======\n6\n>>>>>>> REPLACE\n```\n",
			[]Block{{Path: "a.go", Search: "1\n", Replace: "2\n"}, {Path: "a.go", Search: "3\n", Replace: "4\n"}, {Path: "b.go", Search: "5\n", Replace: "6\n"}}},
		{"blocks back to back", "<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n<<<<<<< SEARCH\n3\n=======\n4\n>>>>>>> REPLACE",
			[]Block{{Search: "1\n", Replace: "2\n"}, {Search: "3\n", Replace: "4\n"}}},
		{"5 and 9 marker characters, trailing spaces", "<<<<< SEARCH  \na\n=========\nb\n>>>>>>>>> REPLACE \n",
			[]Block{{Search: "a\n", Replace: "b\n"}}},
		{"lower-case keywords", "<<<<<<< search\na\n=======\nb\n>>>>>>> replace\n",
			[]Block{{Search: "a\n", Replace: "b\n"}}},
		{"empty SEARCH creates", "new.txt\n<<<<<<< SEARCH\n=======\nhello\n>>>>>>> REPLACE\n",
			[]Block{{Path: "new.txt", Search: "", Replace: "hello\n"}}},
		{"empty REPLACE deletes", "<<<<<<< SEARCH\na\n=======\n>>>>>>> REPLACE\n",
			[]Block{{Search: "a\n", Replace: ""}}},
		{"CRLF text", "f.txt\r\n<<<<<<< SEARCH\r\na\r\n=======\r\nb\r\n>>>>>>> REPLACE\r\n",
			[]Block{{Path: "f.txt", Search: "a\n", Replace: "b\n"}}},
		{"blank lines and indentation kept", "<<<<<<< SEARCH\n\n\tx\n\n=======\n  y\n\n>>>>>>> REPLACE\n",
			[]Block{{Search: "\n\tx\n\n", Replace: "  y\n\n"}}},
		{"4 or 10 marker characters are content", "<<<<<<< SEARCH\n<<<< SEARCH\n==========\n=======\n>>>>>>>>>> REPLACE\n>>>>>>> REPLACE\n",
			[]Block{{Search: "<<<< SEARCH\n==========\n", Replace: ">>>>>>>>>> REPLACE\n"}}},
		{"source fence with a language after the path", "calc.py\n<source>python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n</source>\n",
			[]Block{{Path: "calc.py", Search: "a\n", Replace: "b\n"}}},
		{"source fence with an attribute, path inside", "<source lang=\"go\">\nsrv/main.go\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n</source>\n",
			[]Block{{Path: "srv/main.go", Search: "a\n", Replace: "b\n"}}},
		{"second block's source fence is not a path", "calc.py\n<source>python\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n</source>\n\n<source>python\n<<<<<<< SEARCH\n3\n=======\n4\n>>>>>>> REPLACE\n</source>\n",
			[]Block{{Path: "calc.py", Search: "1\n", Replace: "2\n"}, {Path: "calc.py", Search: "3\n", Replace: "4\n"}}},
		{"code, pre and codeblock fences", "a.txt\n<code>\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n</code>\n<pre>\n<<<<<<< SEARCH\n3\n=======\n4\n>>>>>>> REPLACE\n</pre>\n<codeblock>\n<<<<<<< SEARCH\n5\n=======\n6\n>>>>>>> REPLACE\n</codeblock>\n",
			[]Block{{Path: "a.txt", Search: "1\n", Replace: "2\n"}, {Path: "a.txt", Search: "3\n", Replace: "4\n"}, {Path: "a.txt", Search: "5\n", Replace: "6\n"}}},
		{"doubled fence", "x.go\n````\n```go\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n````\n",
			[]Block{{Path: "x.go", Search: "a\n", Replace: "b\n"}}},
		{"tilde fence with a language", "x.go\n~~~go\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n~~~\n",
			[]Block{{Path: "x.go", Search: "a\n", Replace: "b\n"}}},
		{"dots between blocks are not a path", "x.go\n```go\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n```\n...\n```go\n<<<<<<< SEARCH\n3\n=======\n4\n>>>>>>> REPLACE\n```\n\u2026\n<<<<<<< SEARCH\n5\n=======\n6\n>>>>>>> REPLACE\n",
			[]Block{{Path: "x.go", Search: "1\n", Replace: "2\n"}, {Path: "x.go", Search: "3\n", Replace: "4\n"}, {Path: "x.go", Search: "5\n", Replace: "6\n"}}},
		{"Cline markers", "------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n------- SEARCH\nc\n=======\nd\n+++++++ REPLACE\n",
			[]Block{{Search: "a\n", Replace: "b\n"}, {Search: "c\n", Replace: "d\n"}}},
		{"Cline's replace_in_file call", "<replace_in_file>\n<path>src/calc.py</path>\n<diff>\n------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n</diff>\n</replace_in_file>\n",
			[]Block{{Path: "src/calc.py", Search: "a\n", Replace: "b\n"}}},
		{"Codex apply_patch, two hunks", "Here it is:\n*** Begin Patch\n*** Update File: src/a.py\n@@ def f():\n def f():\n-    return 1\n+    return 2\n@@\n-x = 1\n+x = 2\n\n*** End of File\n*** End Patch\n",
			[]Block{{Path: "src/a.py", Search: "def f():\n    return 1\n", Replace: "def f():\n    return 2\n"}, {Path: "src/a.py", Search: "x = 1\n\n", Replace: "x = 2\n\n"}}},
		{"Codex apply_patch, two files", "*** Begin Patch\n*** Update File: a.py\n-a\n+b\n*** Update File: b.py\n@@\n-c\n+d\n*** End Patch\n",
			[]Block{{Path: "a.py", Search: "a\n", Replace: "b\n"}, {Path: "b.py", Search: "c\n", Replace: "d\n"}}},
		{"a tag that is not a fence is a path line with spaces", "<b>note</b> here\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n",
			[]Block{{Search: "a\n", Replace: "b\n"}}},
		{"stray divider outside blocks is prose", "Title\n=======\n\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n",
			[]Block{{Search: "a\n", Replace: "b\n"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseBlocks(c.text)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %#v\nwant %#v", got, c.want)
			}
		})
	}
}

func TestParseBlocksMalformed(t *testing.T) {
	cases := []struct {
		name        string
		text        string
		block, line int
		msg         string // the full error text
	}{
		{"no blocks", "just some prose\n", -1, 1,
			"line 1: malformed SEARCH/REPLACE blocks: no SEARCH/REPLACE blocks; write each edit as <<<<<<< SEARCH, the exact old lines, =======, the new lines, >>>>>>> REPLACE, each marker on its own line"},
		{"no divider", "<<<<<<< SEARCH\na\nb\n", 0, 1,
			"block 1: line 1: malformed SEARCH/REPLACE blocks: the block has no ======= line and no >>>>>>> REPLACE line; end the old lines with ======= and the new lines with >>>>>>> REPLACE"},
		{"no REPLACE marker", "x\n<<<<<<< SEARCH\na\n=======\nb\n", 0, 2,
			"block 1: line 2: malformed SEARCH/REPLACE blocks: the block has no >>>>>>> REPLACE line; end the new lines with >>>>>>> REPLACE"},
		{"REPLACE before divider", "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nc\n>>>>>>> REPLACE\n", 1, 8,
			"block 2: line 8: malformed SEARCH/REPLACE blocks: >>>>>>> REPLACE before the ======= line of the block started at line 6; put ======= between the old and the new lines"},
		{"second SEARCH", "<<<<<<< SEARCH\na\n<<<<<<< SEARCH\n", 0, 3,
			"block 1: line 3: malformed SEARCH/REPLACE blocks: a second <<<<<<< SEARCH before the ======= of the block started at line 1; each block is <<<<<<< SEARCH, the old lines, =======, the new lines, >>>>>>> REPLACE"},
		{"SEARCH inside REPLACE", "<<<<<<< SEARCH\na\n=======\n<<<<<<< SEARCH\n", 0, 4,
			"block 1: line 4: malformed SEARCH/REPLACE blocks: <<<<<<< SEARCH before the >>>>>>> REPLACE that ends the block started at line 1"},
		{"second divider", "<<<<<<< SEARCH\na\n=======\nb\n=======\nc\n>>>>>>> REPLACE\n", 0, 5,
			"block 1: line 5: malformed SEARCH/REPLACE blocks: a second ======= line in the block started at line 1 (the first is line 3); if the file has such a line, edit it with a unified diff or a rewrite"},
		{"stray REPLACE", "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n>>>>>>> REPLACE\n", 0, 6,
			"block 1: line 6: malformed SEARCH/REPLACE blocks: \">>>>>>> REPLACE\" without a <<<<<<< SEARCH line before it"},
		{"apply_patch with Add File", "*** Begin Patch\n*** Add File: new.py\n+x = 1\n*** End Patch\n", 0, 2,
			"block 1: line 2: malformed SEARCH/REPLACE blocks: apply_patch's Add File is not an edit of this artifact; edit one existing artifact per call (create, move and archive artifacts with their own commands)"},
		{"apply_patch line without a prefix", "*** Begin Patch\n*** Update File: a.py\n@@\n x = 1\ny = 2\n*** End Patch\n", 0, 5,
			"block 1: line 5: malformed SEARCH/REPLACE blocks: \"y = 2\" in an apply_patch hunk: each line starts with ' ' (context), '-' (removed) or '+' (added)"},
		{"apply_patch without End Patch", "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n", -1, 1,
			"line 1: malformed SEARCH/REPLACE blocks: the apply_patch envelope has no *** End Patch line"},
		{"apply_patch without a hunk", "*** Begin Patch\n*** Update File: a.py\n*** End Patch\n", -1, 3,
			"line 3: malformed SEARCH/REPLACE blocks: the apply_patch envelope has no hunk to apply; put the changed lines, with ' ', '-' and '+' in front, after *** Update File: PATH and @@"},
		{"apply_patch hunk before the file name", "*** Begin Patch\n@@\n-x\n*** End Patch\n", -1, 2,
			"line 2: malformed SEARCH/REPLACE blocks: \"@@\" before the *** Update File: line that names the file"},
		{"unified diff as blocks", "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n", -1, 3,
			"line 3: malformed SEARCH/REPLACE blocks: the text is a unified diff, not SEARCH/REPLACE blocks; send it as a patch"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseBlocks(c.text)
			if got != nil || !errors.Is(err, ErrBadBlocks) {
				t.Fatalf("got %v, %v", got, err)
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Block != c.block || pe.Line != c.line {
				t.Errorf("got %#v, want block %d line %d", err, c.block, c.line)
			}
			if err.Error() != c.msg {
				t.Errorf("message\n got %q\nwant %q", err, c.msg)
			}
		})
	}
	t.Run("invalid UTF-8", func(t *testing.T) {
		_, err := ParseBlocks("<<<<<<< SEARCH\n\xff\n=======\n>>>>>>> REPLACE\n")
		var te *TextError
		if !errors.Is(err, ErrInvalidUTF8) || !errors.As(err, &te) || te.What != "blocks" || te.Offset != 15 || te.Line != 2 {
			t.Errorf("got %v", err)
		}
	})
}
