package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefsSlugRule: [refs] slugs in .luna/config.toml decides whether a
// link whose anchor matches a heading only ignoring punctuation is
// unverified (github, the default) or ok (loose); a missing anchor is
// broken under both.
func TestRefsSlugRule(t *testing.T) {
	w := newWS(t)
	w.create("api.md", "# API\n\n## A.B\n")
	w.create("guide.md", "# Guide\n\n[ab](api.md#a-b) and [gone](api.md#zzz)\n")
	for _, tc := range []struct{ name, config, want string }{
		{"github by default", "", "unverified"},
		{"github", "[refs]\nslugs = \"github\"\n", "unverified"},
		{"loose", "[refs]\nslugs = \"loose\"\n", "ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(w.dir, ".luna", "config.toml"), []byte(tc.config), 0o644); err != nil {
				t.Fatal(err)
			}
			out := w.ok("refs", "guide.md")
			var ab, gone string
			for _, line := range strings.Split(out, "\n") {
				switch f := strings.Fields(line); {
				case len(f) > 6 && f[4] == "api.md#a-b":
					ab = f[6]
				case len(f) > 6 && f[4] == "api.md#zzz":
					gone = f[6]
				}
			}
			if ab != tc.want || gone != "broken" {
				t.Fatalf("api.md#a-b is %q (want %q), api.md#zzz %q (want broken):\n%s", ab, tc.want, gone, out)
			}
		})
	}
}
