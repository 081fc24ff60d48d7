package lunad

import (
	"fmt"
	"path/filepath"
)

// GoalFiles are where a finished goal's report and trace are kept as
// files, outside the working tree, for editors and the command line to
// open: the daemon that ran the goal writes them when it ends, from the
// run's own files (report.md, trace/NNNN.json), which stay the record.
type GoalFiles struct {
	// Report is the Markdown report: <git common dir>/luna/goals/RUN.md.
	Report string
	// Trace is the JSON document `lunad goal show RUN --json` prints,
	// {"result": GoalResult, "trace": [GoalStep, …]}:
	// <git common dir>/luna/goals/RUN.json.
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

// GoalTrace is the document GoalFiles.Trace holds and `lunad goal show
// RUN --json` prints: the goal's result and every step, oldest first.
type GoalTrace struct {
	Result GoalResult `json:"result"`
	Trace  []GoalStep `json:"trace"`
}
