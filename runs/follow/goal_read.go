package follow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/lunad/lunad"
)

// RunFiles reads the files stages stored beside a run's events
// (lunad.WorkflowRuns.RunFile).
type RunFiles interface {
	RunFile(ctx context.Context, id string, seq int, name string) ([]byte, error)
}

// ReadGoal reads a finished goal's result, trace and report from its
// run: the terminal event's GoalResult, each step's trace/NNNN.json (an
// act stage's file, NNNN the step its output counts) and the report
// stage's report.md ("" for a goal that ended before its report). Errors:
// lunad.GoalResultOf's; a file that cannot be read or decoded.
func ReadGoal(ctx context.Context, r RunFiles, info lunad.RunInfo) (lunad.GoalTrace, string, error) {
	doc := lunad.GoalTrace{Trace: []lunad.GoalStep{}}
	res, err := lunad.GoalResultOf(info)
	if err != nil {
		return doc, "", err
	}
	doc.Result = res
	if doc.Result.Run == "" {
		doc.Result.Run = info.ID
	}
	report, steps := "", 0
	for _, ev := range info.Events {
		if ev.Type != lunad.EventStageSucceeded {
			continue
		}
		var st goalStageState
		if json.Unmarshal(ev.Output, &st) != nil {
			continue
		}
		if st.Steps > steps {
			b, err := r.RunFile(ctx, info.ID, ev.Seq, fmt.Sprintf("trace/%04d.json", st.Steps))
			switch {
			case errors.Is(err, lunad.ErrNotFound):
			case err != nil:
				return doc, "", fmt.Errorf("goal %s, step %d: %w", info.ID, st.Steps, err)
			default:
				var s lunad.GoalStep
				if err := json.Unmarshal(b, &s); err != nil {
					return doc, "", fmt.Errorf("%w: goal %s, step %d: the trace does not decode: %v", lunad.ErrInvalid, info.ID, st.Steps, err)
				}
				doc.Trace = append(doc.Trace, s)
				steps = st.Steps
			}
		}
		if ev.Stage == "report" {
			b, err := r.RunFile(ctx, info.ID, ev.Seq, "report.md")
			if err != nil && !errors.Is(err, lunad.ErrNotFound) {
				return doc, "", fmt.Errorf("goal %s's report: %w", info.ID, err)
			}
			report = string(b)
		}
	}
	return doc, report, nil
}
