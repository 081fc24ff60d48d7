package follow

import (
	"context"
	"time"

	"github.com/lunad/lunad"
)

// Run reads run id every poll until it has finished, calling onEvent (if
// not nil) once for each of its events, in order, as they appear; it
// returns the finished run with its events. It returns the error of a
// read, or ctx's once ctx is done (the run goes on: cancelling it is the
// caller's choice). The adapters follow an ask or a goal with it to show
// its progress.
func Run(ctx context.Context, r lunad.WorkflowRuns, id string, poll time.Duration, onEvent func(lunad.RunEvent)) (lunad.RunInfo, error) {
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
