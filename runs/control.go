package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/lunad/lunad"
)

// Run returns a run's state with its events; *lunad.RunNotFoundError if
// there is no such run.
func (e *Engine) Run(ctx context.Context, id string) (lunad.RunInfo, error) {
	st, events, err := e.read(ctx, id)
	if err != nil {
		return lunad.RunInfo{}, err
	}
	info := st.info
	info.Events, info.Commit = events, st.tip
	return e.stalledInfo(info), nil
}

func (e *Engine) read(ctx context.Context, id string) (*state, []lunad.RunEvent, error) {
	events, tip, err := e.opts.Store.RunLog(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return fold(events, tip), events, nil
}

// Runs lists every run, newest first, without their events.
func (e *Engine) Runs(ctx context.Context) ([]lunad.RunInfo, error) {
	ids, err := e.opts.Store.Runs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]lunad.RunInfo, 0, len(ids))
	for id := range ids {
		st, _, err := e.read(ctx, id)
		if err != nil {
			return nil, err
		}
		info := st.info
		info.Commit = st.tip
		out = append(out, e.stalledInfo(info))
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.After(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// DeadLetters lists the dead-lettered runs: each names the stage and the
// error, and `lunad run retry` resumes it.
func (e *Engine) DeadLetters(ctx context.Context) ([]lunad.RunInfo, error) {
	all, err := e.Runs(ctx)
	if err != nil {
		return nil, err
	}
	var out []lunad.RunInfo
	for _, r := range all {
		if r.Status == lunad.RunDeadLettered {
			out = append(out, r)
		}
	}
	return out, nil
}

// Wait waits until the run is no longer being driven (finished, or the
// engine closed) or ctx is done, and returns it.
func (e *Engine) Wait(ctx context.Context, id string) (lunad.RunInfo, error) {
	e.mu.Lock()
	r := e.live[id]
	e.mu.Unlock()
	if r != nil {
		select {
		case <-r.done:
		case <-ctx.Done():
			return lunad.RunInfo{}, ctx.Err()
		}
	}
	return e.Run(ctx, id)
}

// Cancel stops a running run (its agent is stopped) and records
// RUN_CANCELLED; a dead-lettered or aborted run is cancelled too, which
// takes it off the dead-letter list. ErrInvalid for a run that completed
// or was cancelled.
func (e *Engine) Cancel(ctx context.Context, id string) (lunad.RunInfo, error) {
	e.mu.Lock()
	r := e.live[id]
	e.mu.Unlock()
	if r != nil {
		r.cancel(errCancelled)
		<-r.done
		return e.Run(ctx, id)
	}
	st, _, err := e.read(ctx, id)
	if err != nil {
		return lunad.RunInfo{}, err
	}
	if st.info.Status.Ended() || st.info.Status == lunad.RunCancelled {
		return lunad.RunInfo{}, fmt.Errorf("%w: run %s is %s already", lunad.ErrInvalid, id, st.info.Status)
	}
	ev := st.event(lunad.EventRunCancelled, e.now())
	ev.Error = "cancelled by request"
	if err := e.appendAfter(&run{id: id, st: st}, st.tip, []lunad.RunRecord{{Event: ev}}); err != nil {
		return lunad.RunInfo{}, err
	}
	return e.Run(ctx, id)
}

// Retry resumes an aborted or dead-lettered run: its failed stage visit
// gets a fresh attempt limit and runs again (RUN_RETRIED). ErrInvalid for
// a run in any other status.
func (e *Engine) Retry(ctx context.Context, id string) (lunad.RunInfo, error) {
	e.mu.Lock()
	_, running := e.live[id]
	e.mu.Unlock()
	st, _, err := e.read(ctx, id)
	if err != nil {
		return lunad.RunInfo{}, err
	}
	if !running && e.isStalled(id) && st.phase != phaseFinished {
		// Stopped for want of space before its log said so: drive it
		// again from its log as it is.
		info := st.info // before the driver changes st
		if err := e.resume(ctx, st); err != nil {
			return lunad.RunInfo{}, err
		}
		return info, nil
	}
	if running || (st.info.Status != lunad.RunAborted && st.info.Status != lunad.RunDeadLettered) || st.visit == 0 {
		return lunad.RunInfo{}, fmt.Errorf("%w: run %s is %s; only an aborted or dead-lettered run that entered a stage can be retried", lunad.ErrInvalid, id, st.info.Status)
	}
	if st.info.Accepted != "" || st.info.Discarded {
		return lunad.RunInfo{}, fmt.Errorf("%w: run %s was accepted or discarded: its branch %s is gone; start the workflow again", lunad.ErrInvalid, id, st.info.Branch)
	}
	ev := st.stageEvent(lunad.EventRunRetried, e.now())
	ev.Error = ""
	tip, err := e.opts.Store.AppendRun(ctx, id, st.tip, []lunad.RunRecord{{Event: ev}})
	if err != nil {
		return lunad.RunInfo{}, err
	}
	ev.Seq = st.seq + 1
	st.apply(ev)
	st.tip = tip
	info := st.info // before the driver changes st
	if err := e.resume(ctx, st); err != nil {
		return lunad.RunInfo{}, err
	}
	return info, nil
}

// Prune replaces the log of every run finished more than olderThan ago by
// a summary of it (RUN_PRUNED: its status, path and stages, no events),
// and returns the IDs pruned.
func (e *Engine) Prune(ctx context.Context, olderThan time.Duration) ([]string, error) {
	ids, err := e.opts.Store.Runs(ctx)
	if err != nil {
		return nil, err
	}
	cutoff := e.now().Add(-olderThan)
	var pruned []string
	for id := range ids {
		st, events, err := e.read(ctx, id)
		if err != nil {
			return pruned, err
		}
		last := events[len(events)-1]
		if st.phase != phaseFinished || last.Type == lunad.EventRunPruned || !st.info.Updated.Before(cutoff) {
			continue
		}
		sum, _ := json.Marshal(st.info)
		ev := st.event(lunad.EventRunPruned, e.now())
		ev.Seq, ev.Output = 1, sum
		if _, err := e.opts.Store.ReplaceRun(ctx, id, st.tip, lunad.RunRecord{Event: ev}); err != nil {
			return pruned, err
		}
		pruned = append(pruned, id)
	}
	sort.Strings(pruned)
	return pruned, nil
}
