package follow

import (
	"fmt"
	"strings"
	"time"

	"github.com/lunad/lunad"
)

// Progress words e for a person following its run: "writer: working",
// "supervise: done, next writer", "writer: committed notes/a.md v3",
// "writer: failed: ..."; "" for the engine's bookkeeping (enqueued,
// duplicates).
func Progress(e lunad.RunEvent) string {
	switch e.Type {
	case lunad.EventStageStarted:
		if e.Attempt > 1 {
			return fmt.Sprintf("%s: attempt %d", e.Stage, e.Attempt)
		}
		return e.Stage + ": working"
	case lunad.EventStageSucceeded:
		if e.Next != "" && e.Next != "end" {
			return fmt.Sprintf("%s: done, next %s", e.Stage, e.Next)
		}
		return e.Stage + ": done"
	case lunad.EventStageCommitted:
		var paths []string
		for _, w := range e.Writes {
			paths = append(paths, fmt.Sprintf("%s v%d", w.Path, w.Version))
		}
		if len(paths) == 0 {
			return ""
		}
		return fmt.Sprintf("%s: committed %s", e.Stage, strings.Join(paths, ", "))
	case lunad.EventStageFailed:
		return fmt.Sprintf("%s: failed: %s", e.Stage, lunad.FirstLine(e.Error))
	case lunad.EventStageConflict:
		return fmt.Sprintf("%s: not written: %s", e.Stage, lunad.FirstLine(e.Error))
	case lunad.EventRetryScheduled:
		return fmt.Sprintf("%s: retrying at %s", e.Stage, e.RetryAt.UTC().Format(time.TimeOnly))
	case lunad.EventRunCompleted, lunad.EventRunAborted, lunad.EventRunCancelled, lunad.EventDeadLettered:
		done := strings.ToLower(strings.TrimPrefix(string(e.Type), "RUN_"))
		if e.Outcome != "" {
			done = e.Outcome // the workflow's own end: question, stopped, ...
		}
		if e.Error != "" {
			return fmt.Sprintf("%s: %s", done, lunad.FirstLine(e.Error))
		}
		return done
	}
	return ""
}
