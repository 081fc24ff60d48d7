package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// TestFindShim: New finds lunad-shim next to lunad's executable, then on
// PATH; none is a clear error naming how to build it, never a sandbox
// without Landlock; one in a directory others may write is refused.
func TestFindShim(t *testing.T) {
	exe := func(t *testing.T, dir string) string {
		t.Helper()
		p := filepath.Join(dir, ShimName)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("the first directory that has it", func(t *testing.T) {
		empty, second, third := t.TempDir(), t.TempDir(), t.TempDir()
		want := exe(t, second)
		exe(t, third)
		if err := os.Mkdir(filepath.Join(empty, ShimName), 0o755); err != nil { // a directory is not the shim
			t.Fatal(err)
		}
		got, err := findShim("", []string{empty, second, third})
		if err != nil || got != want {
			t.Fatalf("findShim = %q, %v; want %q", got, err, want)
		}
	})
	t.Run("none", func(t *testing.T) {
		dir := t.TempDir()
		_, err := findShim("", []string{dir})
		if !errors.Is(err, lunad.ErrNotFound) || !strings.Contains(err.Error(), "neither next to lunad's executable nor on PATH ("+dir+")") || !strings.Contains(err.Error(), "make build") {
			t.Fatalf("findShim = %v; want ErrNotFound naming where it looked and how to build it", err)
		}
	})
	t.Run("a directory others may write", func(t *testing.T) {
		dir := filepath.Join(outsideTmp(t), "open")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		exe(t, dir)
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		_, err := findShim("", []string{dir})
		if !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "is writable by others than its owner") {
			t.Fatalf("findShim = %v; want ErrInvalid: the shim could be replaced", err)
		}
	})
	t.Run("PATH after the executable's directory, relative entries left out", func(t *testing.T) {
		dirs := shimDirs(func(k string) string {
			if k == "PATH" {
				return "bin:/usr/local/bin::/usr/bin"
			}
			return ""
		})
		self, _ := os.Executable()
		self, _ = filepath.EvalSymlinks(self)
		if want := []string{filepath.Dir(self), "/usr/local/bin", "/usr/bin"}; !slices.Equal(dirs, want) {
			t.Fatalf("shimDirs = %q; want %q", dirs, want)
		}
	})
	t.Run("New without a shim", func(t *testing.T) {
		caps := Capabilities{Bwrap: "/usr/bin/bwrap", Namespaces: true, Network: true, Hardened: true, ProcessLimit: LimitRlimit, Landlock: 7}
		caps.LandlockApplied = caps.landlockApplied()
		_, err := New(caps, Options{Shim: filepath.Join(t.TempDir(), ShimName)})
		if !errors.Is(err, lunad.ErrNotFound) {
			t.Fatalf("New = %v; want ErrNotFound: Landlock is applied through the shim", err)
		}
	})
}
