package shimtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Name is the shim's executable name (sandbox.ShimName).
const Name = "lunad-shim"

// Build builds the shim into dir and returns its path.
func Build(dir string) (string, error) {
	out := filepath.Join(dir, Name)
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, "github.com/lunad/lunad/cmd/lunad-shim")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the Landlock shim: %v\n%s", err, b)
	}
	return out, nil
}

// Install builds the shim next to this (test) executable, where
// sandbox.New finds it first, and returns a function that removes it.
// TestMain calls it before m.Run:
//
//	func TestMain(m *testing.M) {
//		remove := shimtest.Install()
//		code := m.Run()
//		remove()
//		os.Exit(code)
//	}
//
// A failed build ends the test binary, saying why. A fuzz worker
// builds nothing: its coordinator has.
func Install() (remove func()) {
	if slices.ContainsFunc(os.Args[1:], func(a string) bool { return strings.HasPrefix(a, "-test.fuzzworker") }) {
		return func() {} // a fuzz worker: the coordinator, the same executable, built it
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	var path string
	if err == nil {
		path, err = Build(filepath.Dir(exe))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "shimtest:", err)
		os.Exit(2)
	}
	return func() { os.Remove(path) }
}
