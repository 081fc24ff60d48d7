package goal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/goal"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/agents/policy"
	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/runs"
	"github.com/lunad/lunad/sandbox"
	"github.com/lunad/lunad/sandbox/shim/shimtest"
	"github.com/lunad/lunad/workspace"
)

// commands runs argv for real with os/exec in the spec's directory (no
// sandbox: the sandbox package has its own tests), in a process group
// ended at the spec's timeout, with a small fixed environment, its output
// capped. It counts what it runs, so a test can tell a replay ran
// nothing.
type commands struct {
	ran seen[[]string]
}

// goCache is the build cache of the go command the tests run under: a
// sample project's `go test` then compiles nothing but its own package.
var goCache = sync.OnceValue(func() string {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
})

func (c *commands) Run(ctx context.Context, s sandbox.Spec) (sandbox.Result, error) {
	if len(s.Argv) == 0 {
		return sandbox.Result{}, fmt.Errorf("%w: no argv", lunad.ErrInvalid)
	}
	if s.Dir != s.Root && !strings.HasPrefix(s.Dir, s.Root+"/") {
		return sandbox.Result{}, fmt.Errorf("%w: dir %s is outside root %s", lunad.ErrInvalid, s.Dir, s.Root)
	}
	c.ran.add(s.Argv)
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Argv[0], s.Argv[1:]...)
	cmd.Dir = s.Dir
	home := s.Home
	if home == "" {
		home = os.TempDir()
	}
	cmd.Env = []string{"PATH=/usr/local/go/bin:/usr/bin:/bin", "HOME=" + home, "LANG=C.UTF-8", "GOCACHE=" + goCache(), "GOPATH=" + filepath.Join(home, "gopath"),
		"GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "PYTHONDONTWRITEBYTECODE=1"}
	for k, v := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	res := sandbox.Result{Duration: time.Since(start), Sandboxed: true, Stdout: capped(out.Bytes(), s.Limits.Output), Stderr: capped(errb.Bytes(), s.Limits.Output)}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		res.ExitCode, res.Signal, res.Ended = -1, "SIGKILL", "timeout"
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	default:
		return sandbox.Result{}, err
	}
	return res, nil
}

func capped(b []byte, n int) sandbox.Output {
	if n <= 0 {
		n = 64 << 10
	}
	o := sandbox.Output{Text: string(b), Total: int64(len(b))}
	if len(b) > n {
		o.Text = string(b[:n/2]) + fmt.Sprintf("\n[… %d bytes cut …]\n", len(b)-n) + string(b[len(b)-n/2:])
		o.Cut = int64(len(b) - n)
	}
	return o
}

func (c *commands) count() int { return len(c.ran.all()) }

// checks is the real policy (the defaults and a confirm rule for rm),
// keeping the model's actions it was asked about.
type checks struct {
	p       *policy.Policy
	checked seen[policy.Action]
}

// testPolicy is the policy of the tests' workspaces.
const testPolicy = `[[confirm]]
name = "confirm-rm"
program = "rm"
reason = "rm deletes files"

[[deny]]
name = "no-vendor"
paths = ["vendor"]
writes = true
reason = "vendor is updated by the release script"
`

func newChecks(t *testing.T) *checks {
	t.Helper()
	p, err := policy.Parse("policy.toml", []byte(testPolicy))
	if err != nil {
		t.Fatal(err)
	}
	return &checks{p: p}
}

func (c *checks) Check(root string, a policy.Action) policy.Decision {
	if a.Tool != policy.ToolSearch || len(a.Paths) == 0 { // not search asking about each file it reads
		c.checked.add(a)
	}
	return c.p.Check(root, a)
}

func (c *checks) actions() []policy.Action { return c.checked.all() }

// seen keeps what a test double was given; safe for concurrent use.
type seen[T any] struct {
	mu    sync.Mutex
	items []T
}

func (s *seen[T]) add(v T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items = append(s.items, v)
}

func (s *seen[T]) all() []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]T(nil), s.items...)
}

// The real parts fit the goal's interfaces.
var (
	_ goal.Commands = (*sandbox.Runner)(nil)
	_ goal.Policy   = (*policy.Policy)(nil)
	_ goal.Symbols  = lunad.Workspace(nil)
)

// project is a sample project: its files and its test command.
type project struct {
	files map[string]string
	tests [][]string
}

var goProject = project{
	files: map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.21\n",
		"calc.go":      "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n\n// Mul returns the product of a and b.\nfunc Mul(a,b int) int { return a*b }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n\nfunc TestMul(t *testing.T) {\n\tif got := Mul(2, 3); got != 6 {\n\t\tt.Fatalf(\"Mul(2, 3) = %d, want 6\", got)\n\t}\n}\n",
	},
	tests: [][]string{{"go", "test", "./..."}},
}

var pyProject = project{
	files: map[string]string{
		"calc.py":      "def add(a, b):\n    return a - b\n",
		"test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
		"gen.py":       "from calc import add\n\nwith open('VERSION', 'w') as f:\n    f.write('1.%d\\n' % add(0, 1))\n",
	},
	tests: [][]string{{"/usr/bin/python3", "-m", "pytest", "-q", "-p", "no:cacheprovider"}},
}

// env is a real workspace (the service, its engine) with the goal
// workflow, a model, real commands and the test policy.
type env struct {
	t       *testing.T
	s       *workspace.Service
	agents  *goal.Agents
	cmds    *commands
	policy  *checks
	model   llm.Provider
	cfg     llm.Config
	confirm policy.Confirmer
	base    string // HEAD when the project was made

	mu       sync.Mutex
	worktree string // where the goal's stages work
}

type envOptions struct {
	memory memory.Options
	// project's files are committed before the goal starts.
	project project
	// sandboxed: commands and tests run in the real sandbox (bwrap,
	// Landlock beneath it), with userHome as the user's home it hides; disk is the goal's disk budget (0: the default).
	sandboxed bool
	userHome  string
	disk      int64
	// clock is the agents' clock (nil: ticking, a millisecond a reading).
	clock func() time.Time
}

func TestMain(m *testing.M) {
	removeShim := shimtest.Install() // lunad-shim next to this test binary, where the sandbox finds it
	code := m.Run()
	removeShim()
	os.Exit(code)
}

// sandboxRunner is the real sandbox, as lunad runs it (Landlock beneath
// bwrap where the kernel has it, this test binary as the shim); a host
// that cannot sandbox fails the test, saying why.
func sandboxRunner(t *testing.T, userHome string) *sandbox.Runner {
	t.Helper()
	caps := sandbox.Probe(context.Background())
	if !caps.Usable() {
		t.Fatalf("this host cannot sandbox commands (install bubblewrap: apt-get install bubblewrap):\n%s", caps)
	}
	r, err := sandbox.New(caps, sandbox.Options{UserHome: userHome})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func newEnv(t *testing.T, model llm.Provider, cfg llm.Config, o envOptions) *env {
	t.Helper()
	e := &env{t: t, s: wstest.NewService(t), cmds: &commands{}, policy: newChecks(t), model: model, cfg: cfg}
	for _, name := range sortedNames(o.project.files) {
		wstest.Create(t, e.s, name, o.project.files[name])
	}
	e.base = e.head()
	home := t.TempDir()
	var run goal.Commands = e.cmds
	tests := goal.HarnessTests(e.cmds)
	if o.sandboxed {
		r := sandboxRunner(t, o.userHome)
		run, tests = r, goal.HarnessTests(r)
	}
	clock := o.clock
	if clock == nil {
		clock = ticking()
	}
	a, err := goal.New(goal.Options{
		Providers: func(role string) (llm.Provider, llm.Config, error) {
			if role != goal.Role {
				return nil, llm.Config{}, fmt.Errorf("no model for role %q", role)
			}
			return e.model, e.cfg, nil
		},
		Commands: run, Tests: tests, Disk: o.disk, Policy: e.policy, Confirm: confirmer{e}, Symbols: e.s,
		Spec:    sandbox.Spec{Home: home, Timeout: time.Minute, Limits: sandbox.Limits{Output: 32 << 10}},
		Sandbox: "test runner (os/exec, no sandbox)",
		Memory:  o.memory,
		Retry:   llm.RetryOptions{Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }},
		Clock:   clock,
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	e.agents = a
	agents := map[string]lunad.Agent{}
	for name, ag := range a.Agents() {
		agents[name] = isolated{ag, e}
	}
	e.s.ConfigureRuns(runs.Options{Builtin: goal.Builtin(), Agents: agents, OnFinish: a.OnFinish, Jitter: func() float64 { return 0 }})
	return e
}

// confirmer answers for the env's confirm, if any (none: no one to ask).
type confirmer struct{ e *env }

func (c confirmer) Confirm(a policy.Action, d policy.Decision) bool {
	return c.e.confirm != nil && c.e.confirm.Confirm(a, d)
}

// isolated keeps the worktree the engine gives the goal's stages
// (env.dir).
type isolated struct {
	lunad.Agent
	e *env
}

func (i isolated) Process(ctx context.Context, req lunad.StageRequest) (lunad.StageResponse, error) {
	i.e.mu.Lock()
	i.e.worktree = req.Dir
	i.e.mu.Unlock()
	return i.Agent.Process(ctx, req)
}

// dir is the worktree the goal works in (the workspace until a stage
// ran).
func (e *env) dir() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.worktree == "" {
		return e.s.Root()
	}
	return e.worktree
}

func sortedNames(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// ticking is a clock that ticks a millisecond per reading from a fixed
// time.
func ticking() func() time.Time {
	var n atomic.Int64
	t0 := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	return func() time.Time { return t0.Add(time.Duration(n.Add(1)) * time.Millisecond) }
}

// goal runs a goal to its end and returns the run and its result.
func (e *env) goal(text string, params map[string]string) (lunad.RunInfo, lunad.GoalResult) {
	e.t.Helper()
	p := map[string]string{lunad.GoalParamGoal: text}
	for k, v := range params {
		p[k] = v
	}
	info := wstest.RunToEnd(e.t, e.s, lunad.RunRequest{Workflow: lunad.GoalWorkflow, Params: p})
	res, err := lunad.GoalResultOf(info)
	if err != nil {
		e.t.Fatalf("%v; events %v", err, wstest.EventTypes(info))
	}
	return info, res
}

func (e *env) head() string {
	return strings.TrimSpace(wstest.GitRun(e.t, e.dir(), "rev-parse", "HEAD"))
}

// status is how the goal's worktree differs from its HEAD, as `git status` says
// against an index read from HEAD (lunad brings the git index up to date
// lazily): "" when it has HEAD's files and nothing more.
func (e *env) status() string {
	e.t.Helper()
	index := filepath.Join(e.t.TempDir(), "index")
	run := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = e.dir(), append(os.Environ(), "GIT_INDEX_FILE="+index)
		out, err := cmd.CombinedOutput()
		if err != nil {
			e.t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("read-tree", "HEAD")
	return strings.TrimSpace(run("status", "--porcelain", "--untracked-files=all"))
}

// git runs git in the goal's worktree.
func (e *env) git(args ...string) string { return wstest.GitRun(e.t, e.dir(), args...) }

// file reads a file of the goal's worktree as it is on disk.
func (e *env) file(name string) string {
	b, err := os.ReadFile(filepath.Join(e.dir(), name))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// runFile reads a stage file of a run's event (Store access through the
// workspace's git: files are blobs under the run's ref).
func (e *env) trace(info lunad.RunInfo) []lunad.GoalStep {
	e.t.Helper()
	var out []lunad.GoalStep
	for i := 1; ; i++ {
		text, ok := e.stageFile(info, fmt.Sprintf("trace/%04d.json", i))
		if !ok {
			return out
		}
		var s lunad.GoalStep
		if err := json.Unmarshal([]byte(text), &s); err != nil {
			e.t.Fatalf("trace/%04d.json: %v", i, err)
		}
		out = append(out, s)
	}
}

// stageFile is a file a stage of the run stored beside its event (the
// first event with it), read with git from the run's log.
func (e *env) stageFile(info lunad.RunInfo, name string) (string, bool) {
	e.t.Helper()
	for _, h := range strings.Fields(wstest.GitRun(e.t, e.s.Root(), "log", "--reverse", "--format=%H", "refs/luna/runs/"+info.ID)) {
		if out, err := wstest.GitCmd(e.s.Root(), "show", h+":files/"+name); err == nil {
			return out, true
		}
	}
	return "", false
}

// recording keeps the requests a provider is sent.
type recording struct {
	llm.Provider
	reqs seen[llm.Request]
}

func (r *recording) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	r.reqs.add(req)
	return r.Provider.Chat(ctx, req)
}

func (r *recording) requests() []llm.Request { return r.reqs.all() }

// user is a request's state, as the model is shown it.
func user(req llm.Request) string {
	if len(req.Messages) == 0 {
		return ""
	}
	return req.Messages[len(req.Messages)-1].Content
}
