package procagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

// TestProcess runs one real agent per case and checks what Process makes
// of it.
func TestProcess(t *testing.T) {
	t.Parallel()
	type want struct {
		resp      lunad.StageResponse
		err       string // "" for a response
		permanent bool
	}
	cases := []struct {
		name   string
		script string
		opts   Options
		want   want
	}{
		{
			name:   "ok with writes and output",
			script: `cat >/dev/null; printf '%s' '{"status":"ok","output":{"score": 0.9, "words":["a"]},"writes":[{"path":"notes/a.md","content":"hi\n","base":"0123456789abcdef0123456789abcdef01234567"},{"path":"b.txt","content":""}]}'`,
			want: want{resp: lunad.StageResponse{Status: "ok", Output: json.RawMessage(`{"score":0.9,"words":["a"]}`),
				Writes: []lunad.StageWrite{{Path: "notes/a.md", Content: "hi\n", Base: "0123456789abcdef0123456789abcdef01234567"}, {Path: "b.txt"}}}},
		},
		{
			name:   "ok without reading stdin, noise on stderr",
			script: `echo 'thinking…' >&2; echo '{"status":"ok"}'`,
			want:   want{resp: lunad.StageResponse{Status: "ok"}},
		},
		{
			name:   "fail",
			script: `echo '{"status":"fail","error":"the model is overloaded","output":{"retry":true}}'`,
			want:   want{resp: lunad.StageResponse{Status: "fail", Error: "the model is overloaded", Output: json.RawMessage(`{"retry":true}`)}},
		},
		{
			name:   "fail permanent",
			script: `echo '{"status":"fail","permanent":true,"error":"input is not markdown"}'`,
			want:   want{resp: lunad.StageResponse{Status: "fail", Permanent: true, Error: "input is not markdown"}},
		},
		{
			name:   "exit 3 with stderr",
			script: `echo 'Traceback: boom' >&2; exit 3`,
			want:   want{err: "exit status 3; stderr: Traceback: boom"},
		},
		{
			name:   "exit 1 with a valid response",
			script: `echo '{"status":"ok"}'; exit 1`,
			want:   want{err: "exit status 1"},
		},
		{
			name:   "exit 1 without stderr",
			script: `exit 1`,
			want:   want{err: "exit status 1"},
		},
		{
			name:   "killed by signal",
			script: `echo 'about to crash' >&2; kill -9 $$`,
			want:   want{err: "killed by signal 9 (SIGKILL); stderr: about to crash"},
		},
		{
			name:   "segfault",
			script: `kill -SEGV $$`,
			want:   want{err: "killed by signal 11 (SIGSEGV)"},
		},
		{
			name:   "garbage on stdout",
			script: `echo 'xyz not json'`,
			want:   want{err: "stdout is not a JSON object: invalid character 'x' looking for beginning of value at offset 0"},
		},
		{
			name:   "two objects",
			script: `echo '{"status":"ok"} {"status":"ok"}'`,
			want:   want{err: "stdout is not a JSON object: invalid character '{' after top-level value at offset 16"},
		},
		{
			name:   "a JSON array",
			script: `echo '[{"status":"ok"}]'`,
			want:   want{err: "stdout is not a JSON object: it is an array"},
		},
		{
			name:   "truncated JSON",
			script: `printf '{"status":'`,
			want:   want{err: "stdout is not a JSON object: unexpected end of JSON input at offset 10"},
		},
		{
			name:   "printed nothing",
			script: `echo 'all done, I think' >&2`,
			want:   want{err: "printed nothing; stderr: all done, I think"},
		},
		{
			name:   "printed white space",
			script: `printf '  \n\t\n'`,
			want:   want{err: "printed nothing"},
		},
		{
			name:   "unknown status",
			script: `echo '{"status":"done"}'`,
			want:   want{err: `broke the agent contract: status "done" is neither "ok" nor "fail"`, permanent: true},
		},
		{
			name:   "no status",
			script: `echo '{"output":{}}'`,
			want:   want{err: `broke the agent contract: no "status"`, permanent: true},
		},
		{
			name:   "output not an object",
			script: `echo '{"status":"ok","output":"a summary"}'`,
			want:   want{err: `broke the agent contract: "output" is a string, not an object`, permanent: true},
		},
		{
			name:   "write with an empty path",
			script: `echo '{"status":"ok","writes":[{"path":"a","content":"x"},{"content":"x"}]}'`,
			want:   want{err: `broke the agent contract: writes[1] has an empty path`, permanent: true},
		},
		{
			name:   "permanent not a boolean",
			script: `echo '{"status":"fail","permanent":"yes"}'`,
			want:   want{err: `broke the agent contract: "permanent" is a string, not a boolean`, permanent: true},
		},
		{
			name:   "output over the cap",
			script: `printf '{"status":"ok","output":{"text":"%0200d"}}' 0`,
			opts:   Options{MaxOutput: 100},
			want:   want{err: "printed more than 100 bytes on stdout", permanent: true},
		},
		{
			name:   "output at the cap",
			script: `printf '{"status":"ok"}'`,
			opts:   Options{MaxOutput: 15},
			want:   want{resp: lunad.StageResponse{Status: "ok"}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			a := newAgent(t, root, writeScript(t, root, "agent.sh", c.script), c.opts)
			resp, err := a.Process(context.Background(), testRequest)
			if c.want.err == "" {
				if err != nil {
					t.Fatalf("Process: %v", err)
				}
				if !reflect.DeepEqual(resp, c.want.resp) {
					t.Errorf("response = %+v\nwant       %+v", resp, c.want.resp)
				}
				return
			}
			agentErr(t, err, c.want.permanent, c.want.err)
			if !reflect.DeepEqual(resp, lunad.StageResponse{}) {
				t.Errorf("response = %+v with an error, want none", resp)
			}
		})
	}
}

// TestLongStderr: a failure message quotes only the end of stderr.
func TestLongStderr(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	// 200 KB of stderr, more than is kept, ending in a marker.
	argv := writeScript(t, root, "agent.sh", `i=0; while [ $i -lt 200 ]; do printf '%01000d\n' 0 >&2; i=$((i+1)); done; echo 'the real cause' >&2; exit 2`)
	_, err := newAgent(t, root, argv, Options{}).Process(context.Background(), testRequest)
	agentErr(t, err, false, "exit status 2; stderr: …")
	if !strings.HasSuffix(err.Error(), "the real cause") {
		t.Errorf("err does not end with the end of stderr: …%s", err.Error()[max(0, len(err.Error())-40):])
	}
	if n := len(err.Error()); n > stderrTail+100 {
		t.Errorf("err is %d bytes long, want about %d", n, stderrTail)
	}
}

// TestCommandMissing: a command that cannot start is a permanent failure.
func TestCommandMissing(t *testing.T) {
	t.Parallel()
	for _, argv := range [][]string{{"no-such-agent-command"}, {"./agents/missing.sh"}, {"./agents"}} {
		for _, gated := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/groups %v", argv[0], gated), func(t *testing.T) {
				t.Parallel()
				root := t.TempDir()
				os.Mkdir(filepath.Join(root, "agents"), 0o755)
				var opts Options
				if gated {
					opts.Groups = t.TempDir()
				}
				_, err := newAgent(t, root, argv, opts).Process(context.Background(), testRequest)
				agentErr(t, err, true, "cannot start")
			})
		}
	}
}

// TestStdin: the agent gets the request's JSON exactly, with empty
// collections rather than null.
func TestStdin(t *testing.T) {
	t.Parallel()
	echo := `import sys, json
print(json.dumps({"status": "ok", "output": {"stdin": sys.stdin.read()}}))`
	empty := lunad.StageRequest{RunID: "r", Stage: "s", Attempt: 1}
	large := testRequest
	large.Params = map[string]string{"big": strings.Repeat("ab\n", 40<<10)} // > a pipe's buffer
	cases := []struct {
		name string
		req  lunad.StageRequest
		want string
	}{
		{"full", testRequest, mustJSON(t, testRequest)},
		{"large", large, mustJSON(t, large)},
		{"empty collections", empty, `{"run_id":"r","correlation_id":"","stage":"s","attempt":1,"workflow":"","workflow_version":"","idempotency_key":"","inputs":[],"params":{},"outputs":{},"visit":0}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			resp, err := newAgent(t, root, pythonArgv(t, echo), Options{}).Process(context.Background(), c.req)
			if err != nil {
				t.Fatal(err)
			}
			var out struct{ Stdin string }
			if err := json.Unmarshal(resp.Output, &out); err != nil {
				t.Fatal(err)
			}
			if out.Stdin != c.want {
				t.Errorf("stdin = %s\nwant    %s", out.Stdin, c.want)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEnvironment: the agent runs in the workspace with a minimal
// environment: no secret of the parent's leaks. (Not parallel: Setenv.)
func TestEnvironment(t *testing.T) {
	t.Setenv("PROCAGENT_TEST_SECRET", "hunter2")
	t.Setenv("PROCAGENT_TEST_PASSED", "passed through")
	root := t.TempDir()
	show := `import os, json
print(json.dumps({"status": "ok", "output": {"env": dict(os.environ), "cwd": os.getcwd()}}))`
	a := newAgent(t, root, pythonArgv(t, show), Options{Env: []string{"EXTRA=1", "PROCAGENT_TEST_PASSED", "PROCAGENT_TEST_UNSET"}})
	resp, err := a.Process(context.Background(), testRequest)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Env map[string]string
		Cwd string
	}
	if err := json.Unmarshal(resp.Output, &out); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"LUNAD_RUN_ID":          "run-1",
		"LUNAD_STAGE":           "draft",
		"LUNAD_ATTEMPT":         "2",
		"LUNAD_WORKSPACE":       a.root,
		"EXTRA":                 "1",
		"PROCAGENT_TEST_PASSED": "passed through",
	}
	for _, name := range []string{"PATH", "HOME", "LANG", "TMPDIR"} {
		if v, ok := os.LookupEnv(name); ok {
			want[name] = v
		}
	}
	got := out.Env
	delete(got, "LC_CTYPE") // python sets it in a C locale (PEP 538)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("environment = %v\nwant          %v", got, want)
	}
	if _, leaked := got["PROCAGENT_TEST_SECRET"]; leaked {
		t.Error("the secret leaked into the agent's environment")
	}
	if cwd, _ := filepath.EvalSymlinks(out.Cwd); cwd != mustEval(t, root) {
		t.Errorf("working directory = %s, want the workspace %s", out.Cwd, root)
	}
}

// TestWorktreeDir: an isolated run's request names its worktree, where
// the command runs; LUNAD_WORKSPACE still names the workspace.
func TestWorktreeDir(t *testing.T) {
	root, wt := t.TempDir(), t.TempDir()
	show := `import os, json
print(json.dumps({"status": "ok", "output": {"cwd": os.getcwd(), "ws": os.environ["LUNAD_WORKSPACE"]}}))`
	a := newAgent(t, root, pythonArgv(t, show), Options{})
	req := testRequest
	req.Branch, req.Dir = "luna/review/run-1", wt
	resp, err := a.Process(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Cwd, Ws string }
	if err := json.Unmarshal(resp.Output, &out); err != nil {
		t.Fatal(err)
	}
	if cwd, _ := filepath.EvalSymlinks(out.Cwd); cwd != mustEval(t, wt) || out.Ws != a.root {
		t.Fatalf("ran in %s with LUNAD_WORKSPACE=%s; want %s and %s", out.Cwd, out.Ws, wt, a.root)
	}
}

func mustEval(t *testing.T, path string) string {
	t.Helper()
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTimeout: the timeout ends the whole group, SIGTERM then SIGKILL,
// whether it comes from Options or ctx (the earlier wins).
func TestTimeout(t *testing.T) {
	t.Parallel()
	const grace = 300 * time.Millisecond
	cases := []struct {
		name     string
		script   string
		timeout  time.Duration // Options.Timeout
		deadline time.Duration // ctx's, 0 for none
		want     string
	}{
		{"options", `sleep 60`, 300 * time.Millisecond, 0, "timed out after 300ms"},
		{"ctx deadline", `sleep 60`, 0, 300 * time.Millisecond, "timed out after 300ms"},
		{"options earlier", `sleep 60`, 200 * time.Millisecond, 10 * time.Second, "timed out after 200ms"},
		{"ctx earlier", `sleep 60`, 10 * time.Second, 200 * time.Millisecond, "timed out after 200ms"},
		// Ignoring SIGTERM (the sleep inherits it) earns a SIGKILL.
		{"ignores SIGTERM", `trap '' TERM; sleep 60`, 200 * time.Millisecond, 0, "timed out after 200ms"},
		{"stderr quoted", `echo 'waiting for the model' >&2; sleep 60`, 200 * time.Millisecond, 0, "timed out after 200ms; stderr: waiting for the model"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			argv := writeScript(t, root, "agent.sh", `echo $$ > "$LUNAD_WORKSPACE/pid"; `+c.script)
			a := newAgent(t, root, argv, Options{Timeout: c.timeout, KillGrace: grace})
			ctx := context.Background()
			if c.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, c.deadline)
				defer cancel()
			}
			start := time.Now()
			_, err := a.Process(ctx, testRequest)
			took := time.Since(start)
			limit := min(c.timeout, c.deadline)
			if c.timeout == 0 || c.deadline == 0 {
				limit = max(c.timeout, c.deadline)
			}
			// A deadline from ctx has run a little by the time Process
			// reads it.
			if c.deadline == limit {
				if m := regexp.MustCompile(`^timed out after ([0-9.]+ms)`).FindStringSubmatch(err.Error()); m != nil {
					if d, _ := time.ParseDuration(m[1]); d <= limit && d > limit-50*time.Millisecond {
						c.want = strings.Replace(c.want, limit.String(), m[1], 1)
					}
				}
			}
			agentErr(t, err, false, c.want)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v does not match context.DeadlineExceeded", err)
			}
			if c.name == "ignores SIGTERM" && took < limit+grace {
				t.Errorf("Process took %v: the SIGKILL came before the grace ran out", took)
			}
			if took > limit+grace+time.Second {
				t.Errorf("Process took %v, want at most the timeout %v + the grace %v", took, limit, grace)
			}
			groupGone(t, readPID(t, filepath.Join(root, "pid")))
		})
	}
}

// TestCancel: cancelling ctx kills the group and returns ctx.Err().
func TestCancel(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	argv := writeScript(t, root, "agent.sh", `echo $$ > "$LUNAD_WORKSPACE/pid"; sleep 60`)
	a := newAgent(t, root, argv, Options{Timeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := a.Process(ctx, testRequest)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	var ae *lunad.AgentError
	if errors.As(err, &ae) {
		t.Errorf("err = %v is an AgentError; a cancellation is not the agent's failure", err)
	}
	if took := time.Since(start); took > 300*time.Millisecond+DefaultKillGrace+time.Second {
		t.Errorf("Process took %v", took)
	}
	groupGone(t, readPID(t, filepath.Join(root, "pid")))

	// Cancelled before: nothing runs.
	_, err = a.Process(ctx, testRequest)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Process with a cancelled ctx: %v, want context.Canceled", err)
	}
}

// TestForkedChild: an agent that forks a child (holding its stdout) and
// exits neither keeps Process waiting nor leaves the child running.
func TestForkedChild(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	argv := writeScript(t, root, "agent.sh", `sleep 60 & echo $! > "$LUNAD_WORKSPACE/child"; echo '{"status":"ok"}'`)
	start := time.Now()
	resp, err := newAgent(t, root, argv, Options{Timeout: 30 * time.Second}).Process(context.Background(), testRequest)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Process took %v: it waited for the child", took)
	}
	if resp.Status != "ok" {
		t.Errorf("status = %q", resp.Status)
	}
	waitGone(t, readPID(t, filepath.Join(root, "child")))
}

// TestEscapedChild: a descendant that leaves the group (setsid) and holds
// stdout keeps Process waiting only briefly.
func TestEscapedChild(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	argv := writeScript(t, root, "agent.sh", `setsid sh -c 'echo $$ > "$LUNAD_WORKSPACE/child"; exec sleep 60' &
while [ ! -s "$LUNAD_WORKSPACE/child" ]; do sleep 0.01; done
echo '{"status":"ok"}'`)
	start := time.Now()
	resp, err := newAgent(t, root, argv, Options{}).Process(context.Background(), testRequest)
	child := readPID(t, filepath.Join(root, "child"))
	defer syscall.Kill(child, syscall.SIGKILL)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > pipeWait+2*time.Second {
		t.Errorf("Process took %v", took)
	}
	if resp.Status != "ok" {
		t.Errorf("status = %q", resp.Status)
	}
}

// TestHugeOutput: an agent printing 100 MB, or forever, is stopped at the
// cap without the rest being read into memory. (Not parallel: it measures
// the allocations.)
func TestHugeOutput(t *testing.T) {
	cases := []struct {
		name   string
		script string
		max    int64
		want   string
	}{
		{"100 MB", `head -c 104857600 /dev/zero`, 0, "printed more than 16 MiB on stdout"},
		{"forever", `yes '{"status":"ok"}'`, 1 << 20, "printed more than 1 MiB on stdout"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			a := newAgent(t, root, writeScript(t, root, "agent.sh", c.script), Options{MaxOutput: c.max})
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := a.Process(context.Background(), testRequest)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			agentErr(t, err, true, c.want)
			if took > 10*time.Second {
				t.Errorf("Process took %v", took)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 40<<20 {
				t.Errorf("Process allocated %d MiB", alloc>>20)
			}
		})
	}
}

// TestStdinUnread: an agent that does not read a request larger than a
// pipe's buffer neither blocks Process nor fails.
func TestStdinUnread(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	req := testRequest
	req.Params = map[string]string{"big": strings.Repeat("x", 1<<20)}
	resp, err := newAgent(t, root, writeScript(t, root, "agent.sh", `echo '{"status":"ok"}'`), Options{}).Process(context.Background(), req)
	if err != nil || resp.Status != "ok" {
		t.Fatalf("Process = %+v, %v", resp, err)
	}
}

// TestRelativeCommand: a command given relative to the workspace runs.
func TestRelativeCommand(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeScript(t, root, "agent.sh", `echo '{"status":"ok","output":{"n":1}}'`)
	for _, opts := range []Options{{}, {Groups: t.TempDir()}} {
		resp, err := newAgent(t, root, []string{"./agents/agent.sh"}, opts).Process(context.Background(), testRequest)
		if err != nil {
			t.Fatalf("groups %q: %v", opts.Groups, err)
		}
		if string(resp.Output) != `{"n":1}` {
			t.Errorf("groups %q: output = %s", opts.Groups, resp.Output)
		}
	}
}

// TestConcurrent: one agent serves concurrent calls.
func TestConcurrent(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	a := newAgent(t, root, writeScript(t, root, "agent.sh", `printf '{"status":"ok","output":{"stage":"%s"}}' "$LUNAD_STAGE"`), Options{})
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			req := testRequest
			req.Stage = fmt.Sprint("s", i)
			resp, err := a.Process(context.Background(), req)
			if err == nil && string(resp.Output) != fmt.Sprintf(`{"stage":"s%d"}`, i) {
				err = fmt.Errorf("output %s for stage s%d", resp.Output, i)
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
