package runs

import (
	"context"
	"encoding/json"

	"github.com/lunad/lunad"
)

// terminal reports whether an event ends a run.
func terminal(t lunad.EventType) bool {
	return t == lunad.EventRunCompleted || t == lunad.EventRunAborted || t == lunad.EventRunCancelled
}

// finish sets the Output of the terminal event among recs, about to be
// appended to r's log at its tip, to what Options.OnFinish makes of the run
// with those events. r.mu is held: the append follows at once.
func (e *Engine) finish(r *run, recs []lunad.RunRecord) error {
	last := len(recs) - 1
	if e.opts.OnFinish == nil || last < 0 || !terminal(recs[last].Event.Type) {
		return nil
	}
	if r.finishedAt == r.st.tip && r.finishedAt != "" {
		recs[last].Event.Output = r.finished // the same append, tried again
		return nil
	}
	events, _, err := e.opts.Store.RunLog(context.Background(), r.id)
	if err != nil {
		return err
	}
	seq := r.st.seq
	for _, rec := range recs {
		seq++
		ev := rec.Event
		ev.Seq = seq
		events = append(events, ev)
	}
	st := fold(events, r.st.tip)
	info := st.info
	info.Events, info.Commit = events, r.st.tip
	out := e.opts.OnFinish(context.Background(), info)
	if len(out) > 0 && !json.Valid(out) {
		e.opts.Logger.Error("OnFinish returned invalid JSON; the run's terminal event has no output", "run", r.id, "event", recs[last].Event.Type)
		out = nil
	}
	recs[last].Event.Output = out
	r.finished, r.finishedAt = out, r.st.tip
	return nil
}
