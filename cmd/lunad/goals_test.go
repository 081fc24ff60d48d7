package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/policy"
	"github.com/lunad/lunad/sandbox"
)

// TestGoalHost: the goal's commands and policy as the daemon hosts them —
// the policy file read again when it changes (a decision follows the
// edit at once), its limits and read-only paths applied to each command
// run in the real sandbox, lunad's home for the commands, and a policy
// file that does not check denying every action and running no command.
func TestGoalHost(t *testing.T) {
	ctx := context.Background()
	root := agentsRoot(t, "")
	home := t.TempDir()
	h := newGoalHost(root, envOf("LUNAD_SANDBOX_HOME", home), slog.New(slog.NewTextHandler(io.Discard, nil)))
	writePolicy := func(text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, ".luna", "policy.toml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	curl := policy.Action{Tool: "run_command", Argv: []string{"curl", "https://example.com"}}
	if d := h.Check(root, curl); d.Verdict != policy.Deny || d.Rule != "no-network" {
		t.Fatalf("the default policy: %+v", d)
	}
	writePolicy("network = true\n")
	if d := h.Check(root, curl); d.Verdict != policy.Allow {
		t.Fatalf("after network = true: %+v", d)
	}

	// The policy's limits and read-only paths reach the sandbox.
	writePolicy("read_only = [\"vendor\"]\n\n[limits]\noutput = \"1KiB\"\n")
	if err := os.MkdirAll(filepath.Join(root, "vendor"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(script string) sandbox.Result {
		t.Helper()
		res, err := h.Run(ctx, sandbox.Spec{Argv: []string{"/bin/sh", "-c", script}, Root: root, Dir: root})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := run("head -c 10000 /dev/zero; echo; echo $HOME"); res.ExitCode != 0 || !res.Sandboxed || res.Stdout.Cut == 0 || !strings.HasSuffix(strings.TrimSpace(res.Stdout.Text), home) {
		t.Errorf("output capped at 1KiB, HOME lunad's: %+v", res)
	}
	if res := run("echo x > vendor/a"); res.ExitCode == 0 {
		t.Errorf("vendor is read-only by the policy, yet a command wrote into it: %+v", res)
	}
	if res := run("echo x > ok.txt"); res.ExitCode != 0 {
		t.Errorf("the workspace is writable: %+v", res)
	}

	// A read-only path a command made a symbolic link (to a directory
	// outside the worktree): no command runs, or the sandbox would bind
	// the link's target, with its secret, at vendor.
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "vendor")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "vendor")); err != nil {
		t.Fatal(err)
	}
	leak, err := h.Run(ctx, sandbox.Spec{Argv: []string{"cat", "vendor/secret"}, Root: root, Dir: root})
	if err == nil || !strings.Contains(err.Error(), "vendor, which commands see read-only, is a symbolic link") || strings.Contains(leak.Stdout.Text, "s3cret") {
		t.Errorf("a command with vendor a link outside: %+v, %v", leak, err)
	}
	os.Remove(filepath.Join(root, "vendor"))

	// A policy file that does not check: every action denied, no command run.
	writePolicy("netwrok = true\n")
	if d := h.Check(root, policy.Action{Tool: "read_artifact", Paths: []string{"a.md"}}); d.Verdict != policy.Deny || d.Rule != "policy-file" || !strings.Contains(d.Reason, `unknown key "netwrok"`) {
		t.Fatalf("a policy that does not check: %+v", d)
	}
	_, err = h.Run(ctx, sandbox.Spec{Argv: []string{"true"}, Root: root, Dir: root})
	if !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), ".luna/policy.toml does not check, so no goal runs until it is fixed") {
		t.Fatalf("a command under a policy that does not check: %v", err)
	}
	if err := h.preflight(ctx, lunad.StageRequest{RunID: "R1"}); err == nil || !strings.Contains(err.Error(), "then resume the goal with lunad run retry R1") {
		t.Fatalf("preflight: %v", err)
	}
}
