package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestVersion: lunad says which build it is — `lunad --version` and the
// MCP server's serverInfo — as the go tool reads the binary's build
// information: the commit it was built from, +dirty when the checkout had
// changes, or dev for a build without a stamp (GOFLAGS=-buildvcs=false, a
// linked git worktree).
func TestVersion(t *testing.T) {
	want := stamped(t, lunadBin)

	out, err := exec.Command(lunadBin, "--version").Output()
	if err != nil || string(out) != "lunad "+want+"\n" {
		t.Errorf("lunad --version = %q, %v; want %q", out, err, "lunad "+want+"\n")
	}

	w, _ := newWSWith(t, "a.md", "alpha\n")
	cmd := exec.Command(lunadBin, "--dir", w.dir, "mcp")
	cmd.Env = env(w.home, "LUNAD_IDLE_TIMEOUT=2s")
	// stdin stays open until the answer is read, as a client keeps it:
	// the server ends at its end, abandoning what it has not answered.
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	defer func() {
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("lunad mcp did not exit after stdin closed")
		}
	}()
	go func() { cmd.Wait(); close(done) }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	stdin.Close()
	var msg struct {
		Result struct {
			ServerInfo struct{ Name, Version string } `json:"serverInfo"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &msg); err != nil {
		t.Fatalf("initialize: %q: %v", line, err)
	}
	if got := msg.Result.ServerInfo; got.Name != "lunad" || got.Version != want {
		t.Errorf("serverInfo = %+v, want lunad %s", got, want)
	}
}

// stamped is the version the go tool reads in binary's build information
// (`go version -m`): its module version, else its VCS revision's first 12
// characters with +dirty when modified, else dev.
func stamped(t *testing.T, binary string) string {
	out, err := exec.Command("go", "version", "-m", binary).Output()
	if err != nil {
		t.Fatal(err)
	}
	var mod, rev, modified string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "mod":
			mod = f[2]
		case len(f) == 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs.revision="):
			rev = strings.TrimPrefix(f[1], "vcs.revision=")
		case len(f) == 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs.modified="):
			modified = strings.TrimPrefix(f[1], "vcs.modified=")
		}
	}
	switch {
	case mod != "" && mod != "(devel)":
		return mod
	case rev == "":
		return "dev"
	case modified == "true":
		return rev[:min(12, len(rev))] + "+dirty"
	}
	return rev[:min(12, len(rev))]
}
