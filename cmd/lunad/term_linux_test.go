package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestIsTerminalFile: a pseudo-terminal is a terminal; a pipe, a regular
// file, /dev/null and a buffer are not.
func TestIsTerminalFile(t *testing.T) {
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer pts.Close()
	r, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer pw.Close()
	regular, err := os.Create(t.TempDir() + "/out")
	if err != nil {
		t.Fatal(err)
	}
	defer regular.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for _, tc := range []struct {
		name string
		w    io.Writer
		want bool
	}{
		{"pseudo-terminal", pts, true},
		{"pipe", pw, false},
		{"regular file", regular, false},
		{"/dev/null", null, false},
		{"buffer", &bytes.Buffer{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := isTerminalFile(tc.w); got != tc.want {
				t.Errorf("isTerminalFile = %v, want %v", got, tc.want)
			}
		})
	}
}
