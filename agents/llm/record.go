package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/lunad/lunad"
)

// Call is one recorded model call.
type Call struct {
	Seq      int       `json:"seq"` // 1-based, in call order
	Hash     string    `json:"hash"`
	Request  Request   `json:"request"`
	Response Response  `json:"response"`
	Error    string    `json:"error,omitempty"`
	Kind     ErrorKind `json:"kind,omitempty"` // of Error
}

// FilePrefix is the directory of the recorded calls in Recorder.Files.
const FilePrefix = "llm/"

// CallFile is the name of the seq-th call's file: "llm/0001.json".
func CallFile(seq int) string { return fmt.Sprintf("%s%04d.json", FilePrefix, seq) }

// Recorder wraps a provider and keeps every call, the failed ones too.
// Wrap the bare provider, inside Retry, so that every attempt is a
// recorded call and a Replayer serves a retried call's attempts in their
// order (a replayed Transient failure is retried as the original was).
// Safe for concurrent use.
type Recorder struct {
	p     Provider
	mu    sync.Mutex
	calls []Call
}

// NewRecorder records the calls made through p.
func NewRecorder(p Provider) *Recorder { return &Recorder{p: p} }

// Name is the wrapped provider's.
func (r *Recorder) Name() string { return r.p.Name() }

// Chat calls the wrapped provider and records the call.
func (r *Recorder) Chat(ctx context.Context, req Request) (Response, error) {
	resp, err := r.p.Chat(ctx, req)
	c := Call{Hash: Hash(req), Request: req, Response: resp}
	if err != nil {
		c.Error, c.Kind = err.Error(), KindOf(err)
	}
	r.mu.Lock()
	c.Seq = len(r.calls) + 1
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	return resp, err
}

// Calls returns the calls so far, in order.
func (r *Recorder) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call(nil), r.calls...)
}

// Files renders the calls as files to store beside a run event:
// "llm/0001.json" → the indented JSON of Call 1, and so on.
func (r *Recorder) Files() map[string]string {
	calls := r.Calls()
	out := make(map[string]string, len(calls))
	for _, c := range calls {
		b, err := json.MarshalIndent(c, "", "  ")
		if err != nil { // cannot happen: Call marshals invalid JSON as text
			panic("llm: marshal call: " + err.Error())
		}
		out[CallFile(c.Seq)] = string(b) + "\n"
	}
	return out
}

// Replayer serves recorded calls back by request hash: a provider that
// never calls a model. Safe for concurrent use.
type Replayer struct {
	name  string
	mu    sync.Mutex
	calls []Call
	used  []bool
	n     int // calls served or missed so far
}

// NewReplayer reads the files Recorder.Files wrote (other names are
// ignored). A file that is not a Call is an error wrapping ErrInvalid.
func NewReplayer(name string, files map[string]string) (*Replayer, error) {
	var names []string
	for n := range files {
		if strings.HasPrefix(n, FilePrefix) && strings.HasSuffix(n, ".json") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	r := &Replayer{name: name}
	for _, n := range names {
		var c Call
		if err := json.Unmarshal([]byte(files[n]), &c); err != nil {
			return nil, fmt.Errorf("%w: recorded model call %s: %v", lunad.ErrInvalid, n, err)
		}
		if h := Hash(c.Request); c.Hash != h {
			return nil, fmt.Errorf("%w: recorded model call %s: hash %s does not match its request (%s)", lunad.ErrInvalid, n, c.Hash, h)
		}
		r.calls = append(r.calls, c)
	}
	sort.SliceStable(r.calls, func(i, j int) bool { return r.calls[i].Seq < r.calls[j].Seq })
	r.used = make([]bool, len(r.calls))
	return r, nil
}

// Name is the name given to NewReplayer.
func (r *Replayer) Name() string { return r.name }

// Remaining is the number of recorded calls not served yet.
func (r *Replayer) Remaining() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, u := range r.used {
		if !u {
			n++
		}
	}
	return n
}

// Chat serves the first unserved recorded call with req's hash (its
// response, or its recorded error as an *Error of the recorded Kind). A
// miss is a Permanent *Error wrapping *MissError.
func (r *Replayer) Chat(ctx context.Context, req Request) (Response, error) {
	h := Hash(req)
	r.mu.Lock()
	defer r.mu.Unlock()
	pos := r.n
	r.n++
	for i, c := range r.calls {
		if r.used[i] || c.Hash != h {
			continue
		}
		r.used[i] = true
		if c.Error != "" {
			kind := c.Kind
			if kind == "" {
				kind = Permanent
			}
			return c.Response, &Error{Provider: r.name, Kind: kind, Err: fmt.Errorf("replayed: %s", c.Error)}
		}
		return c.Response, nil
	}
	miss := &MissError{Call: pos + 1, Hash: h}
	if pos < len(r.calls) {
		miss.Field, miss.Recorded, miss.Got = FirstDiff(r.calls[pos].Request, req)
	}
	return Response{}, &Error{Provider: r.name, Kind: Permanent, Err: miss}
}

// MissError is a replayed call that matches no recording. Field is the
// first field path ("messages[2].content", "tools[1].schema", "system")
// where the request differs from the recorded request at the same
// position; empty when the run made more calls than were recorded.
type MissError struct {
	Call     int // 1-based position of the call in the replay
	Hash     string
	Field    string
	Recorded string // the recorded value at Field, shortened
	Got      string // the request's value at Field, shortened
}

func (e *MissError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("replay: call %d (%s) was not recorded: the run makes more model calls than the recording has", e.Call, e.Hash)
	}
	return fmt.Sprintf("replay: call %d (%s) matches no recorded call: %s differs from the recorded request %d (recorded %s, got %s)",
		e.Call, e.Hash, e.Field, e.Call, e.Recorded, e.Got)
}
