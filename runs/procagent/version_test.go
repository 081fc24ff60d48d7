package procagent

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

// TestVersion: the version is stable, follows the command and the
// workspace files it names, and not the workspace's location.
func TestVersion(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	argv := writeScript(t, root, "draft.sh", `echo '{"status":"ok"}'`)
	a := newAgent(t, root, argv, Options{})
	v1 := a.Version()
	if !regexp.MustCompile(`^process:[0-9a-f]{12}$`).MatchString(v1) {
		t.Fatalf("Version() = %q, want process: and 12 hex digits", v1)
	}
	if v := a.Version(); v != v1 {
		t.Errorf("Version() changed without a change: %q, %q", v1, v)
	}
	if v := newAgent(t, root, argv, Options{Timeout: time.Second, Env: []string{"A=1"}}).Version(); v != v1 {
		t.Errorf("options changed the version: %q, %q", v1, v)
	}

	// The same script in another workspace: the same version.
	other := t.TempDir()
	writeScript(t, other, "draft.sh", `echo '{"status":"ok"}'`)
	if v := newAgent(t, other, argv, Options{}).Version(); v != v1 {
		t.Errorf("another workspace, the same script: %q, want %q", v, v1)
	}

	// Editing the script changes it (even within the same second and at
	// the same size).
	path := filepath.Join(root, "agents", "draft.sh")
	fi, _ := os.Stat(path)
	writeScript(t, root, "draft.sh", `echo '{"status":"no"}'`)
	os.Chtimes(path, fi.ModTime(), fi.ModTime().Add(time.Nanosecond))
	v2 := a.Version()
	if v2 == v1 {
		t.Errorf("Version() = %q after the script changed", v2)
	}
	if v := newAgent(t, root, argv, Options{}).Version(); v != v2 {
		t.Errorf("a new agent: %q, want %q (no stale cache)", v, v2)
	}

	// Other arguments, another version; absolute paths inside the
	// workspace count, files outside it do not.
	cases := []struct {
		name string
		argv []string
		same bool // as v2
	}{
		{"another argument", append(append([]string(nil), argv...), "--fast"), false},
		{"arguments split differently", []string{"/bin/sh agents/draft.sh"}, false},
		{"absolute path inside", []string{"/bin/sh", path}, false},
	}
	for _, c := range cases {
		if v := newAgent(t, root, c.argv, Options{}).Version(); (v == v2) != c.same {
			t.Errorf("%s: Version() = %q, v2 = %q", c.name, v, v2)
		}
	}

	outside := filepath.Join(t.TempDir(), "agent.sh")
	os.WriteFile(outside, []byte("one"), 0o644)
	b := newAgent(t, root, []string{"/bin/sh", outside}, Options{})
	before := b.Version()
	os.WriteFile(outside, []byte("two, longer"), 0o644)
	if after := b.Version(); after != before {
		t.Errorf("a file outside the workspace changed the version: %q, %q", before, after)
	}
	inside := newAgent(t, root, []string{"/bin/sh", path}, Options{})
	before = inside.Version()
	os.WriteFile(path, []byte("echo changed again"), 0o755)
	if after := inside.Version(); after == before {
		t.Errorf("editing a file named by its absolute path kept the version %q", after)
	}
}

// TestNewInvalid: New refuses what cannot run, with lunad.ErrInvalid.
func TestNewInvalid(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cases := []struct {
		name string
		root string
		argv []string
		opts Options
	}{
		{"no argv", root, nil, Options{}},
		{"empty command", root, []string{"", "x"}, Options{}},
		{"no root", "", []string{"true"}, Options{}},
		{"env without a name", root, []string{"true"}, Options{Env: []string{"=x"}}},
		{"env setting a LUNAD_ variable", root, []string{"true"}, Options{Env: []string{"LUNAD_STAGE=x"}}},
		{"negative timeout", root, []string{"true"}, Options{Timeout: -time.Second}},
		{"negative cap", root, []string{"true"}, Options{MaxOutput: -1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a, err := New(c.root, c.argv, c.opts)
			if !errors.Is(err, lunad.ErrInvalid) {
				t.Errorf("New = %v, %v; want lunad.ErrInvalid", a, err)
			}
		})
	}
}
