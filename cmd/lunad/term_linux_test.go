package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lunad/lunad/agents/policy"
)

// TestIsTerminalFile: a pseudo-terminal is a terminal; a pipe, a regular
// file, /dev/null and a buffer are not.
func TestIsTerminalFile(t *testing.T) {
	_, pts := openPty(t)
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

// openPty opens a pseudo-terminal: its master and its terminal, closed
// when the test ends.
func openPty(t *testing.T) (ptmx, pts *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ptmx.Close() })
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pts.Close() })
	return ptmx, pts
}

// TestGoalConfirmer: a goal driven by this process asks the person at the
// terminal about an action the policy wants confirmed, when standard
// input and error are a terminal; otherwise there is no one to ask (nil:
// the goal denies such actions, saying so).
func TestGoalConfirmer(t *testing.T) {
	ptmx, pts := openPty(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, tc := range []struct {
		name   string
		in     io.Reader
		out    io.Writer
		asking bool
	}{
		{"a terminal", pts, pts, true},
		{"input from a pipe", r, pts, false},
		{"output to a pipe", pts, w, false},
		{"a buffer", &bytes.Buffer{}, pts, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &Main{Stdin: tc.in, Stderr: tc.out}
			if c := m.confirmer(); (c != nil) != tc.asking {
				t.Fatalf("confirmer %v, want one: %t", c, tc.asking)
			}
		})
	}
	c := (&Main{Stdin: pts, Stderr: pts}).confirmer()
	if _, err := ptmx.Write([]byte("y\n")); err != nil {
		t.Fatal(err)
	}
	if !c.Confirm(policy.Action{Tool: "run_command", Argv: []string{"rm", "-r", "build"}}, policy.Decision{Verdict: policy.Confirm, Rule: "confirm-rm", Reason: "rm deletes files"}) {
		t.Fatal("the answer y was not taken")
	}
	// The terminal shows the echoed answer and the question.
	if err := ptmx.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	var q []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(q, []byte("Allow it? [y/N]")) {
		n, err := ptmx.Read(buf)
		if err != nil {
			t.Fatalf("reading the terminal: %v; so far %q", err, q)
		}
		q = append(q, buf[:n]...)
	}
	if !bytes.Contains(q, []byte("confirm-rm")) || !bytes.Contains(q, []byte("rm -r build")) {
		t.Fatalf("the question on the terminal: %q", q)
	}
}
