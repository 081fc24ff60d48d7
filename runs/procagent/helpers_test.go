package procagent

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

// testRequest is a request with every field set.
var testRequest = lunad.StageRequest{
	RunID:           "run-1",
	CorrelationID:   "corr-1",
	Stage:           "draft",
	Attempt:         2,
	Workflow:        "review",
	WorkflowVersion: "1:3b18e512",
	IdempotencyKey:  "key-1",
	Inputs:          []lunad.ArtifactRef{{ID: "a1", Path: "notes/a.md", Version: 3, Commit: "0123abcd"}},
	Params:          map[string]string{"topic": "go", "tone": "dry \"quoted\" ünïcode"},
	Outputs:         map[string]json.RawMessage{"plan": json.RawMessage(`{"steps":2}`)},
}

// writeScript writes a shell script into the workspace root and returns
// the argv that runs it.
func writeScript(t *testing.T, root, name, body string) []string {
	t.Helper()
	path := filepath.Join(root, "agents", name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{"/bin/sh", filepath.Join("agents", name)}
}

// newAgent returns an agent, failing the test on error.
func newAgent(t *testing.T, root string, argv []string, opts Options) *Agent {
	t.Helper()
	a, err := New(root, argv, opts)
	if err != nil {
		t.Fatalf("New(%q): %v", argv, err)
	}
	return a
}

var python = sync.OnceValues(func() (string, error) {
	// The interpreter itself, not a shim (pyenv's adds variables to the
	// environment and costs a bash start).
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	return strings.TrimSpace(string(out)), err
})

// pythonArgv returns the argv that runs program with python3.
func pythonArgv(t *testing.T, program string) []string {
	t.Helper()
	py, err := python()
	if err != nil || py == "" {
		t.Skipf("no python3: %v", err)
	}
	return []string{py, "-c", program}
}

// agentErr asserts err is a *lunad.AgentError of the given permanence
// whose message contains want.
func agentErr(t *testing.T, err error, permanent bool, want string) {
	t.Helper()
	var ae *lunad.AgentError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v (%T), want a *lunad.AgentError", err, err)
	}
	if ae.Permanent != permanent {
		t.Errorf("Permanent = %v, want %v (err: %v)", ae.Permanent, permanent, err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("err = %q, want it to contain %q", err, want)
	}
}

// readPID reads a pid an agent wrote into a file, waiting for it a little.
func readPID(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil && pid > 0 {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s: %v", path, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitGone asserts that process pid is dead (gone or a zombie) within a
// second: killed processes are reaped by their new parent, not us.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for {
		if dead(pid) {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("process %d is still running", pid)
			syscall.Kill(pid, syscall.SIGKILL)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// groupGone asserts that no live process is left in group pgid within a
// second (zombies waiting for init to reap them count as dead).
func groupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for {
		live := liveInGroup(pgid)
		if len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes %v of the agent's group %d are still running", live, pgid)
			syscall.Kill(-pgid, syscall.SIGKILL)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// liveInGroup lists the processes of group pgid that are not zombies.
func liveInGroup(pgid int) []int {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return nil
	}
	live, _ := alive(pgid)
	return live
}

func dead(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	st, err := readStat(pid)
	return err != nil || st.state == 'Z'
}
