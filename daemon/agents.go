package daemon

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/ask"
	"github.com/lunad/lunad/agents/goal"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/providers"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/agents/policy"
	"github.com/lunad/lunad/config"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/runs"
)

// AgentSource is what lunad's agents need of the workspace
// (*workspace.Service): the ask's tools, the goal's symbol search.
type AgentSource interface {
	ask.Source
	goal.Symbols
	Root() string
}

// WithAgents adds lunad's agents to the engine's options: the built-in
// workflows ask and goal, their stage agents and the OnFinish that makes
// each one's result. Each role's provider is made when its stage
// calls it, from the configuration loaded once (cfg) and the API key read
// from getenv — so a workspace without [llm] serves everything else, and
// an ask or a goal says what to set. The goal's commands run in the
// sandbox, probed at its first goal (or by the daemon when it starts,
// GoalHost.Capabilities); confirm answers the policy's confirmations (nil:
// no one to ask, they are denied). The returned Agents is closed by the
// engine's owner after the engine.
func WithAgents(ro *runs.Options, ws AgentSource, cfg config.Config, getenv func(string) string, log *slog.Logger, confirm policy.Confirmer) (*ask.Agents, *GoalHost, error) {
	return withAgents(ro, ws, cfg, func() config.Config { return cfg }, getenv, log, confirm)
}

// withAgents is WithAgents whose providers are made from the
// configuration current returns when a stage calls its model: the
// daemon's, which follows the file (reload.go).
func withAgents(ro *runs.Options, ws AgentSource, cfg config.Config, current func() config.Config, getenv func(string) string, log *slog.Logger, confirm policy.Confirmer) (*ask.Agents, *GoalHost, error) {
	providers := func(role string) (llm.Provider, llm.Config, error) {
		c, err := current().LLMFor(role)
		if err != nil {
			return nil, c, err
		}
		p, err := newProvider(c, getenv)
		return p, c, err
	}
	b := cfg.Agents.Budget
	stall := memory.StallOptions{NoProgressSteps: cfg.Agents.Stall.NoProgressSteps}
	host := NewGoalHost(ws.Root(), getenv, log)
	agents, err := ask.New(ask.Options{
		Source:    ws,
		Reads:     host.reads,
		Writes:    host.writes,
		Providers: providers,
		Memory: memory.Options{Budget: memory.Budget{Tokens: b.Tokens, Calls: b.Calls, Time: b.Time},
			Stall: stall},
		TypeForPath: gitstore.TypeForPath,
		Logger:      log,
	})
	if err != nil {
		return nil, nil, err
	}
	gb := cfg.Agents.Goal.Budget
	goals := &goalAgents{h: host, o: goal.Options{
		Providers: providers,
		Confirm:   confirm,
		Symbols:   ws,
		Memory:    memory.Options{Budget: memory.Budget{Tokens: gb.Tokens, Calls: gb.Calls, Time: gb.Time}, Stall: stall},
		Logger:    log,
	}}
	ro.Agents = maps.Clone(agents.Agents())
	maps.Copy(ro.Agents, goals.agents())
	ro.Builtin = ask.Builtin()
	maps.Copy(ro.Builtin, goal.Builtin())
	ro.OnFinish = func(ctx context.Context, info lunad.RunInfo) json.RawMessage {
		if info.Workflow != lunad.GoalWorkflow {
			return agents.OnFinish(ctx, info)
		}
		a, err := goals.get(ctx)
		if err != nil {
			log.Error("goal: no agents to make the result", "run", info.ID, "err", err)
			return nil
		}
		return a.OnFinish(ctx, info)
	}
	return agents, host, nil
}

// newProvider is the bare provider c configures: the agents put lunad's
// retry policy around it with the run's working memory inside, so every
// attempt passes the budgets and the breaker (ask.Options.Retry). c is
// final — the environment's LUNAD_LLM_* are in it already, over the
// file, as for every setting — so the provider reads from getenv only the
// variable holding the key: a role configured for another provider never
// picks up [llm]'s LUNAD_LLM_BASE_URL.
func newProvider(c llm.Config, getenv func(string) string) (llm.Provider, error) {
	keysOnly := func(k string) string {
		if strings.HasPrefix(k, "LUNAD_LLM_") {
			return ""
		}
		return getenv(k)
	}
	return providers.New(c, keysOnly, providers.WithoutRetry())
}
