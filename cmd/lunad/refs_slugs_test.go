package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefsSlugRule: [refs] slugs in .luna/config.toml decides whether a
// link whose anchor matches a heading only ignoring punctuation is
// unverified (github, the default) or ok (loose; a heading of the
// artifact itself is then local, not listed); a missing anchor is broken
// under both.
func TestRefsSlugRule(t *testing.T) {
	w := newWS(t)
	w.create("api.md", "# API\n\n## A.B\n")
	w.create("guide.md", "# Guide\n\n[ab](api.md#a-b) and [gone](api.md#zzz)\n\n## C.D\n\n[own](#c-d)\n")
	for _, tc := range []struct{ name, config, other, own string }{
		{"github by default", "", "unverified", "unverified"},
		{"github", "[refs]\nslugs = \"github\"\n", "unverified", "unverified"},
		{"loose", "[refs]\nslugs = \"loose\"\n", "ok", "not listed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(w.dir, ".luna", "config.toml"), []byte(tc.config), 0o644); err != nil {
				t.Fatal(err)
			}
			out := w.ok("refs", "guide.md")
			state := map[string]string{"api.md#a-b": "not listed", "api.md#zzz": "not listed", "#c-d": "not listed"}
			for _, line := range strings.Split(out, "\n") {
				if f := strings.Fields(line); len(f) > 6 && state[f[4]] != "" {
					state[f[4]] = f[6]
				}
			}
			if state["api.md#a-b"] != tc.other || state["#c-d"] != tc.own || state["api.md#zzz"] != "broken" {
				t.Fatalf("states %v, want api.md#a-b %s, #c-d %s, api.md#zzz broken:\n%s", state, tc.other, tc.own, out)
			}
		})
	}
}
