package bench

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/goal"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/policy"
	"github.com/lunad/lunad/runs"
	"github.com/lunad/lunad/sandbox"
)

var (
	flagGoals     = flag.Int("bench.goals", 3, "BenchmarkGoalStep: goals per workspace size")
	flagGoalSteps = flag.Int("bench.goalsteps", 20, "BenchmarkGoalStep: steps per goal (half of them change a file)")
)

// BenchmarkGoalStep measures what lunad adds to each step of a goal
// besides the model and the commands: goals of
// -bench.goalsteps steps run end to end through the workspace service's
// engine and the goal workflow — isolated, on a branch and worktree of
// their own — on the references tree of 100 and 1,000 files, against a
// provider that answers at once and a command runner that runs nothing
// (every command, the test command included, is an exit 0 at once). The
// steps alternate: write_file of a new file (a mutating step: the act
// stage, its commit on the goal's branch, then the test stage through
// the harness) and run_command (a command step: the worktree snapshotted
// before and after the command to find what it changed). Every action is
// checked by the default policy. Per step: the time from one act stage's
// start to the next one's, less the time in the model and in commands.
func BenchmarkGoalStep(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) { benchGoal(b, n) })
	}
}

// stepModel writes a new file on odd steps, runs a command on even ones,
// and finishes at the last; it answers at once and stamps each call.
type stepModel struct {
	tl    *timeline
	steps int
	n     atomic.Int64
}

func (p *stepModel) Name() string { return "instant-goal" }

func (p *stepModel) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	t0 := time.Now()
	k := int(p.n.Add(1))
	name, args := "finish", any(map[string]string{"summary": "done"})
	switch {
	case k >= p.steps:
	case k%2 == 1:
		name, args = "write_file", map[string]string{"path": fmt.Sprintf("notes/step-%04d.md", k), "content": fmt.Sprintf("# Step %d\n\nA note.\n", k)}
	default:
		name, args = "run_command", map[string]any{"argv": []string{"true"}}
	}
	a, _ := json.Marshal(args)
	resp := llm.Response{Model: "instant", StopReason: "tool_calls", Usage: llm.Usage{InputTokens: 500, OutputTokens: 20},
		Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("call-%d", k), Name: name, Arguments: a}}}}
	p.tl.add(stamp{start: t0, end: time.Now()})
	return resp, nil
}

// noCommands is a command runner that runs nothing: every command exits 0
// at once. Its time is stamped too (it is subtracted as command time).
type noCommands struct{ tl *timeline }

func (c noCommands) Run(ctx context.Context, s sandbox.Spec) (sandbox.Result, error) {
	t0 := time.Now()
	res := sandbox.Result{Sandboxed: true, Duration: time.Microsecond}
	c.tl.add(stamp{start: t0, end: time.Now()})
	return res, nil
}

func benchGoal(b *testing.B, n int) {
	ctx := context.Background()
	s, _ := refsWorkspace(b, fmt.Sprintf("goal-tree-%d", n), n)
	defer s.Close()
	tl := &timeline{}
	model := &stepModel{tl: tl, steps: *flagGoalSteps}
	cmds := noCommands{tl: tl}
	a, err := goal.New(goal.Options{
		Providers: func(string) (llm.Provider, llm.Config, error) {
			return model, llm.Config{Provider: "instant", Model: "instant"}, nil
		},
		Commands: cmds, Tests: goal.HarnessTests(cmds), Policy: policy.Default(), Symbols: s,
		Spec:    goal.BaseSpec(policy.Default().Sandbox(), b.TempDir()),
		Sandbox: "none (benchmark)", MaxSteps: *flagGoalSteps + 1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		b.Fatal(err)
	}
	agents := map[string]lunad.Agent{}
	for name, ag := range a.Agents() {
		if name == goal.AgentAct {
			ag = timedAgent{ag, tl}
		}
		agents[name] = ag
	}
	s.ConfigureRuns(runs.Options{Builtin: goal.Builtin(), Agents: agents, OnFinish: a.OnFinish,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	var perStep, mutating, command []time.Duration
	var whole time.Duration
	b.ResetTimer()
	for i := 0; i < *flagGoals; i++ {
		model.n.Store(0)
		req, err := lunad.GoalSpec{Goal: "take notes", Tests: [][]string{{"true"}}}.Request()
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		info, err := s.StartRun(ctx, req)
		if err == nil {
			info, err = s.WaitRun(ctx, info.ID)
		}
		whole += time.Since(t0)
		res, rerr := lunad.GoalResultOf(info)
		if err != nil || rerr != nil || res.Outcome != lunad.GoalFinished || len(res.Commits) != *flagGoalSteps/2 {
			b.Fatalf("goal %d: %s, %v, %v, %+v", i, info.Status, err, rerr, res)
		}
		if _, err := s.DiscardRun(ctx, info.ID); err != nil {
			b.Fatal(err)
		}
		st := tl.take()
		var acts []int
		for j, x := range st {
			if x.stage {
				acts = append(acts, j)
			}
		}
		// Each step: from its act stage's start to the next one's, less
		// the model's and the commands' time in between.
		for k := 0; k+1 < len(acts); k++ {
			var outside time.Duration
			for _, c := range st[acts[k]+1 : acts[k+1]] {
				outside += c.end.Sub(c.start)
			}
			d := st[acts[k+1]].start.Sub(st[acts[k]].start) - outside
			perStep = append(perStep, d)
			if k%2 == 0 {
				mutating = append(mutating, d)
			} else {
				command = append(command, d)
			}
		}
	}
	b.StopTimer()
	fmt.Printf("\nBenchmarkGoalStep: %d files (%s), %d goals of %d steps (write_file and run_command alternating), the model and the commands instant\n",
		n, machine(), *flagGoals, *flagGoalSteps)
	fmt.Printf("%-48s %10s %10s %10s\n", "", "p50", "p99", "max")
	for _, r := range []struct {
		name string
		ds   []time.Duration
	}{{"step, less model and command time", perStep}, {"  write_file (commit, then the tests)", mutating}, {"  run_command (worktree snapshots)", command}} {
		fmt.Printf("%-48s %10.2f %10.2f %10.2f ms\n", r.name, ms(pct(r.ds, 0.50)), ms(pct(r.ds, 0.99)), ms(slices.Max(r.ds)))
	}
	fmt.Printf("%-48s %10.2f ms (the worktree made, the steps, the report)\n", "goal, on average", ms(whole/time.Duration(*flagGoals)))
	b.ReportMetric(ms(pct(perStep, 0.50)), "step-p50-ms")
	b.ReportMetric(ms(pct(perStep, 0.99)), "step-p99-ms")
	b.ReportMetric(ms(pct(mutating, 0.50)), "write-step-p50-ms")
	b.ReportMetric(ms(pct(command, 0.50)), "command-step-p50-ms")
}
