//go:build !linux

package shim

import "os"

// Run: the shim runs only inside bwrap, on Linux.
func Run(argv []string) int {
	os.Stderr.WriteString("lunad-shim: the Landlock shim runs only on Linux\n")
	return 126
}

// CloseInheritedOnExec has nothing to do where commands are not
// sandboxed.
func CloseInheritedOnExec() {}
