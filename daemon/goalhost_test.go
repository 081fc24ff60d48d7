package daemon

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
	"github.com/lunad/lunad/agents/policy"
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
	h := NewGoalHost(root, envOf("LUNAD_SANDBOX_HOME", home), slog.New(slog.NewTextHandler(io.Discard, nil)))
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
	if res := run("head -c 10000 /dev/zero; echo; echo $HOME"); res.ExitCode != 0 || !res.Sandboxed || res.Stdout.Cut == 0 || !strings.Contains(res.Stdout.Text, "\n"+filepath.Join(home, goalHomesDir)+"/") {
		t.Errorf("output capped at 1KiB, HOME the goal's own under lunad's: %+v", res)
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

// TestGoalHomes: goal A plants a usercustomize.py in its commands' home,
// which every later python of A runs; goal B's python (its tests, its
// commands) does not see it: each goal has a home of its own, and a
// finished goal's is removed.
func TestGoalHomes(t *testing.T) {
	ctx := context.Background()
	root := agentsRoot(t, "")
	home := t.TempDir()
	h := NewGoalHost(root, envOf("LUNAD_SANDBOX_HOME", home), slog.New(slog.NewTextHandler(io.Discard, nil)))
	goalA, goalB := filepath.Join(t.TempDir(), "goal-a"), filepath.Join(t.TempDir(), "goal-b")
	for _, d := range []string{goalA, goalB} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run := func(worktree string, argv ...string) sandbox.Result {
		t.Helper()
		res, err := h.Run(ctx, sandbox.Spec{Argv: argv, Root: worktree, Dir: worktree})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	const plant = "import os, site; d = site.getusersitepackages(); os.makedirs(d, exist_ok=True); open(os.path.join(d, 'usercustomize.py'), 'w').write('print(\"PLANTED\")')"
	if res := run(goalA, "python3", "-c", plant); res.ExitCode != 0 {
		t.Fatalf("goal A's plant: %+v", res)
	}
	if res := run(goalA, "python3", "-c", "print('a')"); !strings.Contains(res.Stdout.Text, "PLANTED") {
		t.Fatalf("the plant does not run in goal A's own later commands (%q), so the test shows nothing", res.Stdout.Text)
	}
	if res := run(goalB, "python3", "-c", "print('b')"); res.Stdout.Text != "b\n" {
		t.Errorf("goal B's python ran goal A's plant: stdout %q", res.Stdout.Text)
	}
	if err := os.RemoveAll(goalA); err != nil {
		t.Fatal(err)
	}
	NewGoalHost(root, envOf("LUNAD_SANDBOX_HOME", home), slog.New(slog.NewTextHandler(io.Discard, nil)))
	left, _ := filepath.Glob(filepath.Join(home, goalHomesDir, "*"))
	if len(left) != 2 { // goal B's home and its .worktree
		t.Errorf("after goal A's worktree is gone, the homes are %q; want goal B's alone", left)
	}
}

// TestGoalHostHidesDenied: the paths a [[deny]] rule of the policy
// forbids reading (docs/goals.md's no-secrets example) cannot be read by
// a goal's command through grep -r or cat, though the policy's checks
// never see what a shell script or a program reads.
func TestGoalHostHidesDenied(t *testing.T) {
	ctx := context.Background()
	root := agentsRoot(t, "")
	policyText := "[[deny]]\nname = \"no-secrets\"\npaths = [\"config/secrets\", \"*.pem\"]\nreason = \"secrets stay out of the model's context\"\n"
	if err := os.WriteFile(filepath.Join(root, ".luna", "policy.toml"), []byte(policyText), 0o644); err != nil {
		t.Fatal(err)
	}
	h := NewGoalHost(root, envOf("LUNAD_SANDBOX_HOME", t.TempDir()), slog.New(slog.NewTextHandler(io.Discard, nil)))
	worktree := t.TempDir()
	for path, data := range map[string]string{"config/secrets/prod.env": "SECRET=1", "keys/deploy.pem": "SECRET KEY", "main.go": "package main"} {
		p := filepath.Join(worktree, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, argv := range [][]string{{"grep", "-r", "SECRET", "."}, {"cat", "keys/deploy.pem", "config/secrets/prod.env", "main.go"}} {
		res, err := h.Run(ctx, sandbox.Spec{Argv: argv, Root: worktree, Dir: worktree})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Stdout.Text, "SECRET") {
			t.Errorf("%q read a denied path: %q", argv, res.Stdout.Text)
		}
		if argv[0] == "cat" && !strings.Contains(res.Stdout.Text, "package main") {
			t.Errorf("%q: the rest of the worktree is not readable: %+v", argv, res)
		}
	}
}

// TestDescribeRootWithoutLandlock: a goal's report says loudly that its
// commands ran as root without Landlock, and when there is no seccomp
// filter.
func TestDescribeRootWithoutLandlock(t *testing.T) {
	h := NewGoalHost(agentsRoot(t, ""), envOf("LUNAD_SANDBOX_HOME", t.TempDir()), slog.New(slog.NewTextHandler(io.Discard, nil)))
	h.probeOnce.Do(func() {})
	h.caps = sandbox.Capabilities{Bwrap: "/usr/bin/bwrap", BwrapVersion: "0.8.0", Namespaces: true, Network: true, Hardened: true, Root: true,
		LandlockError: "the kernel has none", SeccompError: "no filter for riscv64", ProcessLimit: sandbox.LimitCgroupV1, MemoryLimit: sandbox.LimitRlimit}
	d := h.describe(context.Background())
	for _, want := range []string{"ROOT WITHOUT LANDLOCK", `root_without_landlock = "warn"`, "NO seccomp filter (no filter for riscv64)", "memory by rlimit"} {
		if !strings.Contains(d, want) {
			t.Errorf("the goal's sandbox line %q lacks %q", d, want)
		}
	}
}
