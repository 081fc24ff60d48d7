package follow_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/runs/follow"
)

// runFiles are a run's stage files by event and name.
type runFiles map[string]string

func (f runFiles) RunFile(_ context.Context, id string, seq int, name string) ([]byte, error) {
	if s, ok := f[fmt.Sprintf("%d/%s", seq, name)]; ok {
		return []byte(s), nil
	}
	if f["broken"] != "" {
		return nil, errors.New(f["broken"])
	}
	return nil, fmt.Errorf("%w: run %s event %d has no file %s", lunad.ErrNotFound, id, seq, name)
}

// TestReadGoal: a finished goal's result, its steps from each act's
// trace file (in order, a visit without a new step skipped) and the
// report stage's report.md.
func TestReadGoal(t *testing.T) {
	res := lunad.GoalResult{Run: "R1", Goal: "g", Outcome: lunad.GoalFinished, Steps: 2}
	state := func(stage string, steps int) json.RawMessage {
		return mustJSON(t, map[string]any{"stage": stage, "steps": steps})
	}
	stepJSON := func(n int, tool string) string {
		return string(mustJSON(t, lunad.GoalStep{Step: n, Action: lunad.GoalAction{Tool: tool, Args: json.RawMessage(`{}`)}, Observation: lunad.GoalObservation{Status: "ok"}}))
	}
	info := lunad.RunInfo{ID: "R1", Workflow: lunad.GoalWorkflow, Status: "finished", Events: []lunad.RunEvent{
		{Seq: 1, Type: lunad.EventRunCreated},
		{Seq: 4, Type: lunad.EventStageSucceeded, Stage: "begin", Output: state("begin", 0)},
		{Seq: 7, Type: lunad.EventStageSucceeded, Stage: "act", Output: state("act", 1)},
		{Seq: 8, Type: lunad.EventStageCommitted, Stage: "act"},
		{Seq: 11, Type: lunad.EventStageSucceeded, Stage: "test", Output: state("test", 1)},
		{Seq: 14, Type: lunad.EventStageSucceeded, Stage: "act", Output: state("act", 2)},
		{Seq: 17, Type: lunad.EventStageSucceeded, Stage: "report", Output: state("report", 2)},
		{Seq: 18, Type: lunad.EventRunCompleted, Outcome: "finished", Output: mustJSON(t, res)},
	}}
	files := runFiles{"7/trace/0001.json": stepJSON(1, "edit_artifact"), "14/trace/0002.json": stepJSON(2, "finish"), "17/report.md": "# Goal: g\n"}
	doc, report, err := follow.ReadGoal(context.Background(), files, info)
	var tools []string
	for _, s := range doc.Trace {
		tools = append(tools, s.Action.Tool)
	}
	if err != nil || doc.Result.Run != "R1" || doc.Result.Outcome != lunad.GoalFinished || !slices.Equal(tools, []string{"edit_artifact", "finish"}) || report != "# Goal: g\n" {
		t.Fatalf("ReadGoal: %+v, %q, %v", doc, report, err)
	}

	t.Run("accepted", func(t *testing.T) {
		settled := info
		settled.Events = append(slices.Clone(info.Events), lunad.RunEvent{Seq: 19, Type: lunad.EventRunAccepted, Tip: "abc"})
		if doc, _, err := follow.ReadGoal(context.Background(), files, settled); err != nil || doc.Result.Outcome != lunad.GoalFinished || len(doc.Trace) != 2 {
			t.Fatalf("the result of an accepted goal: %+v, %v", doc, err)
		}
	})
	t.Run("ended before its report", func(t *testing.T) {
		delete(files, "17/report.md")
		if _, report, err := follow.ReadGoal(context.Background(), files, info); err != nil || report != "" {
			t.Fatalf("report %q, %v", report, err)
		}
	})
	t.Run("unfinished", func(t *testing.T) {
		running := info
		running.Status, running.Events = lunad.RunRunning, info.Events[:4]
		if _, _, err := follow.ReadGoal(context.Background(), files, running); !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "has not finished") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("a trace that does not decode", func(t *testing.T) {
		bad := runFiles{"7/trace/0001.json": "{"}
		if _, _, err := follow.ReadGoal(context.Background(), bad, info); !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "goal R1, step 1: the trace does not decode") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("a store that fails", func(t *testing.T) {
		bad := runFiles{"broken": "disk on fire"}
		if _, _, err := follow.ReadGoal(context.Background(), bad, info); err == nil || !strings.Contains(err.Error(), "disk on fire") {
			t.Fatalf("%v", err)
		}
	})
}

// TestGoalFiles: a goal's files lie in the repository's common git
// directory, from the main checkout and from a linked worktree alike;
// Keep writes them whole.
func TestGoalFiles(t *testing.T) {
	root := t.TempDir()
	common := filepath.Join(root, ".git")
	linkedGit := filepath.Join(common, "worktrees", "wt")
	wt := filepath.Join(t.TempDir(), "wt")
	for _, d := range []string{filepath.Join(common, "objects"), linkedGit, wt} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{
		filepath.Join(common, "HEAD"):         "ref: refs/heads/main\n",
		filepath.Join(linkedGit, "HEAD"):      "ref: refs/heads/feature\n",
		filepath.Join(linkedGit, "commondir"): "../..\n",
		filepath.Join(wt, ".git"):             "gitdir: " + linkedGit + "\n",
	} {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := follow.GoalFiles{Report: filepath.Join(common, "luna", "goals", "R1.md"), Trace: filepath.Join(common, "luna", "goals", "R1.json")}
	for _, dir := range []string{root, wt} {
		if got, err := follow.GoalFilesOf(dir, "R1"); err != nil || got != want {
			t.Errorf("GoalFilesOf(%s) = %+v, %v; want %+v", dir, got, err, want)
		}
	}
	for _, bad := range []string{"", "..", "a/b", "."} {
		if _, err := follow.GoalFilesOf(root, bad); !errors.Is(err, lunad.ErrInvalid) {
			t.Errorf("GoalFilesOf(%q): %v", bad, err)
		}
	}
	doc := lunad.GoalTrace{Result: lunad.GoalResult{Run: "R1"}, Trace: []lunad.GoalStep{{Step: 1}}}
	if err := want.Keep(doc, "# report\n"); err != nil {
		t.Fatal(err)
	}
	var back lunad.GoalTrace
	b, _ := os.ReadFile(want.Trace)
	if err := json.Unmarshal(b, &back); err != nil || back.Result.Run != "R1" || len(back.Trace) != 1 {
		t.Errorf("the trace file: %s, %v", b, err)
	}
	if b, _ := os.ReadFile(want.Report); string(b) != "# report\n" {
		t.Errorf("the report file: %q", b)
	}
	if left, _ := filepath.Glob(filepath.Join(common, "luna", "goals", ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
