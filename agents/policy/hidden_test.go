package policy

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestHiddenUnder: the paths of [[deny]] rules that match on paths alone
// are found in the workspace, topmost only, .git not walked; rules that
// also name a program, tools or writes hide nothing.
func TestHiddenUnder(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"config/secrets/db.yml", "keys/a.pem", "deep/x/b.pem", "main.go", ".git/objects/c.pem", "scripts/deploy.sh", "out/build.log"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const file = `
[[deny]]
name = "no-secrets"
paths = ["config/secrets", "*.pem"]
reason = "secrets stay out"

[[deny]]
name = "no-deploy-reads"
program = "cat"
paths = ["scripts"]
reason = "only cat is denied: the sandbox hides nothing for it"

[[deny]]
name = "no-log-writes"
paths = ["out"]
writes = true
reason = "a write rule: reading stays allowed"
`
	p, err := Parse(filepath.Join(root, File), []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Sandbox().HiddenUnder(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, "config/secrets"), filepath.Join(root, "deep/x/b.pem"), filepath.Join(root, "keys/a.pem")}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("HiddenUnder = %q; want %q", got, want)
	}
	if _, err := Default().Sandbox().HiddenUnder(filepath.Join(root, "missing")); err != nil {
		t.Errorf("no denied paths, no walk: %v", err)
	}
	if _, err := p.Sandbox().HiddenUnder(filepath.Join(root, "missing")); err == nil {
		t.Error("an unreadable workspace hid nothing, silently")
	}
}

// TestRootWithoutLandlock: refuse unless the policy says warn.
func TestRootWithoutLandlock(t *testing.T) {
	tests := []struct {
		name, file string
		want       Unsandboxed
	}{
		{"default", "", Refuse},
		{"warn", `root_without_landlock = "warn"`, Warn},
		{"refuse", `root_without_landlock = "refuse"`, Refuse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(File, []byte(tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Sandbox().RootWithoutLandlock; got != tt.want {
				t.Errorf("RootWithoutLandlock = %q; want %q", got, tt.want)
			}
		})
	}
	if _, err := Parse(File, []byte(`root_without_landlock = "yes"`)); err == nil {
		t.Error(`root_without_landlock = "yes" was accepted`)
	}
}
