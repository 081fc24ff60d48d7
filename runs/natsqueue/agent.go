package natsqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/runs/procagent"
)

const (
	// deleteWait bounds the deletion of a stage message nobody waits for.
	deleteWait = 2 * time.Second
	// lookupEvery is how often a Process that was sent a result it
	// refused reads the results stream for the real one.
	lookupEvery = 2 * time.Second
)

// agent is a stage's agent through the queue: a worker runs the command.
type agent struct {
	q       *Queue
	argv    []string
	timeout time.Duration
	local   *procagent.Agent // for Version only: never run here
}

// NewAgent returns the agent of a stage whose command is argv: its
// Process publishes a stage message and waits for a worker's result. Its
// signature is runs.Options.NewProcess's. Version is the process agent's
// (package procagent), computed from the files of root, the daemon's
// workspace.
func (q *Queue) NewAgent(root string, argv []string, timeout time.Duration) (lunad.Agent, error) {
	local, err := procagent.New(root, argv, procagent.Options{Timeout: timeout})
	if err != nil {
		return nil, err
	}
	return &agent{q: q, argv: append([]string(nil), argv...), timeout: timeout, local: local}, nil
}

func (a *agent) Version() string { return a.local.Version() }

// Process publishes req's stage message with Nats-Msg-Id
// "<idempotency key>/<attempt>" and waits for its result until ctx is
// done. A worker's response is returned as it is; a worker's failure to
// get one as an *lunad.AgentError with the worker's Permanent flag. No
// answer in time, a message JetStream gave up on (max deliveries, or a
// worker terminated it) and a closing queue are transient AgentErrors:
// the engine's retry policy decides. When ctx is cancelled, ctx's error
// is returned, wrapped.
func (a *agent) Process(ctx context.Context, req lunad.StageRequest) (lunad.StageResponse, error) {
	q := a.q
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return lunad.StageResponse{}, transient("the queue is closed")
	}
	q.calls.Add(1)
	q.mu.Unlock()
	defer q.calls.Done()
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	defer context.AfterFunc(q.ctx, func() { stop(errQueueClosed) })()

	id := msgID(req)
	log := q.log.With("run", req.RunID, "stage", req.Stage, "attempt", req.Attempt, "msg_id", id)
	data, err := json.Marshal(stageMsg{Request: req, Argv: a.argv, TimeoutMS: a.timeout.Milliseconds(),
		AgentVersion: a.Version(), Sent: time.Now().UTC()})
	if err != nil {
		return lunad.StageResponse{}, &lunad.AgentError{Permanent: true, Err: fmt.Errorf("encoding the stage message: %w", err)}
	}

	// Subscribe to the result before publishing, so that none is missed;
	// one published while this connection is away is looked up in the
	// results stream when it is back.
	rsubj := q.resultSubject(req)
	results := make(chan *nats.Msg, 64)
	sub, err := q.nc.ChanSubscribe(rsubj, results)
	if err != nil {
		return lunad.StageResponse{}, transient("subscribing to the result: " + err.Error())
	}
	defer sub.Unsubscribe()

	ack, err := q.publish(ctx, q.stageSubject(req.Workflow, req.Stage), id, data, kindStage, identityOf(req))
	if err != nil {
		return lunad.StageResponse{}, a.ended(ctx, "the stage message could not be published")
	}
	if ack.Duplicate {
		log.Info("stage message is a duplicate: the server already holds this attempt and stored it once", "seq", ack.Sequence)
	} else {
		log.Debug("stage message published", "seq", ack.Sequence)
	}
	w := q.wait(ack.Sequence)
	defer q.unwait(w)

	lookup := ack.Duplicate // a result may predate the subscription
	var poll <-chan time.Time
	for {
		if lookup {
			lookup = false
			if resp, err, ok := a.lookup(ctx, log, rsubj, req); ok {
				return resp, err
			}
		}
		reconn := q.reconnects()
		select {
		case m := <-results:
			if resp, err, ok := a.result(log, m.Subject, m.Header, m.Data, req, true); ok {
				return resp, err
			}
			// Someone publishes what no worker signed: a flood of them
			// may have crowded the real result out of this
			// subscription, so the stream is read from now on.
			if poll == nil {
				t := time.NewTicker(lookupEvery)
				defer t.Stop()
				poll = t.C
			}
		case <-poll:
			lookup = true
		case why := <-w.gone:
			log.Warn("stage message abandoned", "why", why)
			a.forget(ack.Sequence)
			return lunad.StageResponse{}, transient(why)
		case <-reconn:
			lookup = true
		case <-ctx.Done():
			a.forget(ack.Sequence)
			return lunad.StageResponse{}, a.ended(ctx, "no worker answered")
		}
	}
}

var errQueueClosed = errors.New("the queue is closed")

// ended is the error of a Process whose ctx is done.
func (a *agent) ended(ctx context.Context, what string) error {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errQueueClosed):
		return transient(what + ": " + cause.Error())
	case errors.Is(cause, context.DeadlineExceeded):
		msg := what + " within the stage's timeout"
		if a.timeout > 0 {
			msg = fmt.Sprintf("%s within %v", what, a.timeout)
		}
		return &lunad.AgentError{Err: timeoutError(msg)}
	default:
		return fmt.Errorf("queue agent: %s: %w", what, ctx.Err())
	}
}

// forget deletes a stage message nobody waits for any more, so that no
// worker runs it late: the engine retries with a new attempt, a new
// message. (A worker running it already finishes; its result is kept in
// the results stream and read by no one.)
func (a *agent) forget(seq uint64) {
	ctx, cancel := context.WithTimeout(context.Background(), deleteWait)
	defer cancel()
	if err := a.q.stages.DeleteMsg(ctx, seq); err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
		a.q.log.Debug("stage message not deleted", "seq", seq, "err", err)
	}
}

// maxLookup bounds the results of one attempt lookup reads: a flood of
// refused messages on the subject costs the attempt its timeout, not the
// daemon its time.
const maxLookup = 256

// lookup reads the results stream for the first result of req's attempt
// that a registered worker signed (ok), skipping and counting the others.
func (a *agent) lookup(ctx context.Context, log *slog.Logger, subject string, req lunad.StageRequest) (lunad.StageResponse, error, bool) {
	seq := uint64(1)
	for range maxLookup {
		m, err := a.q.results.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subject))
		if err != nil {
			if !errors.Is(err, jetstream.ErrMsgNotFound) && ctx.Err() == nil {
				log.Warn("cannot look the result up", "err", err)
			}
			return lunad.StageResponse{}, nil, false
		}
		if resp, err, ok := a.result(log, m.Subject, m.Header, m.Data, req, false); ok {
			return resp, err, true
		}
		seq = m.Sequence + 1
	}
	return lunad.StageResponse{}, nil, false
}

// result decodes a worker's result for req, received on subject, and
// reports whether it is one (ok): signed by a registered worker's key and
// answering req's attempt. Any other message is dropped; one that arrived
// (live) is logged with a warning and counted, one read again from the
// stream (a lookup) only skipped. The attempt goes on waiting.
func (a *agent) result(log *slog.Logger, subject string, h nats.Header, data []byte, req lunad.StageRequest, live bool) (lunad.StageResponse, error, bool) {
	drop := func(what string, err error) (lunad.StageResponse, error, bool) {
		if live {
			a.q.drop(log, what, err, subject)
		} else {
			log.Debug(what+" skipped: "+err.Error(), "subject", subject)
		}
		return lunad.StageResponse{}, nil, false
	}
	var r resultMsg
	if err := json.Unmarshal(data, &r); err != nil {
		return drop("a result that does not decode", err)
	}
	want := identityOf(req)
	if r.For != want {
		return drop("a result for another attempt", fmt.Errorf("it answers run %q stage %q attempt %d, not this one", r.For.Run, r.For.Stage, r.For.Attempt))
	}
	signer, err := verify(a.q.trusted, h, kindResult, subject, want, data)
	if err != nil {
		return drop("a result that no registered worker signed", err)
	}
	log = log.With("signer", signer)
	resp, err := a.response(log, r)
	return resp, err, true
}

// response is what a worker's verified result says.
func (a *agent) response(log *slog.Logger, r resultMsg) (lunad.StageResponse, error) {
	if v := a.Version(); r.AgentVersion != "" && r.AgentVersion != v {
		log.Warn("the worker ran another version of the agent", "worker", r.Worker, "worker_version", r.AgentVersion, "version", v)
	}
	if r.Response == nil {
		msg := r.Error
		if msg == "" {
			msg = "no response and no error"
		}
		return lunad.StageResponse{}, &lunad.AgentError{Permanent: r.Permanent, Err: fmt.Errorf("worker %s: %s", r.Worker, msg)}
	}
	return *r.Response, nil
}

func transient(msg string) error { return &lunad.AgentError{Err: errors.New(msg)} }

// timeoutError matches context.DeadlineExceeded with errors.Is, as the
// process agent's timeouts do.
type timeoutError string

func (e timeoutError) Error() string        { return string(e) }
func (e timeoutError) Is(target error) bool { return target == context.DeadlineExceeded }
