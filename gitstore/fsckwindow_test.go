package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"golang.org/x/sys/unix"
)

// pausedGit starts a real git command in dir that stops at its first read
// from a pack: GIT_TRACE_PACK_ACCESS names a FIFO whose buffer is full, so
// git's first trace line blocks. git lists the pack directory before it
// reads from any pack, so once it has opened the FIFO its list of packs is
// fixed; resume lets it go on and returns its exit error and output.
func pausedGit(t *testing.T, dir string, args ...string) (resume func() (error, string)) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "pack-access")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Read-write so that neither git's open nor ours waits for the other.
	fd, err := unix.Open(fifo, unix.O_RDWR|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Fill the buffer: by pages, then to the last byte.
	for _, size := range []int{4096, 1} {
		for {
			if _, err := unix.Write(fd, make([]byte, size)); errors.Is(err, unix.EAGAIN) {
				break
			} else if err != nil {
				unix.Close(fd)
				t.Fatal(err)
			}
		}
	}
	trace := os.NewFile(uintptr(fd), fifo)
	// git opening the FIFO is an inotify event: no polling.
	in, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		trace.Close()
		t.Fatal(err)
	}
	opens := os.NewFile(uintptr(in), "inotify")
	defer opens.Close()
	if _, err := unix.InotifyAddWatch(in, fifo, unix.IN_OPEN); err != nil {
		trace.Close()
		t.Fatal(err)
	}
	var out strings.Builder
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_TRACE_PACK_ACCESS="+fifo)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		trace.Close()
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Wait until git opens the FIFO (or exits: then it read no pack and
	// the test fails).
	opened := make(chan error, 1)
	go func() {
		_, err := opens.Read(make([]byte, 4096)) // one event or more
		opened <- err
	}()
	select {
	case err := <-opened:
		if err != nil {
			cmd.Process.Kill()
			<-exited
			trace.Close()
			t.Fatal(err)
		}
	case err := <-exited:
		trace.Close()
		t.Fatalf("git %s exited before reading a pack: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return func() (error, string) {
		drained := make(chan struct{})
		go func() {
			defer close(drained)
			io.Copy(io.Discard, trace) // until trace is closed
		}()
		err := <-exited
		trace.Close()
		<-drained
		return err, out.String()
	}
}

// TestGitAcrossConsolidation pins down the window a pack consolidation
// leaves to git processes running while it removes the packs it replaced
// (what made git fsck in tests fail now and then with "packfile ... index
// not opened"). Real git is stopped after it listed the packs, a
// consolidation runs to its end, then git goes on:
//   - git log -p, which reads objects by name, reads every one: the
//     consolidated pack was durable before any old pack was removed, and
//     git lists the packs again when an object is in none it knows;
//   - git fsck, which checks every pack it listed, reports those removed
//     under it, as it does while git's own repack -d runs; a git fsck
//     started after the consolidation passes.
func TestGitAcrossConsolidation(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string // "" when git must succeed
	}{
		{"object reads survive", []string{"log", "-p"}, ""},
		{"fsck reports removed packs", []string{"fsck", "--strict", "--no-progress"}, "index not opened"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			r, err := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("v0\n")})
			if err != nil {
				t.Fatal(err)
			}
			edit := func(i int) {
				t.Helper()
				if _, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{}, replace(fmt.Sprintf("v%d", i-1), fmt.Sprintf("v%d", i))); err != nil {
					t.Fatal(err)
				}
				s.bg.Wait()
			}
			packs := func() []string {
				names, _ := filepath.Glob(filepath.Join(s.root, ".git", "objects", "pack", "pack-*.idx"))
				return names
			}
			// One pack per write: consolidateAt packs, one short of a
			// consolidation.
			n := 0
			for len(packs()) < consolidateAt {
				n++
				edit(n)
			}
			before := packs()
			resume := pausedGit(t, s.root, tc.args...)
			n++
			edit(n) // consolidates, removes the packs
			after := packs()
			if len(after) >= len(before) {
				t.Fatalf("no consolidation: %d packs before, %d after", len(before), len(after))
			}
			err, out := resume()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("git %s during a consolidation: %v\n%s", strings.Join(tc.args, " "), err, out)
			case tc.wantErr == "" && (!strings.Contains(out, "+v0\n") || !strings.Contains(out, fmt.Sprintf("+v%d\n", n-1))):
				t.Fatalf("git %s did not read every version:\n%s", strings.Join(tc.args, " "), out)
			case tc.wantErr != "" && (err == nil || !strings.Contains(out, tc.wantErr)):
				t.Fatalf("git %s during a consolidation: %v, want %q\n%s", strings.Join(tc.args, " "), err, tc.wantErr, out)
			}
			gitFsckOpen(t, s)
		})
	}
}
