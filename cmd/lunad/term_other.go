//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package main

// isTerminalFd reports false where lunad has no terminal check: no
// progress bar is drawn.
func isTerminalFd(uintptr) bool { return false }
