package ask

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/memory"
)

// OnFinish builds the AskResult an ask run's terminal event carries (for
// runs.Options.OnFinish; nil for a run of another workflow), and deletes
// the run's working memory.
func (a *Agents) OnFinish(ctx context.Context, info lunad.RunInfo) json.RawMessage {
	if info.Workflow != lunad.AskWorkflow {
		return nil
	}
	defer a.mems.remove(info.ID)
	res := a.result(ctx, info)
	b, err := json.Marshal(res)
	if err != nil {
		a.o.Logger.Error("ask: the result does not encode", "run", info.ID, "err", err)
		return nil
	}
	return b
}

func (a *Agents) result(ctx context.Context, info lunad.RunInfo) lunad.AskResult {
	res := lunad.AskResult{Run: info.ID, Workers: []string{}, Changes: []lunad.AskChange{}, Stale: []lunad.AskFollowUp{}}
	var outs []output
	for _, st := range info.Stages {
		if len(st.Output) == 0 || string(st.Output) == "null" {
			continue
		}
		o, err := decodeOutput(st.Output)
		if err != nil {
			res.Status, res.Reason = lunad.AskFailed, err.Error()
			return res
		}
		outs = append(outs, o)
	}
	slices.SortStableFunc(outs, func(x, y output) int { return x.Visit - y.Visit })
	// What each stage visit wrote, from the engine's commits.
	written := map[int][]lunad.ArtifactRef{}
	for _, ev := range info.Events {
		if ev.Type == lunad.EventStageCommitted {
			written[ev.Visit] = append(written[ev.Visit], ev.Writes...)
		}
	}
	var last *output
	for i := range outs {
		o := &outs[i]
		last = o
		switch o.Role {
		case "supervisor":
			res.Route, res.Prompts = o.Route, o.Prompts
			if o.Question != "" {
				res.Question = o.Question
			}
		default:
			res.Workers = append(res.Workers, o.Role)
			if o.Summary != "" {
				res.Summary = o.Summary
			}
			res.Findings = append(res.Findings, o.Findings...)
			res.Changes = append(res.Changes, changes(o, written[o.Visit])...)
		}
		if o.Reason != "" && o.Outcome != outRoute && o.Outcome != outHandoff && o.Outcome != outDone {
			res.Reason = o.Reason
		}
	}
	res.Status = status(info, last)
	if res.Status == lunad.AskFailed && res.Reason == "" {
		res.Reason = info.Error
	}
	if last != nil {
		m, err := memory.Restore(last.Memory, a.o.Memory)
		if err == nil {
			sum := m.Summary()
			u := sum.Usage
			res.Usage = lunad.AskUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, Calls: u.Calls}
			res.Memory = sum.JSON()
		}
	}
	res.Stale = a.stale(ctx, res.Changes)
	if res.Status != lunad.AskDone && res.Status != lunad.AskDryRun && res.Status != lunad.AskQuestion {
		res.Summary = doneSoFar(res.Changes)
	}
	return res
}

// doneSoFar says what an ask that did not finish wrote before it ended.
func doneSoFar(chs []lunad.AskChange) string {
	if len(chs) == 0 {
		return "nothing was written"
	}
	var parts []string
	for _, c := range chs {
		verb := "edited"
		if c.Created {
			verb = "created"
		}
		parts = append(parts, fmt.Sprintf("the %s %s %s (version %d)", c.Worker, verb, c.Path, c.Version))
	}
	return "written before the ask ended: " + strings.Join(parts, "; ")
}

// status is the ask's status from the run's and its last stage's.
func status(info lunad.RunInfo, last *output) lunad.AskStatus {
	switch info.Status {
	case lunad.RunCompleted:
		return lunad.AskDone
	case lunad.RunAborted, lunad.RunCancelled, lunad.RunDeadLettered:
		return lunad.AskFailed
	}
	if last != nil && last.Outcome != outRoute && last.Outcome != outHandoff && last.Outcome != outDone {
		return lunad.AskStatus(last.Outcome)
	}
	return lunad.AskStatus(info.Status)
}

// changes joins a stage's changes (line counts) with the versions the
// engine committed.
func changes(o *output, refs []lunad.ArtifactRef) []lunad.AskChange {
	var out []lunad.AskChange
	for _, c := range o.Changes {
		ch := lunad.AskChange{ArtifactRef: lunad.ArtifactRef{Path: c.Path}, Title: c.Title, Created: c.Created, Added: c.Added, Removed: c.Removed, Worker: o.Role}
		for _, r := range refs {
			if r.Path == c.Path {
				ch.ArtifactRef = r
			}
		}
		if ch.ID == "" {
			continue // not committed (the stage's writes did not land)
		}
		out = append(out, ch)
	}
	return out
}

// stale are the artifacts whose references to what the ask changed are
// stale or broken now (a renamed symbol breaks them), each with the symbols concerned; the changed artifacts
// themselves are left out.
func (a *Agents) stale(ctx context.Context, chs []lunad.AskChange) []lunad.AskFollowUp {
	out := []lunad.AskFollowUp{}
	if len(chs) == 0 {
		return out
	}
	edited := map[string]bool{}
	for _, c := range chs {
		edited[c.ID] = true
	}
	refs, err := a.o.Source.Stale(ctx)
	if err != nil {
		a.o.Logger.Warn("ask: the stale references could not be read", "err", err)
		return out
	}
	byID := map[string]*lunad.AskFollowUp{}
	for _, r := range refs {
		target, sym := "", r.Text
		switch {
		case r.To != nil:
			target = r.To.ID
			if r.To.Symbol != "" {
				sym = r.To.Symbol
			}
		case r.Since != nil: // broken: the version that removed it
			target = r.Since.Artifact
		}
		if !edited[target] || edited[r.From.ID] || (r.State != lunad.RefStale && r.State != lunad.RefBroken) {
			continue
		}
		f := byID[r.From.ID]
		if f == nil {
			f = &lunad.AskFollowUp{ID: r.From.ID, Path: r.From.Path, Symbols: []string{}}
			byID[r.From.ID] = f
		}
		if !slices.Contains(f.Symbols, sym) {
			f.Symbols = append(f.Symbols, sym)
		}
	}
	for _, f := range byID {
		slices.Sort(f.Symbols)
		out = append(out, *f)
	}
	slices.SortFunc(out, func(x, y lunad.AskFollowUp) int { return strings.Compare(x.Path, y.Path) })
	return out
}
