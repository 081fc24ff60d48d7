package goal

import (
	"context"
	_ "embed"
	"fmt"
	"log/slog"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/agents/policy"
	"github.com/lunad/lunad/sandbox"
)

//go:embed goal.toml
var workflowTOML []byte

// Commands runs one command (*sandbox.Runner implements it). A command
// that exits non-zero, is killed or hits a limit is a Result; the error
// is a command that could not be started (a sandbox that failed), which
// the model is told.
type Commands interface {
	Run(ctx context.Context, s sandbox.Spec) (sandbox.Result, error)
}

// Tests runs the goal's test commands and words their verdict for the
// model (the harness package, bound to the goal's Commands: Run is
// harness.Run(ctx, runner, base, commands), Compact harness.Compact).
// Base is the spec every test command starts from: the worktree as Root
// and Dir, the limits; Run fills Argv. Its error is test commands that
// could not be run at all.
type Tests interface {
	Run(ctx context.Context, base sandbox.Spec, commands [][]string) (lunad.TestSummary, []sandbox.Result, error)
	Compact(s lunad.TestSummary) string
}

// Policy decides whether an action may be done (*policy.Policy
// implements it). Root is the goal's worktree.
type Policy interface {
	Check(root string, a policy.Action) policy.Decision
}

// Symbols finds definitions by name (lunad.Workspace implements it): the
// search tool's kind "symbol". The workspace's index is of the user's
// checkout, where the goal's branch started.
type Symbols interface {
	SearchSymbols(ctx context.Context, query string, limit int) ([]lunad.SymbolHit, error)
}

// Defaults of Options.
const (
	DefaultMaxSteps      = 30
	DefaultMaxFailures   = 5
	DefaultContextTokens = 12000
	// DefaultObservation is the bytes of an action's output the model is
	// shown (head and tail, the cut said).
	DefaultObservation = 8000
)

// Role is the goal's role: its model is [agents.goal] over [llm], and
// its working memory's budgets [agents.goal.budget].
const Role = "goal"

// Options configure the goal's agents.
type Options struct {
	// Providers gives the model of a role (the goal asks for Role) and
	// its configuration; its error is the goal's failure, worded for the
	// user (which setting to fix).
	Providers func(role string) (llm.Provider, llm.Config, error)
	// Commands runs run_command's commands, Tests the test commands,
	// Policy checks every action first (all three required). Confirm is
	// asked about an action the policy wants confirmed (nil: there is no
	// one to ask, and the action is denied).
	Commands Commands
	Tests    Tests
	Policy   Policy
	Confirm  policy.Confirmer
	// Symbols answers search's kind "symbol" (nil: the model is told to
	// search text).
	Symbols Symbols
	// Spec is what every command's spec starts from (BaseSpec makes it
	// from the policy's settings): limits, timeout, network, the
	// commands' home, binds and environment. The goal sets Argv, Root and
	// Dir (the worktree), and adds to ReadOnly the worktree's .git, .luna
	// and ReadOnly, workspace-relative slash-separated paths (the
	// policy's SandboxSettings.ReadOnly).
	Spec     sandbox.Spec
	ReadOnly []string
	// Sandbox says how commands are isolated, for the report and the
	// GoalResult ("bwrap 0.8.0: no network, …"); a Result run without a
	// sandbox replaces it with its warning.
	Sandbox string
	// Memory configures the run's working memory: budgets, breaker,
	// stall detector. Its Clock is each stage's (recorded) clock.
	Memory memory.Options
	// Retry is lunad's retry policy around every model call, the memory's
	// guards inside it (give providers.New WithoutRetry); zero fields
	// take llm.Retry's defaults. A live replay never sleeps.
	Retry llm.RetryOptions
	// MaxSteps is the default of the param max_steps (DefaultMaxSteps);
	// MaxFailures the consecutive failed actions that stop the goal
	// (DefaultMaxFailures).
	MaxSteps    int
	MaxFailures int
	// ContextTokens bounds the state the model is shown each step
	// (DefaultContextTokens); Observation the bytes of an action's output
	// in it (DefaultObservation).
	ContextTokens int
	Observation   int
	// Disk is the bytes the goal's worktree may take on disk, what
	// .gitignore leaves out included, checked after every command and
	// test run (DefaultDisk): past it, the step is undone and the model
	// told.
	Disk int64
	// DiskNow, when set, is the budget at each check instead of Disk —
	// the policy's [limits] disk as the policy file says it then, so an
	// edited policy applies to the goals running; a result of 0 or less
	// means Disk.
	DiskNow func() int64
	Clock   func() time.Time // default time.Now
	Logger  *slog.Logger
}

// Agents are the goal workflow's stage agents.
type Agents struct {
	o      Options
	agents map[string]lunad.Agent
}

// The stage agents' names (the workflow's `agent = "..."`).
const (
	AgentBegin  = "goal.begin"
	AgentAct    = "goal.act"
	AgentTest   = "goal.test"
	AgentReport = "goal.report"
)

// New makes the agents. Providers, Commands, Tests and Policy are
// required (ErrInvalid otherwise), and the memory options must validate.
func New(o Options) (*Agents, error) {
	switch {
	case o.Providers == nil:
		return nil, fmt.Errorf("%w: goal.New needs Providers (the model)", lunad.ErrInvalid)
	case o.Commands == nil || o.Tests == nil:
		return nil, fmt.Errorf("%w: goal.New needs Commands and Tests (the sandbox's runner)", lunad.ErrInvalid)
	case o.Policy == nil:
		return nil, fmt.Errorf("%w: goal.New needs a Policy (.luna/policy.toml, or the default one)", lunad.ErrInvalid)
	case o.MaxSteps < 0 || o.MaxFailures < 0 || o.ContextTokens < 0 || o.Observation < 0 || o.Disk < 0:
		return nil, fmt.Errorf("%w: goal.New: negative limits (max steps %d, failures %d, context tokens %d, observation %d, disk %d)", lunad.ErrInvalid, o.MaxSteps, o.MaxFailures, o.ContextTokens, o.Observation, o.Disk)
	}
	if err := o.Memory.Validate(); err != nil {
		return nil, err
	}
	if o.MaxSteps == 0 {
		o.MaxSteps = DefaultMaxSteps
	}
	if o.MaxFailures == 0 {
		o.MaxFailures = DefaultMaxFailures
	}
	if o.ContextTokens == 0 {
		o.ContextTokens = DefaultContextTokens
	}
	if o.Observation == 0 {
		o.Observation = DefaultObservation
	}
	if o.Disk == 0 {
		o.Disk = DefaultDisk
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	a := &Agents{o: o}
	a.agents = map[string]lunad.Agent{
		AgentBegin:  stageAgent{a, "begin", false, a.begin},
		AgentAct:    stageAgent{a, "act", false, a.act},
		AgentTest:   stageAgent{a, "test", true, a.test},
		AgentReport: stageAgent{a, "report", true, a.report},
	}
	return a, nil
}

// Agents are the stage agents by name, for runs.Options.Agents.
func (a *Agents) Agents() map[string]lunad.Agent { return a.agents }

// Builtin is the goal workflow by name, for runs.Options.Builtin.
func Builtin() map[string][]byte {
	return map[string][]byte{lunad.GoalWorkflow: append([]byte(nil), workflowTOML...)}
}
