package goal

import (
	"context"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/goal/harness"
	"github.com/lunad/lunad/agents/policy"
	"github.com/lunad/lunad/sandbox"
)

// HarnessTests is Tests over package harness: the test commands run
// with r (the goal's *sandbox.Runner) and are read by harness.Run, and
// the model is told harness.Compact's summary.
func HarnessTests(r harness.Runner) Tests { return harnessTests{r} }

type harnessTests struct{ r harness.Runner }

func (h harnessTests) Run(ctx context.Context, base sandbox.Spec, commands [][]string) (lunad.TestSummary, []sandbox.Result, error) {
	return harness.Run(ctx, h.r, base, commands)
}

func (harnessTests) Compact(s lunad.TestSummary) string { return harness.Compact(s) }

// BaseSpec is Options.Spec as the policy's sandbox settings give it: the
// network, the timeout and the limits of every command, with home as the
// commands' $HOME ("" a private empty one). The settings' ReadOnly go
// to Options.ReadOnly.
func BaseSpec(s policy.SandboxSettings, home string) sandbox.Spec {
	l := s.Limits
	return sandbox.Spec{Home: home, Network: s.Network, Timeout: l.Timeout,
		Limits: sandbox.Limits{CPU: l.CPU, Memory: l.Memory, Processes: l.Processes, FileSize: l.FileSize, Output: l.Output}}
}
