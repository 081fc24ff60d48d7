package follow

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/atomicfile"
	"github.com/lunad/lunad/internal/gitdir"
)

// GoalFiles are where a goal's report and trace are kept as files,
// outside the working tree, for editors to open: the surfaces that show a
// finished goal (lunad goal, the LSP's luna.goal) write them (Keep) from
// the run's own files (ReadGoal), which stay the record.
type GoalFiles struct {
	// Report is the Markdown report: <git common dir>/luna/goals/RUN.md.
	Report string
	// Trace is the lunad.GoalTrace as JSON:
	// <git common dir>/luna/goals/RUN.json.
	Trace string
}

// GoalFilesOf are the files of goal run in the checkout at or above dir
// (gitdir.Find). Errors: lunad.ErrNotWorkspace; lunad.ErrInvalid
// for a run ID that is not one (a path).
func GoalFilesOf(dir, run string) (GoalFiles, error) {
	if run == "" || filepath.Base(run) != run || run == "." || run == ".." {
		return GoalFiles{}, fmt.Errorf("%w: %q is not a run ID (lunad goal list shows them)", lunad.ErrInvalid, run)
	}
	c, err := gitdir.Find(dir)
	if err != nil {
		return GoalFiles{}, err
	}
	d := filepath.Join(c.CommonDir, "luna", "goals")
	return GoalFiles{Report: filepath.Join(d, run+".md"), Trace: filepath.Join(d, run+".json")}, nil
}

// Keep writes the report (unless "": a goal that ended before it) and the
// trace, each through a temporary file renamed over it, so a reader sees
// a whole file.
func (f GoalFiles) Keep(doc lunad.GoalTrace, report string) error {
	trace, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(f.Trace), 0o755); err != nil {
		return err
	}
	if report != "" {
		if err := keepFile(f.Report, []byte(report)); err != nil {
			return err
		}
	}
	return keepFile(f.Trace, append(trace, '\n'))
}

// keepFile replaces path with data, readable by all (an editor may run as
// another user).
func keepFile(path string, data []byte) error {
	if err := atomicfile.Write(path, data, atomicfile.Options{Perm: 0o644}); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
