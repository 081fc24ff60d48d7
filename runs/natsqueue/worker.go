package natsqueue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/runs/procagent"
)

const (
	// fetchWait is how long one pull waits for a stage message. It is
	// not cut short when Run's ctx ends, so that the server never hands a
	// message to a pull nobody reads (a message fetched then is nak'ed).
	fetchWait = time.Second
	// ackTry bounds the acknowledgement of a stage message.
	ackTry = 5 * time.Second
	// workersConsumer is the durable consumer of the workers that run
	// every stage; workers with an Agents filter share one named after it.
	workersConsumer = "workers"
)

// WorkerOptions configure a Worker. The zero value is usable.
type WorkerOptions struct {
	// Slots is how many stages the worker runs at once (default 1).
	Slots int
	// Agents restricts the worker to some stages: each entry is
	// "WORKFLOW" (every stage of that workflow) or "WORKFLOW.STAGE". Empty:
	// every stage. Workers with the same Agents share one durable
	// consumer; JetStream refuses consumers of one work queue whose
	// filters overlap, so the filters of a deployment's workers must
	// partition the stages (Run returns the server's error otherwise).
	Agents []string
	// Name identifies the worker in results and logs (default
	// "HOSTNAME:PID").
	Name string
	// Logger receives the worker's progress (default slog.Default()).
	Logger *slog.Logger
	// Sandbox runs the stages' commands. Nil: the worker runs only the
	// stages whose workflow says `sandbox = false`, and refuses the
	// others.
	Sandbox Sandbox
}

// Worker runs stages from the queue with the process agent in its own
// clone of the workspace and publishes their results.
type Worker struct {
	q    *Queue
	root string
	opts WorkerOptions
	log  *slog.Logger
}

// NewWorker returns a worker running stages in root, its clone of the
// workspace (the commands' working directory). Run starts it.
func NewWorker(q *Queue, root string, opts WorkerOptions) *Worker {
	if opts.Slots <= 0 {
		opts.Slots = 1
	}
	if opts.Name == "" {
		host, _ := os.Hostname()
		opts.Name = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Worker{q: q, root: root, opts: opts, log: log.With("worker", opts.Name)}
}

// Run consumes stage messages until ctx is done, running up to Slots
// stages at once, and returns nil then, once the stages in flight are
// stopped (their messages are nak'ed: another worker runs them). It
// returns an error without waiting for ctx when its Agents are invalid or
// the server refuses its consumer; while the server is away it waits.
func (w *Worker) Run(ctx context.Context) error {
	name, subjects, err := w.filter()
	if err != nil {
		return err
	}
	var cons jetstream.Consumer
	for wait := 100 * time.Millisecond; ; wait = min(wait*2, 2*time.Second) {
		cons, err = w.consumer(ctx, name, subjects)
		if err == nil {
			break
		}
		// A request the server refuses (400: an overlapping filter, a
		// bad configuration) is final; anything else (the server away or
		// recovering) is waited out.
		var apiErr *jetstream.APIError
		if errors.As(err, &apiErr) && apiErr.Code == 400 {
			return fmt.Errorf("worker %s: consumer %s: %w", w.opts.Name, name, err)
		}
		if ctx.Err() != nil {
			return nil
		}
		w.log.Warn("cannot reach the queue's consumer; trying again", "consumer", name, "err", err)
		if !sleep(ctx, wait) {
			return nil
		}
	}
	ackWait := cons.CachedInfo().Config.AckWait
	w.log.Info("worker started", "consumer", name, "root", w.root, "slots", w.opts.Slots, "ack_wait", ackWait)

	slots := make(chan struct{}, w.opts.Slots)
	var stages sync.WaitGroup
	defer stages.Wait()
	fails := 0
	for {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		msg, err := fetch(cons)
		if ctx.Err() != nil {
			if msg != nil {
				msg.Nak()
			}
			return nil
		}
		if err != nil {
			<-slots
			fails++
			if fails == 1 || fails%20 == 0 {
				w.log.Warn("cannot fetch from the queue; trying again", "err", err, "tries", fails)
			}
			if errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrConsumerDeleted) {
				if c, err := w.consumer(ctx, name, subjects); err == nil {
					cons = c
				}
			}
			sleep(ctx, min(time.Duration(fails)*100*time.Millisecond, 2*time.Second))
			continue
		}
		fails = 0
		if msg == nil {
			<-slots
			continue
		}
		stages.Add(1)
		go func() {
			defer stages.Done()
			defer func() { <-slots }()
			w.handle(ctx, msg, ackWait)
		}()
	}
}

// filter is the worker's consumer name and filter subjects.
func (w *Worker) filter() (string, []string, error) {
	var subjects []string
	for _, a := range w.opts.Agents {
		wf, stage, hasStage := strings.Cut(a, ".")
		if !safeToken().MatchString(wf) || hasStage && !safeToken().MatchString(stage) {
			return "", nil, fmt.Errorf("%w: worker agents %q: want WORKFLOW or WORKFLOW.STAGE", lunad.ErrInvalid, a)
		}
		if !hasStage {
			stage = "*"
		}
		subjects = append(subjects, w.q.opts.Name+".stages."+wf+"."+stage)
	}
	if len(subjects) == 0 {
		return workersConsumer, nil, nil
	}
	slices.Sort(subjects)
	subjects = slices.Compact(subjects)
	h := sha256.Sum256([]byte(strings.Join(subjects, "\n")))
	return workersConsumer + "-" + hex.EncodeToString(h[:4]), subjects, nil
}

// consumer looks the durable consumer up, creating it when it is missing.
func (w *Worker) consumer(ctx context.Context, name string, subjects []string) (jetstream.Consumer, error) {
	ctx, cancel := context.WithTimeout(ctx, publishTry)
	defer cancel()
	js, stream := w.q.js, w.q.stageStream
	c, err := js.Consumer(ctx, stream, name)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		c, err = js.CreateConsumer(ctx, stream, jetstream.ConsumerConfig{
			Durable:        name,
			Description:    "lunad workers",
			DeliverPolicy:  jetstream.DeliverAllPolicy,
			AckPolicy:      jetstream.AckExplicitPolicy,
			AckWait:        w.q.opts.AckWait,
			MaxDeliver:     w.q.opts.MaxDeliver,
			FilterSubjects: subjects,
		})
		if errors.Is(err, jetstream.ErrConsumerExists) {
			c, err = js.Consumer(ctx, stream, name)
		}
	}
	return c, err
}

// fetch pulls one stage message, or none within fetchWait.
func fetch(cons jetstream.Consumer) (jetstream.Msg, error) {
	batch, err := cons.Fetch(1, jetstream.FetchMaxWait(fetchWait))
	if err != nil {
		return nil, err
	}
	var msg jetstream.Msg
	for m := range batch.Messages() {
		msg = m
	}
	if msg == nil {
		return nil, batch.Error()
	}
	return msg, nil
}

// handle runs one stage message: the agent, with heartbeats, then the
// result, then the acknowledgement — in that order, so that a worker
// killed on the way leaves the message to be redelivered.
func (w *Worker) handle(ctx context.Context, msg jetstream.Msg, ackWait time.Duration) {
	m, ok := w.authentic(msg)
	if !ok {
		return
	}
	req := m.Request
	id := msg.Headers().Get(jetstream.MsgIDHeader)
	if id == "" {
		id = msgID(req)
	}
	log := w.log.With("run", req.RunID, "stage", req.Stage, "attempt", req.Attempt, "msg_id", id)
	if md, err := msg.Metadata(); err == nil && md.NumDelivered > 1 {
		log.Info("stage message redelivered", "delivery", md.NumDelivered)
	}

	// Heartbeats tell the server the message is being worked on, until
	// the result is published.
	hbCtx, stopHB := context.WithCancel(context.Background())
	var hb sync.WaitGroup
	hb.Add(1)
	go func() {
		defer hb.Done()
		t := time.NewTicker(max(ackWait/3, 10*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-t.C:
				if err := msg.InProgress(); err != nil {
					log.Debug("heartbeat not sent", "err", err)
				}
			case <-hbCtx.Done():
				return
			}
		}
	}()
	heartbeats := func() { stopHB(); hb.Wait() }

	res := w.run(ctx, log, m)
	if ctx.Err() != nil {
		heartbeats()
		msg.Nak()
		log.Info("worker stopping: stage stopped, its message left for another worker")
		return
	}
	data, err := json.Marshal(res)
	if err != nil {
		res = resultMsg{Error: "encoding the result: " + err.Error(), Worker: res.Worker, AgentVersion: res.AgentVersion}
		data, _ = json.Marshal(res)
	}
	sum := sha256.Sum256(data) // a result's ID no one can take before it
	ack, err := w.q.publish(ctx, w.q.resultSubject(req), id+"/result/"+hex.EncodeToString(sum[:8]), data, kindResult, identityOf(req))
	heartbeats()
	if err != nil {
		msg.Nak()
		log.Info("worker stopping: result not published, the stage message is left for another worker", "err", err)
		return
	}
	if ack.Duplicate {
		log.Info("result is a duplicate: the server already holds one for this attempt")
	}
	actx, cancel := context.WithTimeout(context.Background(), ackTry)
	defer cancel()
	if err := msg.DoubleAck(actx); err != nil {
		log.Warn("stage message not acknowledged: it may be redelivered and run again (its result is deduplicated)", "err", err)
		return
	}
	log.Debug("stage done", "ok", res.Response != nil)
}

// authentic decodes a stage message and checks that one of the worker's
// daemons signed it for the attempt it names, recently. Any other is
// terminated (never redelivered), logged and counted: nothing runs.
func (w *Worker) authentic(msg jetstream.Msg) (stageMsg, bool) {
	var m stageMsg
	refuse := func(what string, err error) (stageMsg, bool) {
		w.q.drop(w.log, what, err, msg.Subject())
		msg.TermWithReason("refused: " + what)
		return stageMsg{}, false
	}
	if err := json.Unmarshal(msg.Data(), &m); err != nil {
		return refuse("a stage message that does not decode", err)
	}
	if len(m.Argv) == 0 || m.Request.IdempotencyKey == "" {
		return refuse("a stage message without a command or an idempotency key", errors.New("not a lunad stage message"))
	}
	if _, err := verify(w.q.trusted, msg.Headers(), kindStage, msg.Subject(), identityOf(m.Request), msg.Data()); err != nil {
		return refuse("a stage message that no registered daemon signed", err)
	}
	if w.stale(m.Sent, time.Duration(m.TimeoutMS)*time.Millisecond) {
		return refuse("a stale stage message", fmt.Errorf("sent %v, before the queue's duplicate window: a replay", m.Sent))
	}
	return m, true
}

// run runs the stage in the worker's clone: the command of the clone's
// own workflow file (Worker.stage), in the sandbox unless that file says
// `sandbox = false`. An isolated run's worktree on the daemon's machine
// means nothing here: the command runs in the clone.
func (w *Worker) run(ctx context.Context, log *slog.Logger, m stageMsg) resultMsg {
	res := resultMsg{For: identityOf(m.Request), Worker: w.opts.Name}
	st, err := w.stage(m)
	if err != nil {
		var r *refusal
		errors.As(err, &r)
		log.Warn("stage refused", "err", err)
		res.Error, res.Permanent = err.Error(), r.permanent
		return res
	}
	pa, err := procagent.New(w.root, st.Command, procagent.Options{Timeout: st.Timeout, Logger: log})
	if err != nil {
		res.Error, res.Permanent = err.Error(), true
		return res
	}
	res.AgentVersion = pa.Version()
	if m.AgentVersion != "" && m.AgentVersion != res.AgentVersion {
		log.Warn("this clone's agent differs from the daemon's", "version", res.AgentVersion, "daemon_version", m.AgentVersion)
	}
	req := m.Request
	req.Dir, req.Branch = "", ""
	var resp lunad.StageResponse
	if st.Unsandboxed {
		log.Info("running the stage without the sandbox: its workflow says sandbox = false")
		resp, err = pa.Process(ctx, req)
	} else {
		resp, err = w.runSandboxed(ctx, st, req)
	}
	var ae *lunad.AgentError
	switch {
	case err == nil:
		res.Response = &resp
	case errors.As(err, &ae):
		res.Error, res.Permanent = ae.Error(), ae.Permanent
	default:
		res.Error = err.Error()
	}
	return res
}

// sleep waits d or until ctx is done, and reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
