package editor_test

// The reply-shape corpus: testdata/replies/<tool>/<case>.txtar, written by
// hand after the edit formats that Aider (editblock and its fenced
// variant), Cline (replace_in_file), Continue (single_find_and_replace),
// OpenHands (str_replace_editor) and Codex (apply_patch) document and that
// models write for them. Each case is one reply as a model writes it (or,
// for the tools that call with old and new strings, those strings), the
// file before, and the outcome: the tiers the blocks matched by and the
// file after, or the refusal with its message.
//
// Header: "tool:" (aider, cline, continue, openhands, codex), "shape:"
// what the case is, "path:" the artifact's path, "expect:" apply or
// refuse. Sections: original; reply (text that ParseBlocks reads) or
// search and replace (a structured block); outcome ("tiers: ..." or
// "refused: <message>"); expected (the file after, for an applied edit).
// go test -update rewrites outcome and expected from what the engine does.

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/lunad/lunad/editor"
)

type replyCase struct {
	file string
	hdr  map[string]string
	ar   *txtar.Archive
	sec  map[string]string
}

func loadReplies(t *testing.T) []replyCase {
	t.Helper()
	var cases []replyCase
	for _, f := range caseFiles(t, filepath.Join("testdata", "replies")) {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c := replyCase{file: f, hdr: map[string]string{}, ar: ar, sec: map[string]string{}}
		for _, l := range strings.Split(strings.TrimSpace(string(ar.Comment)), "\n") {
			k, v, ok := strings.Cut(l, ": ")
			if !ok {
				t.Fatalf("%s: bad header line %q", f, l)
			}
			c.hdr[k] = v
		}
		for _, s := range ar.Files {
			c.sec[s.Name] = string(s.Data)
		}
		if tool := filepath.Base(filepath.Dir(f)); c.hdr["tool"] != tool {
			t.Fatalf("%s: tool %q in directory %q", f, c.hdr["tool"], tool)
		}
		if e := c.hdr["expect"]; e != "apply" && e != "refuse" {
			t.Fatalf("%s: expect %q", f, e)
		}
		cases = append(cases, c)
	}
	return cases
}

// outcome runs a case through the engine as lunad does: the reply parsed,
// every file name it gives checked against the artifact's path, the blocks
// applied.
func (c replyCase) outcome() (string, []byte, []editor.Match) {
	var blocks []editor.Block
	if r, ok := c.sec["reply"]; ok {
		var err error
		if blocks, err = editor.ParseBlocks(r); err != nil {
			return "refused: " + err.Error(), nil, nil
		}
	} else {
		blocks = []editor.Block{{Search: c.sec["search"], Replace: c.sec["replace"]}}
	}
	for i, b := range blocks {
		if b.Path != "" && !editor.SamePath(b.Path, c.hdr["path"]) {
			return fmt.Sprintf("refused: block %d names %s, but the artifact is %s", i+1, b.Path, c.hdr["path"]), nil, nil
		}
	}
	res, err := editor.ApplyBlocks([]byte(c.sec["original"]), blocks)
	if err != nil {
		return "refused: " + err.Error(), nil, nil
	}
	tiers := make([]string, len(res.Matches))
	for i, m := range res.Matches {
		tiers[i] = fmt.Sprintf("%s %d-%d", m.Tier, m.StartLine, m.EndLine)
	}
	return "tiers: " + strings.Join(tiers, ", "), res.Content, res.Matches
}

// judgeReply scores a reply case for the edit-quality report against its
// expect header and, for an applied edit, its expected section: right,
// refused (an edit expected, none made) or wrong (an edit made that is not
// the expected one, or any edit where a refusal is expected).
func judgeReply(c replyCase) (verdict, []editor.Match, string) {
	got, content, matches := c.outcome()
	switch {
	case c.hdr["expect"] == "refuse" && content != nil:
		return wrong, matches, "applied instead of refusing: " + got
	case c.hdr["expect"] == "refuse":
		return right, nil, ""
	case content == nil:
		return refused, nil, oneLine(got)
	case string(content) != c.sec["expected"]:
		return wrong, matches, fmt.Sprintf("%s: %s", got, firstDiff(content, []byte(c.sec["expected"])))
	}
	return right, matches, ""
}

// TestReplyShapes applies every case of the reply-shape corpus and checks
// its outcome byte for byte.
func TestReplyShapes(t *testing.T) {
	cases := loadReplies(t)
	if len(cases) < 25 {
		t.Fatalf("%d reply cases, want at least 25", len(cases))
	}
	update := flag.Lookup("update") != nil && flag.Lookup("update").Value.String() == "true"
	for _, c := range cases {
		t.Run(c.hdr["tool"]+"/"+strings.TrimSuffix(filepath.Base(c.file), ".txtar"), func(t *testing.T) {
			got, content, _ := c.outcome()
			if applied := content != nil; applied != (c.hdr["expect"] == "apply") {
				t.Errorf("expect %s, got %s", c.hdr["expect"], got)
			}
			if update {
				c.write(t, got, content)
				return
			}
			if want := strings.TrimSuffix(c.sec["outcome"], "\n"); got != want {
				t.Errorf("outcome\n got %s\nwant %s", got, want)
			}
			if want, ok := c.sec["expected"]; content != nil && (!ok || !bytes.Equal(content, []byte(want))) {
				t.Errorf("result\n got %q\nwant %q", content, want)
			}
		})
	}
}

// write rewrites the case's outcome and expected sections.
func (c replyCase) write(t *testing.T, outcome string, content []byte) {
	var files []txtar.File
	for _, f := range c.ar.Files {
		if f.Name != "outcome" && f.Name != "expected" {
			files = append(files, f)
		}
	}
	files = append(files, txtar.File{Name: "outcome", Data: []byte(outcome + "\n")})
	if content != nil {
		files = append(files, txtar.File{Name: "expected", Data: content})
	}
	c.ar.Files = files
	if err := os.WriteFile(c.file, txtar.Format(c.ar), 0o644); err != nil {
		t.Fatal(err)
	}
}
