package editor

import (
	"reflect"
	"testing"
)

func TestPatchPaths(t *testing.T) {
	for _, tc := range []struct {
		name, patch string
		want        []string
	}{
		{"git prefixes", "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n", []string{"a/x.go", "b/x.go"}},
		{"timestamps", "--- x.go\t2026-01-01 00:00:00\n+++ x.go\t2026-01-02 00:00:00\n@@ -1 +1 @@\n-a\n+b\n", []string{"x.go", "x.go"}},
		{"created file", "--- /dev/null\n+++ b/new.md\n@@ -0,0 +1 @@\n+a\n", []string{"b/new.md"}},
		{"no headers", "@@ -1 +1 @@\n-a\n+b\n", nil},
		{"removed and added lines that look like headers", "@@ -1 +1 @@\n--- a\n+++ b\n", nil},
		{"escape attempt", "--- ../../etc/passwd\n+++ ../../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n", []string{"../../etc/passwd", "../../etc/passwd"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := PatchPaths(tc.patch); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("PatchPaths = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSamePath(t *testing.T) {
	for _, tc := range []struct {
		named, path string
		want        bool
	}{
		{"docs/a.md", "docs/a.md", true},
		{"./docs/a.md", "docs/a.md", true},
		{"a/docs/a.md", "docs/a.md", true},
		{"b/docs/a.md", "docs/a.md", true},
		{"a.md", "docs/a.md", true},
		{"/home/ada/ws/docs/a.md", "docs/a.md", true},
		{`docs\a.md`, "docs/a.md", true},
		{"docs/b.md", "docs/a.md", false},
		{"ba.md", "a.md", false},
		{"other.md", "a.md", false},
		{"../../etc/passwd", "a.md", false},
		{"../../etc/passwd", "passwd", false},
		{"docs/../a.md", "a.md", true},
		{"x/a.md", "docs/a.md", false},
	} {
		t.Run(tc.named+" vs "+tc.path, func(t *testing.T) {
			if got := SamePath(tc.named, tc.path); got != tc.want {
				t.Fatalf("SamePath(%q, %q) = %v, want %v", tc.named, tc.path, got, tc.want)
			}
		})
	}
}
