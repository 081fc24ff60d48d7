package workspace_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/editor"
)

func TestEditKinds(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "config", Path: "config.py", Content: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	id := r.Artifact.ID
	cases := []struct {
		name     string
		req      lunad.EditRequest
		tier     editor.Tier
		contains string
	}{
		{"structured block", lunad.EditRequest{Blocks: []lunad.Block{{Search: "        return toml.load(f)\n", Replace: "        return tomllib.load(f)\n"}}}, editor.TierExact, "tomllib.load"},
		{"fenced text, lost indentation", lunad.EditRequest{BlocksText: "config.py\n<<<<<<< SEARCH\nwith open(path) as f:\n    return tomllib.load(f)\n=======\nwith open(path, 'rb') as f:\n    return tomllib.load(f)\n>>>>>>> REPLACE\n"}, editor.TierIndentation, "    with open(path, 'rb') as f:\n        return tomllib.load(f)\n"},
		{"patch", lunad.EditRequest{Patch: "--- a/config.py\n+++ b/config.py\n@@ -6,2 +6,2 @@\n def main():\n-    print(parse_config('a.toml'))\n+    print(parse_config('b.toml'))\n"}, editor.TierPatch, "b.toml"},
		{"rewrite", lunad.EditRequest{Rewrite: true, Content: []byte("x = 1\n")}, editor.TierRewrite, "x = 1\n"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.req.ID = id
			c.req.Agent = "coder"
			c.req.BaseVersion = i + 1
			res, err := s.Edit(ctx, c.req)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Matches) == 0 || res.Matches[0].Tier != string(c.tier) || res.Version.Number != i+2 || res.Version.Extra["Match"] != string(c.tier) {
				t.Fatalf("result %+v", res)
			}
			got, _, err := s.Read(ctx, id, "")
			if err != nil || !strings.Contains(string(got), c.contains) {
				t.Fatalf("content %q %v", got, err)
			}
		})
	}
	diff, err := s.Diff(ctx, id, 1, 2)
	if err != nil || !strings.Contains(diff, "-        return toml.load(f)\n+        return tomllib.load(f)\n") {
		t.Fatalf("diff: %q %v", diff, err)
	}
	out, err := exec.Command("git", "-C", s.Root(), "log", "--format=%an %(trailers:key=Luna-Match,valueonly)").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "coder rewrite\n") {
		t.Fatalf("git log: %s %v", out, err)
	}
}

func TestEditErrors(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	r, _ := s.Create(ctx, lunad.CreateSpec{Title: "config", Path: "config.py", Content: []byte(src + src)})
	id := r.Artifact.ID
	cases := []struct {
		name string
		req  lunad.EditRequest
		want []error
	}{
		{"no match", lunad.EditRequest{Blocks: []lunad.Block{{Search: "import yaml\n", Replace: "x"}}}, []error{lunad.ErrNotApplied, editor.ErrNoMatch}},
		{"ambiguous", lunad.EditRequest{Blocks: []lunad.Block{{Search: "def main():\n", Replace: "def run():\n"}}}, []error{lunad.ErrNotApplied, editor.ErrAmbiguous}},
		{"bad fenced text", lunad.EditRequest{BlocksText: "<<<<<<< SEARCH\nx\n"}, []error{lunad.ErrInvalid, editor.ErrBadBlocks}},
		{"binary rewrite", lunad.EditRequest{Rewrite: true, Content: []byte("a\x00b")}, []error{lunad.ErrInvalid}},
		{"two kinds", lunad.EditRequest{Patch: "x", Rewrite: true}, []error{lunad.ErrInvalid}},
		{"nothing", lunad.EditRequest{}, []error{lunad.ErrInvalid}},
		{"unknown artifact", lunad.EditRequest{ID: "zzzz", Rewrite: true, Content: []byte("x")}, []error{lunad.ErrNotFound}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.req.ID == "" {
				c.req.ID = id
			}
			_, err := s.Edit(ctx, c.req)
			for _, w := range c.want {
				if !errors.Is(err, w) {
					t.Fatalf("error %v is not %v", err, w)
				}
			}
		})
	}
	if h, _ := s.History(ctx, id); len(h) != 1 {
		t.Fatalf("failed edits committed: %d versions", len(h))
	}
}

func TestReplayReportsTiers(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	r, _ := s.Create(ctx, lunad.CreateSpec{Title: "n", Path: "n.md", Content: []byte("alpha  \nbeta\n")})
	req := lunad.EditRequest{ID: r.Artifact.ID, Blocks: []lunad.Block{{Search: "alpha\n", Replace: "ALPHA\n"}, {Search: "beta\n", Replace: "BETA\n"}}}
	req.IdempotencyKey = "once"
	first, err := s.Edit(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.Edit(ctx, req)
	if err != nil || !again.Replayed || again.Version.Commit != first.Version.Commit {
		t.Fatalf("replay %+v %v", again, err)
	}
	if len(again.Matches) != 2 || again.Matches[0].Tier != string(editor.TierTrailingWhitespace) || again.Matches[1].Tier != string(editor.TierExact) {
		t.Fatalf("replayed matches %+v", again.Matches)
	}
}
