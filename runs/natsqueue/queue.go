package natsqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/lunad/lunad"
)

// Defaults of Options.
const (
	DefaultName            = "LUNAD"
	DefaultAckWait         = 30 * time.Second
	DefaultMaxDeliver      = 5
	DefaultDuplicateWindow = time.Hour
	// resultsMaxAge is how long the results stream keeps a result: long
	// after the daemon read it, short enough not to grow without bound.
	resultsMaxAge = 24 * time.Hour
	// recentAbandoned is how many abandoned stage messages the queue
	// remembers for a Process call that registers after the advisory.
	recentAbandoned = 1024
	// publishTry bounds one try to publish; Process tries again until its
	// context is done.
	publishTry = 5 * time.Second
)

// Options configure a Queue. The zero value is usable.
type Options struct {
	// Name prefixes the streams and subjects (default "LUNAD"): stage
	// messages go to stream NAME_STAGES on subjects NAME.stages.>,
	// results to NAME_RESULTS on NAME.results.>. Letters, digits, '_'
	// and '-' only.
	Name string
	// AckWait is how long a worker may hold a stage message without a
	// heartbeat before JetStream redelivers it (default 30s). It applies
	// when this Queue creates the workers' consumer.
	AckWait time.Duration
	// MaxDeliver is how many times a stage message is delivered before
	// JetStream gives up on it (default 5); the waiting Process then
	// fails (see the package documentation). It applies when this Queue
	// creates the workers' consumer.
	MaxDeliver int
	// DuplicateWindow is how long the server remembers a message ID
	// (default 1h). It must cover the longest stage timeout: an attempt
	// is republished only within it. It applies when this Queue creates
	// the streams.
	DuplicateWindow time.Duration
	// Logger receives the queue's warnings (default slog.Default()).
	Logger *slog.Logger

	// KeyFile holds the seed of this process's signing key (LoadKey
	// creates it when missing): the daemon signs its stage messages with
	// it, a worker its results. Required.
	KeyFile string
	// Trusted are the public keys ("U…") whose messages this process acts
	// on: for a daemon, its registered workers' (results); for a worker,
	// its daemons' (stage messages). A message signed by no one of them is
	// dropped with a warning and counted (Queue.Dropped). Required.
	Trusted []string

	// The connection's credentials, at most one kind: User and Password,
	// NkeyFile (an nkeys user seed the server knows by its public key),
	// or CredsFile (a user JWT and seed, as `nsc` writes them). A user
	// and password in the URL work as well.
	User, Password string
	NkeyFile       string
	CredsFile      string
}

// Queue is a connection to a NATS JetStream server holding lunad's stage
// and result streams. It is safe for concurrent use. Close closes it.
type Queue struct {
	opts Options
	log  *slog.Logger
	nc   *nats.Conn
	js   jetstream.JetStream

	stageStream, resultStream string
	stages, results           jetstream.Stream

	key     nkeys.KeyPair   // signs what this process publishes
	trusted map[string]bool // the keys whose messages it acts on
	dropped atomic.Int64    // messages refused: see Dropped

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	calls  sync.WaitGroup // Process calls in flight

	mu        sync.Mutex
	closed    bool
	reconn    chan struct{}        // closed and replaced at each reconnect
	waiters   map[uint64][]*waiter // stage message sequence → waiting Process calls
	abandoned map[uint64]string    // recently abandoned sequences → why
	order     []uint64             // abandoned's keys, oldest first
	advSubs   []*nats.Subscription // advisory subscriptions
}

// waiter is a Process call waiting for its stage message's result; gone
// receives why JetStream abandoned the message.
type waiter struct {
	seq  uint64
	gone chan string // buffered, 1
}

var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

// Open connects to the NATS server at url (e.g. "nats://host:4222"; a
// comma-separated list for a cluster) and makes sure the stage and result
// streams exist, creating those that are missing. Existing streams are
// used as they are. The connection reconnects for ever; ctx bounds only
// the stream look-ups and creation.
func Open(ctx context.Context, url string, opts Options) (*Queue, error) {
	if opts.Name == "" {
		opts.Name = DefaultName
	}
	if !validName().MatchString(opts.Name) {
		return nil, fmt.Errorf("%w: queue name %q: only letters, digits, '_' and '-'", lunad.ErrInvalid, opts.Name)
	}
	if opts.AckWait < 0 || opts.MaxDeliver < 0 || opts.DuplicateWindow < 0 {
		return nil, fmt.Errorf("%w: negative queue option", lunad.ErrInvalid)
	}
	if opts.AckWait == 0 {
		opts.AckWait = DefaultAckWait
	}
	if opts.MaxDeliver == 0 {
		opts.MaxDeliver = DefaultMaxDeliver
	}
	if opts.DuplicateWindow == 0 {
		opts.DuplicateWindow = DefaultDuplicateWindow
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	key, trusted, auth, err := security(opts)
	if err != nil {
		return nil, err
	}
	// The URL may hold a password or a token: logs and errors show it
	// redacted.
	shown := redactURLs(url)
	q := &Queue{opts: opts, log: log.With("queue", shown),
		stageStream: opts.Name + "_STAGES", resultStream: opts.Name + "_RESULTS", key: key, trusted: trusted,
		reconn: make(chan struct{}), waiters: map[uint64][]*waiter{}, abandoned: map[uint64]string{}}
	q.ctx, q.cancel = context.WithCancel(context.Background())
	nc, err := nats.Connect(url, append(auth,
		nats.Name("lunad"),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250*time.Millisecond),
		nats.ReconnectJitter(250*time.Millisecond, time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if !q.isClosed() {
				q.log.Warn("disconnected from the NATS server; reconnecting", "err", err)
			}
		}),
		nats.ReconnectHandler(func(*nats.Conn) { q.reconnected() }),
		// The server's refusals (a permissions violation: the user's
		// subject permissions do not allow what lunad did) arrive here.
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			if errors.Is(err, nats.ErrPermissionViolation) || strings.Contains(err.Error(), "Permissions Violation") {
				q.log.Warn("the NATS server refused a request: check the user's subject permissions (docs/runs.md)", "err", err)
				return
			}
			q.log.Warn("NATS connection error", "err", err)
		}),
	)...)
	if err != nil {
		q.cancel()
		return nil, fmt.Errorf("queue %s: %w", shown, hideURLs(err, url))
	}
	q.nc = nc
	if err := q.setup(ctx); err != nil {
		q.Close()
		return nil, fmt.Errorf("queue %s: %w", shown, hideURLs(err, url))
	}
	return q, nil
}

// security is the signing key, the trusted keys and the connection's
// credentials opts name.
func security(opts Options) (nkeys.KeyPair, map[string]bool, []nats.Option, error) {
	if opts.KeyFile == "" {
		return nil, nil, nil, fmt.Errorf("%w: the queue needs a signing key file (Options.KeyFile)", lunad.ErrInvalid)
	}
	if len(opts.Trusted) == 0 {
		return nil, nil, nil, fmt.Errorf("%w: the queue trusts no key: register the other side's public key (a daemon its workers', a worker its daemon's)", lunad.ErrInvalid)
	}
	trusted := map[string]bool{}
	for _, k := range opts.Trusted {
		if !ValidPublicKey(k) {
			return nil, nil, nil, fmt.Errorf("%w: %q is not an nkeys user public key (\"U…\", as `lunad worker key` prints)", lunad.ErrInvalid, k)
		}
		trusted[k] = true
	}
	kinds := 0
	var auth []nats.Option
	if opts.User != "" || opts.Password != "" {
		kinds++
		auth = append(auth, nats.UserInfo(opts.User, opts.Password))
	}
	if opts.NkeyFile != "" {
		kinds++
		o, err := nats.NkeyOptionFromSeed(opts.NkeyFile)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%w: the connection's nkey seed %s: %v", lunad.ErrInvalid, opts.NkeyFile, err)
		}
		auth = append(auth, o)
	}
	if opts.CredsFile != "" {
		kinds++
		auth = append(auth, nats.UserCredentials(opts.CredsFile))
	}
	if kinds > 1 {
		return nil, nil, nil, fmt.Errorf("%w: give the connection one kind of credentials: a user and password, an nkey seed or a credentials file", lunad.ErrInvalid)
	}
	key, err := LoadKey(opts.KeyFile)
	if err != nil {
		return nil, nil, nil, err
	}
	return key, trusted, auth, nil
}

// Dropped is how many messages this queue refused since it opened: a
// daemon's results and a worker's stage messages that were unsigned,
// signed by a key it does not trust, forged, or about another attempt
// than the one they came for. None of them was acted on.
func (q *Queue) Dropped() int64 { return q.dropped.Load() }

// drop counts a refused message and says why.
func (q *Queue) drop(log *slog.Logger, what string, err error, subject string) {
	q.dropped.Add(1)
	log.Warn(what+" refused: "+err.Error(), "subject", subject, "dropped", q.dropped.Load())
}

// setup makes sure the streams exist and follows JetStream's advisories
// about the stage stream.
func (q *Queue) setup(ctx context.Context) error {
	js, err := jetstream.New(q.nc)
	if err != nil {
		return err
	}
	q.js = js
	q.stages, err = q.stream(ctx, jetstream.StreamConfig{
		Name:        q.stageStream,
		Description: "lunad stage messages",
		Subjects:    []string{q.opts.Name + ".stages.>"},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     jetstream.FileStorage,
		Duplicates:  q.opts.DuplicateWindow,
	})
	if err != nil {
		return err
	}
	q.results, err = q.stream(ctx, jetstream.StreamConfig{
		Name:        q.resultStream,
		Description: "lunad stage results",
		Subjects:    []string{q.opts.Name + ".results.>"},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		MaxAge:      resultsMaxAge,
		Duplicates:  q.opts.DuplicateWindow,
	})
	if err != nil {
		return err
	}
	for _, pre := range []string{"$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.", "$JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED."} {
		sub, err := q.nc.Subscribe(pre+q.stageStream+".*", q.advisory)
		if err != nil {
			return err
		}
		q.mu.Lock()
		q.advSubs = append(q.advSubs, sub)
		q.mu.Unlock()
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, publishTry)
		defer cancel()
	}
	return q.nc.FlushWithContext(ctx) // the advisory subscriptions are in place
}

// stream returns the stream cfg names, creating it only when it is
// missing (updating a stream on every start is neither needed nor safe
// to race with other daemons and workers).
func (q *Queue) stream(ctx context.Context, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	s, err := q.js.Stream(ctx, cfg.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		s, err = q.js.CreateStream(ctx, cfg)
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			s, err = q.js.Stream(ctx, cfg.Name) // created meanwhile by another process
		}
	}
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", cfg.Name, err)
	}
	return s, nil
}

// advisory handles a max-deliveries or terminated advisory: the stage
// message it names is abandoned by JetStream, and the Process call
// waiting for it fails.
func (q *Queue) advisory(m *nats.Msg) {
	var adv struct {
		Type       string `json:"type"`
		Consumer   string `json:"consumer"`
		StreamSeq  uint64 `json:"stream_seq"`
		Deliveries uint64 `json:"deliveries"`
		Reason     string `json:"reason"`
	}
	if err := json.Unmarshal(m.Data, &adv); err != nil || adv.StreamSeq == 0 {
		return
	}
	why := fmt.Sprintf("JetStream gave up on the stage message after %d deliveries to consumer %s", adv.Deliveries, adv.Consumer)
	if adv.Type == "io.nats.jetstream.advisory.v1.terminated" {
		why = fmt.Sprintf("a worker of consumer %s terminated the stage message", adv.Consumer)
		if adv.Reason != "" {
			why += ": " + adv.Reason
		}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.abandoned[adv.StreamSeq]; !ok {
		q.abandoned[adv.StreamSeq] = why
		q.order = append(q.order, adv.StreamSeq)
		if len(q.order) > recentAbandoned {
			delete(q.abandoned, q.order[0])
			q.order = q.order[1:]
		}
	}
	for _, w := range q.waiters[adv.StreamSeq] {
		select {
		case w.gone <- why:
		default:
		}
	}
}

// wait registers a Process call waiting for stage message seq.
func (q *Queue) wait(seq uint64) *waiter {
	w := &waiter{seq: seq, gone: make(chan string, 1)}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.waiters[seq] = append(q.waiters[seq], w)
	if why, ok := q.abandoned[seq]; ok {
		w.gone <- why
	}
	return w
}

func (q *Queue) unwait(w *waiter) {
	q.mu.Lock()
	defer q.mu.Unlock()
	ws := q.waiters[w.seq]
	for i, x := range ws {
		if x == w {
			ws = append(ws[:i:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(q.waiters, w.seq)
	} else {
		q.waiters[w.seq] = ws
	}
}

// reconnected wakes the Process calls waiting for a result: one may have
// been published while this connection was away.
func (q *Queue) reconnected() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.log.Info("reconnected to the NATS server")
	close(q.reconn)
	q.reconn = make(chan struct{})
}

// reconnects returns a channel closed at the next reconnect.
func (q *Queue) reconnects() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.reconn
}

func (q *Queue) isClosed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

// publish publishes a message with a Nats-Msg-Id, trying again while the
// server is away (nats.go reconnects meanwhile) until ctx is done. A
// repeat is safe: the server stores one message per ID within the
// duplicate window, and says so in the PubAck.
//
// The message is signed with the queue's key as a message of kind about
// ident.
func (q *Queue) publish(ctx context.Context, subject, id string, data []byte, kind string, ident identity) (*jetstream.PubAck, error) {
	wait := 100 * time.Millisecond
	for try := 1; ; try++ {
		m := nats.NewMsg(subject)
		m.Data = data
		if err := sign(q.key, m, kind, ident); err != nil {
			return nil, fmt.Errorf("signing %s: %w", id, err)
		}
		tctx, cancel := context.WithTimeout(ctx, publishTry)
		ack, err := q.js.PublishMsg(tctx, m, jetstream.WithMsgID(id))
		cancel()
		if err == nil {
			return ack, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("publishing %s: %w (last try: %v)", id, ctx.Err(), err)
		}
		if try == 1 || try%10 == 0 {
			q.log.Warn("cannot publish to the queue; trying again", "subject", subject, "msg_id", id, "try", try, "err", err)
		}
		sleep(ctx, wait) // a ctx done is reported by the next try
		wait = min(wait*2, 2*time.Second)
	}
}

// Close stops the Process calls in flight (they fail as transient), waits
// for them and closes the connection. Workers using q must have returned.
func (q *Queue) Close() error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return nil
	}
	q.closed = true
	subs := q.advSubs
	q.mu.Unlock()
	q.cancel()
	q.calls.Wait()
	for _, s := range subs {
		s.Unsubscribe()
	}
	if q.nc != nil {
		q.nc.Close()
	}
	return nil
}

// redactURLs is a comma-separated list of server URLs, each as
// lunad.RedactURL shows it.
func redactURLs(list string) string {
	urls := strings.Split(list, ",")
	for i, u := range urls {
		urls[i] = lunad.RedactURL(strings.TrimSpace(u))
	}
	return strings.Join(urls, ",")
}

// hideURLs is err with the URLs of list, and their secrets, redacted from
// its text: the NATS client quotes a URL it cannot parse whole.
func hideURLs(err error, list string) error { return &hiddenURLsError{err: err, list: list} }

type hiddenURLsError struct {
	err  error
	list string
}

func (e *hiddenURLsError) Error() string {
	s := e.err.Error()
	for _, u := range strings.Split(e.list, ",") {
		if u = strings.TrimSpace(u); u == "" {
			continue
		}
		s = strings.ReplaceAll(s, u, lunad.RedactURL(u))
		for _, secret := range lunad.URLSecrets(u) {
			s = strings.ReplaceAll(s, secret, lunad.Redacted)
		}
	}
	return s
}

func (e *hiddenURLsError) Unwrap() error { return e.err }
