package configtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Root is a directory whose .luna/config.toml is toml.
func Root(t testing.TB, toml string) string {
	t.Helper()
	d := t.TempDir()
	if err := os.MkdirAll(filepath.Join(d, ".luna"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, ".luna", "config.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

// Env is a getenv over pairs of names and values.
func Env(kv ...string) func(string) string {
	return func(k string) string {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1]
			}
		}
		return ""
	}
}
