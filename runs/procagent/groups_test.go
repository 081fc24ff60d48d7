package procagent

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestGroupRecorded: with Options.Groups, the command's process group is
// recorded before the command runs — the command itself reads its record
// — and the record is removed once the group is dead.
func TestGroupRecorded(t *testing.T) {
	t.Parallel()
	root, groups := t.TempDir(), t.TempDir()
	argv := writeScript(t, root, "agent.sh", `printf '{"status":"ok","output":{"pid":%s,"record":%s}}' $$ "$(cat "$1/$$.json")"`)
	resp, err := newAgent(t, root, append(argv, groups), Options{Groups: groups}).Process(context.Background(), testRequest)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		PID    int
		Record group
	}
	if err := json.Unmarshal(resp.Output, &out); err != nil {
		t.Fatalf("output %s: %v", resp.Output, err)
	}
	want := group{PGID: out.PID, Start: out.Record.Start, Run: "run-1", Stage: "draft", Attempt: 2, Command: "/bin/sh"}
	if out.Record != want || out.Record.Start == 0 {
		t.Fatalf("the record the command read: %+v, want %+v", out.Record, want)
	}
	if left, _ := filepath.Glob(filepath.Join(groups, "*")); len(left) != 0 {
		t.Fatalf("left in the groups directory: %v", left)
	}
}

// TestGateUnopened: a gate whose pipe closes without a line — the lunad
// that started it died before it recorded the group — exits 125 and runs
// nothing.
func TestGateUnopened(t *testing.T) {
	t.Parallel()
	mark := filepath.Join(t.TempDir(), "ran")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", gateScript, "lunad-agent", "/bin/sh", "-c", `echo ran > "$0"`, mark)
	cmd.ExtraFiles = []*os.File{r}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	w.Close()
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 125 {
		t.Fatalf("the gate ended with %v, want exit status 125", err)
	}
	if _, err := os.Stat(mark); !os.IsNotExist(err) {
		t.Fatalf("the command ran: %v", err)
	}
}

// TestEndLeftovers: EndLeftovers kills a recorded group that still runs
// — its leader alive with the recorded start time, or its leader gone
// and a member left — and waits until none of its processes runs; a
// process that reused the ID (another start time), a group that is gone
// and a torn record are left alone; every record is removed.
func TestEndLeftovers(t *testing.T) {
	t.Parallel()
	// start runs script in a group of its own and returns once it has
	// printed "ready": each script does so when its group has every
	// process it will have (a shell forks its children when it gets to
	// them, so counting earlier races with it).
	start := func(t *testing.T, script string) *exec.Cmd {
		t.Helper()
		cmd := exec.Command("/bin/sh", "-c", script)
		setGroup(cmd)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { killGroup(cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
		if line, err := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
			t.Fatalf("the script printed %q (%v), want ready", line, err)
		}
		return cmd
	}
	startTime := func(t *testing.T, pid int) uint64 {
		t.Helper()
		st, err := readStat(pid)
		if err != nil {
			t.Fatal(err)
		}
		return st.start
	}
	for _, tc := range []struct {
		name string
		// setup starts what the record names and returns the record, or
		// its raw text, and the group's ID
		setup func(t *testing.T) (g group, raw string)
		ended bool
	}{
		{"leader running", func(t *testing.T) (group, string) {
			cmd := start(t, "sleep 300 & echo ready; exec sleep 300")
			return group{PGID: cmd.Process.Pid, Start: startTime(t, cmd.Process.Pid), Run: "r1", Stage: "s"}, ""
		}, true},
		{"leader gone, a member left", func(t *testing.T) (group, string) {
			cmd := start(t, "sleep 300 & echo ready")
			st := startTime(t, cmd.Process.Pid)
			cmd.Wait() // the leader exits and is reaped; its background sleep stays in the group
			if len(liveInGroup(cmd.Process.Pid)) != 1 {
				t.Fatalf("the group holds %v, want the sleep", liveInGroup(cmd.Process.Pid))
			}
			return group{PGID: cmd.Process.Pid, Start: st, Run: "r2", Stage: "s"}, ""
		}, true},
		{"id reused", func(t *testing.T) (group, string) {
			cmd := start(t, "echo ready; exec sleep 300")
			return group{PGID: cmd.Process.Pid, Start: startTime(t, cmd.Process.Pid) + 1, Run: "r3", Stage: "s"}, ""
		}, false},
		{"gone", func(t *testing.T) (group, string) {
			cmd := start(t, "echo ready")
			st := startTime(t, cmd.Process.Pid)
			cmd.Wait()
			return group{PGID: cmd.Process.Pid, Start: st, Run: "r4", Stage: "s"}, ""
		}, false},
		{"torn record", func(t *testing.T) (group, string) { return group{PGID: 123456789}, `{"pgid": 12` }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			g, raw := tc.setup(t)
			if raw == "" {
				if _, err := g.record(dir); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(filepath.Join(dir, "123456789.json"), []byte(raw), 0o600); err != nil {
				t.Fatal(err)
			}
			before := liveInGroup(g.PGID)
			got, err := EndLeftovers(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if tc.ended {
				if len(got) != 1 || got[0].PGID != g.PGID || got[0].Run != g.Run || got[0].Processes != len(before) || len(before) == 0 {
					t.Fatalf("ended %+v, want group %d of run %s with its %d processes", got, g.PGID, g.Run, len(before))
				}
				if live := liveInGroup(g.PGID); len(live) != 0 {
					t.Fatalf("processes %v of the group still run", live)
				}
			} else {
				if len(got) != 0 {
					t.Fatalf("ended %+v, want none", got)
				}
				if after := liveInGroup(g.PGID); !slices.Equal(after, before) {
					t.Fatalf("the group's processes were %v, are %v: it was touched", before, after)
				}
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
				t.Fatalf("records left: %v", left)
			}
		})
	}
}

// TestParseStat: a /proc/PID/stat line whose command name holds spaces
// and parentheses is read from after its last ')'; a short one is an
// error.
func TestParseStat(t *testing.T) {
	fields := " 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 424242 20 21"
	for _, tc := range []struct {
		name, line string
		want       statLine
		err        string
	}{
		{"plain", "77 (sleep) S 1 77 77" + fields[len(" 1 2 3"):], statLine{state: 'S', pgrp: 77, start: 424242}, ""},
		{"odd name", "77 (a) b (c)) R 1 90 90" + fields[len(" 1 2 3"):], statLine{state: 'R', pgrp: 90, start: 424242}, ""},
		{"short", "77 (sleep) S 1 77", statLine{}, "fields after the command name"},
		{"no name", "77 sleep S", statLine{}, "no command name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseStat([]byte(tc.line))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("%+v, want %+v", got, tc.want)
			}
		})
	}
}

// FuzzParseStat: any line parses or fails without a panic.
func FuzzParseStat(f *testing.F) {
	f.Add([]byte("77 (sleep) S 1 77 77 0 -1 4194304 97 0 0 0 0 0 0 0 20 0 1 0 424242 8192 1 18446744073709551615"))
	f.Add([]byte("1 (a) b)) Z"))
	f.Add([]byte(")"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if st, err := parseStat(b); err == nil && st.state == 0 {
			t.Fatalf("%q parsed to %+v", b, st)
		}
	})
}
