package lunad

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// GoalFiles are where a goal's report and trace are kept as files,
// outside the working tree, for editors to open: the surfaces that show a
// finished goal (lunad goal, the LSP's luna.goal) write them (Keep) from
// the run's own files (ReadGoal), which stay the record.
type GoalFiles struct {
	// Report is the Markdown report: <git common dir>/luna/goals/RUN.md.
	Report string
	// Trace is the GoalTrace as JSON: <git common dir>/luna/goals/RUN.json.
	Trace string
}

// GoalFilesOf are the files of goal run in the checkout at or above dir
// (FindCheckout). Errors: ErrNotWorkspace; ErrInvalid for a run ID that
// is not one (a path).
func GoalFilesOf(dir, run string) (GoalFiles, error) {
	if run == "" || filepath.Base(run) != run || run == "." || run == ".." {
		return GoalFiles{}, fmt.Errorf("%w: %q is not a run ID (lunad goal list shows them)", ErrInvalid, run)
	}
	c, err := FindCheckout(dir)
	if err != nil {
		return GoalFiles{}, err
	}
	d := filepath.Join(c.CommonDir, "luna", "goals")
	return GoalFiles{Report: filepath.Join(d, run+".md"), Trace: filepath.Join(d, run+".json")}, nil
}

// Keep writes the report (unless "": a goal that ended before it) and the
// trace, each through a temporary file renamed over it, so a reader sees
// a whole file.
func (f GoalFiles) Keep(doc GoalTrace, report string) error {
	trace, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(f.Trace), 0o755); err != nil {
		return err
	}
	if report != "" {
		if err := replaceFile(f.Report, []byte(report)); err != nil {
			return err
		}
	}
	return replaceFile(f.Trace, append(trace, '\n'))
}

// replaceFile writes data to path through a temporary file renamed over
// it.
func replaceFile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// GoalTrace is a goal's result and every step, oldest first: what `lunad
// goal show RUN --json` prints and GoalFiles.Trace holds.
type GoalTrace struct {
	Result GoalResult `json:"result"`
	Trace  []GoalStep `json:"trace"`
}

// RunFiles reads the files stages stored beside a run's events
// (WorkflowRuns.RunFile).
type RunFiles interface {
	RunFile(ctx context.Context, id string, seq int, name string) ([]byte, error)
}

// ReadGoal reads a finished goal's result, trace and report from its
// run: the terminal event's GoalResult, each step's trace/NNNN.json (an
// act stage's file, NNNN the step its output counts) and the report
// stage's report.md ("" for a goal that ended before its report). Errors:
// GoalResultOf's; a file that cannot be read or decoded.
func ReadGoal(ctx context.Context, r RunFiles, info RunInfo) (GoalTrace, string, error) {
	doc := GoalTrace{Trace: []GoalStep{}}
	res, err := GoalResultOf(info)
	if err != nil {
		return doc, "", err
	}
	doc.Result = res
	if doc.Result.Run == "" {
		doc.Result.Run = info.ID
	}
	report, steps := "", 0
	for _, ev := range info.Events {
		if ev.Type != EventStageSucceeded {
			continue
		}
		var st goalStageState
		if json.Unmarshal(ev.Output, &st) != nil {
			continue
		}
		if st.Steps > steps {
			b, err := r.RunFile(ctx, info.ID, ev.Seq, fmt.Sprintf("trace/%04d.json", st.Steps))
			switch {
			case errors.Is(err, ErrNotFound):
			case err != nil:
				return doc, "", fmt.Errorf("goal %s, step %d: %w", info.ID, st.Steps, err)
			default:
				var s GoalStep
				if err := json.Unmarshal(b, &s); err != nil {
					return doc, "", fmt.Errorf("%w: goal %s, step %d: the trace does not decode: %v", ErrInvalid, info.ID, st.Steps, err)
				}
				doc.Trace = append(doc.Trace, s)
				steps = st.Steps
			}
		}
		if ev.Stage == "report" {
			b, err := r.RunFile(ctx, info.ID, ev.Seq, "report.md")
			if err != nil && !errors.Is(err, ErrNotFound) {
				return doc, "", fmt.Errorf("goal %s's report: %w", info.ID, err)
			}
			report = string(b)
		}
	}
	return doc, report, nil
}
