package goal

import (
	"strings"
	"testing"
)

func TestSplitPatch(t *testing.T) {
	two := "diff --git a/x.go b/x.go\nindex 1..2 100644\n--- a/x.go\n+++ b/x.go\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n" +
		"diff --git a/y.go b/y.go\n--- a/y.go\t2026-01-01\n+++ b/y.go\t2026-01-02\n@@ -1 +1 @@\n-y\n+z\n"
	for _, c := range []struct {
		name, patch string
		paths       []string
		created     []bool
		lines       []int
		err         string
	}{
		{name: "two files, git style", patch: two, paths: []string{"x.go", "y.go"}, created: []bool{false, false}, lines: []int{3, 10}},
		{name: "created", patch: "--- /dev/null\n+++ b/new.md\n@@ -0,0 +1 @@\n+hi\n", paths: []string{"new.md"}, created: []bool{true}, lines: []int{1}},
		{name: "no prefixes", patch: "--- src/a.py\n+++ src/a.py\n@@ @@\n-a\n+b\n", paths: []string{"src/a.py"}, created: []bool{false}, lines: []int{1}},
		{name: "a removed line that looks like a header", patch: "--- a/m.txt\n+++ b/m.txt\n@@ -1,2 +1,2 @@\n--- x\n+++ y\n", paths: []string{"m.txt"}, created: []bool{false}, lines: []int{1}},
		{name: "wrong counts, the next header still found", patch: "--- a/p\n+++ b/p\n@@ -1,9 +1,9 @@\n-a\n+b\n--- a/q\n+++ b/q\n@@ -1 +1 @@\n-c\n+d\n", paths: []string{"p", "q"}, created: []bool{false, false}, lines: []int{1, 6}},
		{name: "hunk before a header", patch: "@@ -1 +1 @@\n-a\n+b\n", err: "hunk at line 1 comes before any file header: start each file's hunks with the lines --- a/PATH and +++ b/PATH"},
		{name: "deletes", patch: "--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n", err: "the patch deletes x (line 1): a goal does not delete files"},
		{name: "renames", patch: "--- a/x\n+++ b/y\n@@ -1 +1 @@\n-x\n+y\n", err: "the patch renames x to y (line 1)"},
		{name: "twice", patch: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-x\n+y\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-y\n+z\n", err: "the patch changes x twice (line 6)"},
		{name: "prose only", patch: "I would change add.", err: "the patch names no file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := splitPatch(c.patch)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("%v; want %q", err, c.err)
				}
				return
			}
			if err != nil || len(got) != len(c.paths) {
				t.Fatalf("%+v, %v", got, err)
			}
			for i, f := range got {
				if f.Path != c.paths[i] || f.Created != c.created[i] || f.Line != c.lines[i] || !strings.HasPrefix(f.Text, "--- ") {
					t.Errorf("file %d: %+v", i, f)
				}
			}
		})
	}
}

func FuzzSplitPatch(f *testing.F) {
	f.Add("--- a/x.go\n+++ b/x.go\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n")
	f.Add("--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\n--- a/m\n+++ b/m\n@@ @@\n-y\n+z\n")
	f.Add("--- a/m.txt\n+++ b/m.txt\n@@ -1,99999999999999999999 +1 @@\n--- x\n")
	f.Add("@@")
	f.Fuzz(func(t *testing.T, patch string) {
		files, err := splitPatch(patch)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, fp := range files {
			if fp.Path == "" || seen[fp.Path] || fp.Line < 1 || !strings.HasPrefix(fp.Text, "--- ") {
				t.Fatalf("bad part %+v of %q", fp, patch)
			}
			seen[fp.Path] = true
		}
	})
}
