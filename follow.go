package lunad

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// FollowRun reads run id every poll until it has finished, calling
// onEvent (if not nil) once for each of its events, in order, as they
// appear; it returns the finished run with its events. It returns the
// error of a read, or ctx's once ctx is done (the run goes on: cancelling
// it is the caller's choice). The adapters follow an ask with it to show
// its progress.
func FollowRun(ctx context.Context, r WorkflowRuns, id string, poll time.Duration, onEvent func(RunEvent)) (RunInfo, error) {
	tick := time.NewTicker(poll)
	defer tick.Stop()
	seen := 0
	for {
		info, err := r.Run(ctx, id)
		if err != nil {
			if ctx.Err() != nil {
				return info, ctx.Err()
			}
			return info, err
		}
		for ; seen < len(info.Events); seen++ {
			if onEvent != nil {
				onEvent(info.Events[seen])
			}
		}
		if info.Status.Finished() {
			return info, nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return info, ctx.Err()
		}
	}
}

// Progress words e for a person following its run: "writer: working",
// "supervise: done, next writer", "writer: committed notes/a.md v3",
// "writer: failed: ..."; "" for the engine's bookkeeping (enqueued,
// duplicates).
func (e RunEvent) Progress() string {
	switch e.Type {
	case EventStageStarted:
		if e.Attempt > 1 {
			return fmt.Sprintf("%s: attempt %d", e.Stage, e.Attempt)
		}
		return e.Stage + ": working"
	case EventStageSucceeded:
		if e.Next != "" && e.Next != "end" {
			return fmt.Sprintf("%s: done, next %s", e.Stage, e.Next)
		}
		return e.Stage + ": done"
	case EventStageCommitted:
		var paths []string
		for _, w := range e.Writes {
			paths = append(paths, fmt.Sprintf("%s v%d", w.Path, w.Version))
		}
		if len(paths) == 0 {
			return ""
		}
		return fmt.Sprintf("%s: committed %s", e.Stage, strings.Join(paths, ", "))
	case EventStageFailed:
		return fmt.Sprintf("%s: failed: %s", e.Stage, firstLine(e.Error))
	case EventStageConflict:
		return fmt.Sprintf("%s: not written: %s", e.Stage, firstLine(e.Error))
	case EventRetryScheduled:
		return fmt.Sprintf("%s: retrying at %s", e.Stage, e.RetryAt.UTC().Format(time.TimeOnly))
	case EventRunCompleted, EventRunAborted, EventRunCancelled, EventDeadLettered:
		done := strings.ToLower(strings.TrimPrefix(string(e.Type), "RUN_"))
		if e.Outcome != "" {
			done = e.Outcome // the workflow's own end: question, stopped, ...
		}
		if e.Error != "" {
			return fmt.Sprintf("%s: %s", done, firstLine(e.Error))
		}
		return done
	}
	return ""
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
