package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/goal"
)

// runFiles reads the files stored beside a run's events
// (*workspace.Service).
type runFiles interface {
	RunFile(ctx context.Context, id string, seq int, name string) ([]byte, error)
}

// writeGoalFiles keeps a finished goal's report and trace as files
// (lunad.GoalFilesOf), read from the run's stage files: the report
// stage's report.md, each act's trace/NNNN.json; result is the goal's
// result, the terminal event's output. Written when the goal ends, before
// its terminal event, by the process that drives it; each file replaced
// at once (a temporary file renamed), so a reader sees the old or the
// new.
func writeGoalFiles(ctx context.Context, rf runFiles, root string, info lunad.RunInfo, result json.RawMessage) error {
	files, err := lunad.GoalFilesOf(root, info.ID)
	if err != nil {
		return err
	}
	doc := lunad.GoalTrace{Trace: []lunad.GoalStep{}}
	if err := json.Unmarshal(result, &doc.Result); err != nil {
		return fmt.Errorf("goal %s's result: %w", info.ID, err)
	}
	report := ""
	for _, ev := range info.Events {
		if ev.Type != lunad.EventStageSucceeded {
			continue
		}
		b, err := rf.RunFile(ctx, info.ID, ev.Seq, "response.json")
		if err != nil {
			return fmt.Errorf("goal %s, event %d: %w", info.ID, ev.Seq, err)
		}
		var resp lunad.StageResponse
		if err := json.Unmarshal(b, &resp); err != nil {
			return fmt.Errorf("goal %s, event %d: the stage's response: %w", info.ID, ev.Seq, err)
		}
		for name, text := range resp.Files {
			switch {
			case name == goal.ReportFile:
				report = text
			case strings.HasPrefix(name, "trace/") && strings.HasSuffix(name, ".json"):
				var s lunad.GoalStep
				if err := json.Unmarshal([]byte(text), &s); err != nil {
					return fmt.Errorf("goal %s, event %d: %s: %w", info.ID, ev.Seq, name, err)
				}
				doc.Trace = append(doc.Trace, s)
			}
		}
	}
	slices.SortStableFunc(doc.Trace, func(a, b lunad.GoalStep) int { return a.Step - b.Step })
	trace, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(files.Report), 0o755); err != nil {
		return err
	}
	if report != "" {
		if err := replaceFile(files.Report, []byte(report)); err != nil {
			return err
		}
	}
	return replaceFile(files.Trace, append(trace, '\n'))
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

// readGoalFiles reads a finished goal's trace and report files (the
// report "" for a goal that ended before its report: a failed start).
// Errors wrap ErrNotFound when the trace is not there, saying why that
// may be.
func readGoalFiles(root, id string) (lunad.GoalTrace, string, lunad.GoalFiles, error) {
	var doc lunad.GoalTrace
	files, err := lunad.GoalFilesOf(root, id)
	if err != nil {
		return doc, "", files, err
	}
	b, err := os.ReadFile(files.Trace)
	if err == nil {
		err = json.Unmarshal(b, &doc)
	}
	if err != nil {
		return doc, "", files, fmt.Errorf("%w: goal %s's trace %s: %v (the daemon that ran it writes it when the goal ends; its log says why it could not)", lunad.ErrNotFound, id, files.Trace, err)
	}
	report, err := os.ReadFile(files.Report)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return doc, "", files, fmt.Errorf("goal %s's report: %w", id, err)
	}
	return doc, string(report), files, nil
}
