package procagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lunad/lunad/internal/atomicfile"
)

// A command's process group is recorded (Options.Groups) so that a daemon
// started after one that was SIGKILLed can end the agents it left
// running: they are in process groups of their own, so nothing takes them
// down with the daemon, and one could go on writing into a run's worktree
// after the next attempt's Clean. The record is durable before the
// command runs: the command is started through a gate — /bin/sh waiting
// for a line on fd 3 — opened once the record is on disk; a daemon that
// dies before that closes the gate's pipe, and the gate exits without
// running the command.

// gateScript runs "$@" once a line arrives on fd 3, and nothing on EOF.
const gateScript = `read -r _ <&3 || exit 125; exec 3<&-; exec "$@"`

// group is the record of one running command's process group: its
// leader's pid (the group's ID) and the leader's start time in clock ticks
// since boot (field 22 of /proc/PID/stat), which tells the group from a
// later process that reused the ID; and what it runs, for the log.
type group struct {
	PGID    int    `json:"pgid"`
	Start   uint64 `json:"start"`
	Run     string `json:"run"`
	Stage   string `json:"stage"`
	Attempt int    `json:"attempt"`
	Command string `json:"command"`
}

// record writes g durably into dir as PGID.json (atomicfile: a temp file,
// fsynced, renamed into place, the directory fsynced). On an error no
// record is left.
func (g group) record(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	b, err := json.Marshal(g)
	if err != nil {
		return "", err
	}
	name := filepath.Join(dir, strconv.Itoa(g.PGID)+".json")
	if err := atomicfile.Write(name, b, atomicfile.Options{Durable: true}); err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// statLine is what /proc/PID/stat says of a process: its state, process
// group and start time.
type statLine struct {
	state byte
	pgrp  int
	start uint64
}

// readStat reads /proc/PID/stat; fs.ErrNotExist when there is no such
// process.
func readStat(pid int) (statLine, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return statLine{}, err
	}
	return parseStat(b)
}

// parseStat parses a /proc/PID/stat line: "pid (comm) state ppid pgrp …",
// the start time the 22nd field. comm may hold spaces and parentheses:
// the fields start after the last ')'.
func parseStat(b []byte) (statLine, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return statLine{}, fmt.Errorf("no command name in %q", b)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return statLine{}, fmt.Errorf("%d fields after the command name in %q", len(f), b)
	}
	pgrp, err1 := strconv.Atoi(f[2])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return statLine{}, fmt.Errorf("stat %q: %w", b, err)
	}
	return statLine{state: f[0][0], pgrp: pgrp, start: start}, nil
}

// alive lists the processes of group pgid that have not exited (zombies,
// which run no more code, left out).
func alive(pgid int) ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := readStat(pid)
		if err != nil || st.pgrp != pgid || st.state == 'Z' || st.state == 'X' {
			continue
		}
		out = append(out, pid)
	}
	return out, nil
}

// Leftover is a process group an earlier lunad recorded (Options.Groups)
// whose command was still running: EndLeftovers killed it.
type Leftover struct {
	PGID    int
	Run     string
	Stage   string
	Attempt int
	Command string
	// Processes is how many of the group's processes were alive.
	Processes int
}

// leftoverWait bounds how long EndLeftovers waits for a killed group's
// processes to exit.
const leftoverWait = 10 * time.Second

// EndLeftovers ends the process groups recorded in dir by the agents of
// an earlier lunad (Options.Groups) that are still running — the
// commands of a daemon that was SIGKILLed or crashed — and removes every
// record. A group is ended only if it is the one recorded: its leader
// alive with the recorded start time, or its leader gone and other
// members left (a group's ID is not reused while it has members); a
// process that reused the ID is left alone. Each group is sent SIGKILL
// and waited for until none of its processes runs (at most 10s, or ctx),
// so that none writes anything after EndLeftovers returns. Call it before
// any agent of dir runs. It returns the groups it ended; an error names
// a group that did not end, or a record it could not read or remove.
func EndLeftovers(ctx context.Context, dir string) ([]Leftover, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var (
		out  []Leftover
		errs []error
	)
	for _, name := range names {
		l, ended, err := endLeftover(ctx, name)
		if err != nil {
			errs = append(errs, fmt.Errorf("agent process group of %s: %w", name, err))
			continue
		}
		if ended {
			out = append(out, l)
		}
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

// endLeftover ends the group recorded in file name, if it is still there.
func endLeftover(ctx context.Context, name string) (Leftover, bool, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return Leftover{}, false, err
	}
	var g group
	if err := json.Unmarshal(b, &g); err != nil || g.PGID <= 1 {
		return Leftover{}, false, nil // torn or foreign: nothing to end, the record goes
	}
	l := Leftover{PGID: g.PGID, Run: g.Run, Stage: g.Stage, Attempt: g.Attempt, Command: g.Command}
	leader, err := readStat(g.PGID)
	switch {
	case err == nil && leader.start != g.Start:
		return l, false, nil // the ID was reused: not the group recorded
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return l, false, err
	}
	pids, err := alive(g.PGID)
	if err != nil || len(pids) == 0 {
		return l, false, err
	}
	l.Processes = len(pids)
	if err := unix.Kill(-g.PGID, syscall.SIGKILL); err != nil && !errors.Is(err, unix.ESRCH) {
		return l, false, fmt.Errorf("kill process group %d: %w", g.PGID, err)
	}
	deadline := time.NewTimer(leftoverWait)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		pids, err := alive(g.PGID)
		if err != nil {
			return l, true, err
		}
		if len(pids) == 0 {
			return l, true, nil
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			return l, true, fmt.Errorf("process group %d (run %s, stage %s) still has processes %v %v after SIGKILL", g.PGID, g.Run, g.Stage, pids, leftoverWait)
		case <-ctx.Done():
			return l, true, ctx.Err()
		}
	}
}

// resolve is the program argv0 names, found as exec.Command would find
// it from dir, the command's working directory: a name without a slash
// on PATH, a path (relative to dir) as it is. The errors are exec's and
// fs's, so that a command that cannot run fails at once and for good, not
// in the gate.
func resolve(argv0, dir string) (string, error) {
	if !strings.Contains(argv0, "/") {
		return exec.LookPath(argv0)
	}
	full := argv0
	if !filepath.IsAbs(full) {
		full = filepath.Join(dir, argv0)
	}
	fi, err := os.Stat(full)
	if err != nil {
		return "", err
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return "", &fs.PathError{Op: "exec", Path: argv0, Err: fs.ErrPermission}
	}
	return argv0, nil
}
