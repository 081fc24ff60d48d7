package ask

import (
	"context"
	_ "embed"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/agents/tools"
)

//go:embed ask.toml
var workflowTOML []byte

// Source is what the agents read: artifacts, references and the stale
// ones (a lunad.Source implements it). They never write through it.
type Source interface {
	tools.Source
	Stale(ctx context.Context) ([]lunad.Reference, error)
}

// Defaults of Options.
const (
	DefaultTTL           = time.Hour
	DefaultContextTokens = 16000
)

// Options configure the agents.
type Options struct {
	Source Source
	// Providers gives each role's provider ("supervisor", "coder",
	// "writer", "reviewer") and its configuration (the model, sampling
	// settings, the fallback role). Its error is the stage's failure,
	// worded for the user (which setting to fix).
	Providers func(role string) (llm.Provider, llm.Config, error)
	// Memory configures each run's working memory: budgets for the run
	// and per worker, breakers, the stall detector. Its Clock is replaced
	// by Clock.
	Memory memory.Options
	// Retry is lunad's retry policy around every model call, the run's
	// memory inside it: each attempt passes the budgets and the
	// provider's breaker and is counted (so give providers.New
	// WithoutRetry). Zero Attempts is one more than the breaker's
	// failures, so a provider that is down opens its breaker within one
	// call and the fallback takes over; the other zero fields take
	// llm.Retry's defaults. A live replay never sleeps.
	Retry llm.RetryOptions
	// ContextTokens is the token budget of one compiled context (default
	// DefaultContextTokens).
	ContextTokens int
	// TTL is how long a run's memory is kept idle before it is swept
	// (default DefaultTTL). Every stage sweeps, and so does a janitor
	// every SweepEvery (default TTL/4; negative: no janitor) until Close.
	TTL        time.Duration
	SweepEvery time.Duration
	// Reads gives, at the start of each stage, what decides which
	// artifacts the stage's agents may be shown: nil for an artifact's
	// path whose content they may read, else why not (the workspace
	// policy's denial, as the model should read it). The artifacts it
	// refuses are left out of every listing, reference report and
	// compiled context, and reading one is refused. Nil: every artifact
	// may be shown.
	Reads func() func(path string) error
	// Writes gives, at the start of each worker's stage, what every write
	// of its tools passes first (tools.Set.Guard): nil for a path the
	// stage may write, else why not — the workspace policy's rules on
	// writing (.git, .luna, dotfiles, CI configuration, read_only,
	// [[deny]] paths). Nil: the tools' own rules only.
	Writes func() func(path string) error
	// TypeForPath infers a new artifact's type (default
	// tools.TypeForPath; the daemon gives gitstore's).
	TypeForPath func(string) string
	Clock       func() time.Time // default time.Now
	Logger      *slog.Logger
}

// Agents are the ask workflow's stage agents and what they share.
type Agents struct {
	o      Options
	mems   *store
	agents map[string]lunad.Agent

	stop chan struct{}
	wg   sync.WaitGroup
}

// The stage agents' names (the workflow's `agent = "..."`).
const (
	AgentSupervisor = "ask.supervisor"
	agentPrefix     = "ask."
)

// New makes the agents. Options.Source and Providers are required
// (ErrInvalid otherwise), and the memory options must validate.
func New(o Options) (*Agents, error) {
	if o.Source == nil || o.Providers == nil {
		return nil, fmt.Errorf("%w: ask.New needs a Workspace and Providers", lunad.ErrInvalid)
	}
	if err := o.Memory.Validate(); err != nil {
		return nil, err
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	o.Memory.Clock = o.Clock
	if o.Retry.Attempts <= 0 {
		failures := o.Memory.Breaker.Failures
		if failures <= 0 {
			failures = memory.DefaultBreakerFailures
		}
		o.Retry.Attempts = failures + 1
	}
	if o.ContextTokens <= 0 {
		o.ContextTokens = DefaultContextTokens
	}
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.TypeForPath == nil {
		o.TypeForPath = tools.TypeForPath
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.SweepEvery == 0 {
		o.SweepEvery = o.TTL / 4
	}
	a := &Agents{o: o, mems: newStore(), stop: make(chan struct{})}
	a.agents = map[string]lunad.Agent{AgentSupervisor: supervise{a}}
	for _, role := range tools.Roles {
		a.agents[agentPrefix+role] = work{a, role}
	}
	if o.SweepEvery > 0 {
		a.wg.Add(1)
		go a.janitor()
	}
	return a, nil
}

// janitor sweeps abandoned memories until Close.
func (a *Agents) janitor() {
	defer a.wg.Done()
	t := time.NewTicker(a.o.SweepEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			a.Sweep()
		case <-a.stop:
			return
		}
	}
}

// Agents are the stage agents by name, for runs.Options.Agents.
func (a *Agents) Agents() map[string]lunad.Agent { return a.agents }

// Builtin is the ask workflow by name, for runs.Options.Builtin.
func Builtin() map[string][]byte {
	return map[string][]byte{lunad.AskWorkflow: append([]byte(nil), workflowTOML...)}
}

// Sweep removes the memories of runs idle longer than the TTL (abandoned
// runs) and returns their IDs. Every stage sweeps; the owner may too.
func (a *Agents) Sweep() []string {
	gone := a.mems.sweep(a.o.Clock(), a.o.TTL)
	for _, id := range gone {
		a.o.Logger.Info("ask: an abandoned run's working memory was removed", "run", id, "ttl", a.o.TTL)
	}
	return gone
}

// Live are the runs whose memories are held, sorted.
func (a *Agents) Live() []string { return a.mems.runs() }

// Close stops the janitor and drops every memory; the runs resume from
// their snapshots. Call it once, after the engine is closed.
func (a *Agents) Close() error {
	close(a.stop)
	a.wg.Wait()
	for _, id := range a.mems.runs() {
		a.mems.remove(id)
	}
	return nil
}
