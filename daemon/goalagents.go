package daemon

import (
	"context"
	"sync"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/goal"
)

// goalAgents are the goal workflow's agents, made at the first goal
// (the sandbox probed then), with the host's commands, tests and policy.
type goalAgents struct {
	h    *GoalHost
	o    goal.Options // but the host's parts and Sandbox
	once sync.Once
	a    *goal.Agents
	err  error
}

func (g *goalAgents) get(ctx context.Context) (*goal.Agents, error) {
	g.once.Do(func() {
		o := g.o
		o.Commands, o.Tests, o.Policy = g.h, goal.HarnessTests(g.h), g.h
		o.DiskNow = g.h.disk
		o.Sandbox = g.h.describe(ctx)
		g.a, g.err = goal.New(o)
	})
	return g.a, g.err
}

// agents are the goal workflow's stage agents by name (runs.Options.Agents).
func (g *goalAgents) agents() map[string]lunad.Agent {
	out := map[string]lunad.Agent{}
	for _, name := range []string{goal.AgentBegin, goal.AgentAct, goal.AgentTest, goal.AgentReport} {
		out[name] = goalStage{g, name}
	}
	return out
}

// goalStage is one of the goal's stage agents: it first checks the goal
// can run here (preflight) — a live stage that cannot fails for good,
// saying what to fix; a replay runs nothing and is let through.
type goalStage struct {
	g    *goalAgents
	name string
}

func (s goalStage) Version() string {
	a, err := s.g.get(context.Background())
	if err != nil {
		return "unconfigured"
	}
	return a.Agents()[s.name].Version()
}

func (s goalStage) Process(ctx context.Context, req lunad.StageRequest) (lunad.StageResponse, error) {
	a, err := s.g.get(ctx)
	if err != nil {
		return lunad.StageResponse{}, &lunad.AgentError{Permanent: true, Err: err}
	}
	if !req.Replay {
		if err := s.g.h.preflight(ctx, req); err != nil {
			return lunad.StageResponse{}, &lunad.AgentError{Permanent: true, Err: err}
		}
	}
	return a.Agents()[s.name].Process(ctx, req)
}
