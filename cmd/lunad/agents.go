package main

import (
	"log/slog"
	"strings"

	"github.com/lunad/lunad/agents/ask"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/providers"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/runs"
)

// withAgents adds lunad's agents to the engine's options: the built-in
// workflow ask, its stage agents and the OnFinish that makes an ask's
// result. Each role's provider is made when its stage calls it, from the
// configuration loaded once (cfg) and the API key read from getenv — so a
// workspace without [llm] serves everything else, and an ask says what to
// set. The returned Agents is closed by the engine's owner after the
// engine.
func withAgents(ro *runs.Options, ws ask.Workspace, cfg Config, getenv func(string) string, log *slog.Logger) (*ask.Agents, error) {
	b := cfg.Agents.Budget
	agents, err := ask.New(ask.Options{
		Workspace: ws,
		Providers: func(role string) (llm.Provider, llm.Config, error) {
			c, err := cfg.LLMFor(role)
			if err != nil {
				return nil, c, err
			}
			p, err := newProvider(c, getenv)
			return p, c, err
		},
		Memory: memory.Options{Budget: memory.Budget{Tokens: b.Tokens, Calls: b.Calls, Time: b.Time},
			Stall: memory.StallOptions{NoProgressSteps: cfg.Agents.Stall.NoProgressSteps}},
		TypeForPath: gitstore.TypeForPath,
		Logger:      log,
	})
	if err != nil {
		return nil, err
	}
	ro.Agents = agents.Agents()
	ro.Builtin = ask.Builtin()
	ro.OnFinish = agents.OnFinish
	return agents, nil
}

// newProvider is the provider c configures, behind lunad's retry policy.
// c is final — the environment's LUNAD_LLM_* are in it already, over the
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
	return providers.New(c, keysOnly)
}
