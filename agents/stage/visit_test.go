package stage_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/agents/stage"
)

// echo answers every call with its request's last message, numbered; a
// failing echo fails every call with a Transient error.
type echo struct {
	name string
	n    int
	fail bool
}

func (e *echo) Name() string { return e.name }

func (e *echo) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	e.n++
	if e.fail {
		return llm.Response{}, &llm.Error{Provider: e.name, Kind: llm.Transient, Err: errors.New("overloaded")}
	}
	text := req.Messages[len(req.Messages)-1].Content
	return llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf("%s #%d", text, e.n)}, Model: "m"}, nil
}

// never is a provider a live replay must not call.
type never struct{ t *testing.T }

func (never) Name() string { return "echo" }
func (n never) Chat(context.Context, llm.Request) (llm.Response, error) {
	n.t.Error("a live replay called the model")
	return llm.Response{}, errors.New("called")
}

// TestVisitRecordAndReplay: a visit's model calls, clock and memory are
// its stage files, named by folder, and a live replay of the visit over
// them calls no model, reads no clock, and computes what the original
// did: the same answers, the same memory, the same calls recorded again.
func TestVisitRecordAndReplay(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name  string
		calls []string // the folder of each call, in order
		fail  bool     // the model fails every call
		prev  bool     // the memory resumes from a previous stage's
		files []string // the live visit's stage files
	}{
		{name: "no call", files: []string{stage.ClockFile}},
		{name: "one model", calls: []string{"", ""}, files: []string{stage.ClockFile, "llm/0001.json", "llm/0002.json"}},
		{name: "a folder per role", calls: []string{"coder/", "writer/", "coder/"}, prev: true,
			files: []string{stage.ClockFile, "coder/llm/0001.json", "coder/llm/0002.json", "writer/llm/0001.json"}},
		{name: "failed attempts", calls: []string{""}, fail: true, files: []string{stage.ClockFile, "llm/0001.json", "llm/0002.json", "llm/0003.json"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var prev *memory.Snapshot
			if c.prev {
				s := memory.New("run-1", memory.Options{Clock: func() time.Time { return t0 }}).Snapshot()
				prev = &s
			}
			n := 0
			now := func() time.Time { n++; return t0.Add(time.Duration(n) * time.Second) }
			mo := memory.Options{Clock: func() time.Time { t.Error("the memory read a clock not the visit's"); return t0 }}
			retry := llm.RetryOptions{Attempts: 3, Sleep: func(context.Context, time.Duration) error { return nil }}
			req := lunad.StageRequest{RunID: "run-1", Stage: "s", Visit: 1}
			run := func(req lunad.StageRequest, model func(dir string) llm.Provider) ([]string, memory.Snapshot, map[string]string) {
				v, err := stage.Begin(now, req)
				if err != nil {
					t.Fatal(err)
				}
				mem, err := v.Memory(mo, prev)
				if err != nil {
					t.Fatal(err)
				}
				var answers []string
				for i, dir := range c.calls {
					r, err := v.Model(dir, model(dir))
					if err != nil {
						t.Fatal(err)
					}
					resp, err := llm.Retry(r, v.Retry(retry)).Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: fmt.Sprintf("call %d", i)}}})
					if err != nil {
						answers = append(answers, "error: "+string(llm.KindOf(err)))
						continue
					}
					answers = append(answers, resp.Message.Content)
					mem.After("r", r.Name(), 1, 1, nil)
				}
				return answers, mem.Snapshot(), v.Files(nil)
			}
			models := map[string]*echo{}
			answers, snap, files := run(req, func(dir string) llm.Provider {
				if models[dir] == nil {
					models[dir] = &echo{name: "echo", fail: c.fail}
				}
				return models[dir]
			})
			if got := slices.Sorted(maps.Keys(files)); !slices.Equal(got, c.files) {
				t.Fatalf("stage files %v, want %v", got, c.files)
			}

			now = func() time.Time { t.Error("a live replay read the real clock"); return t0 }
			rreq := req
			rreq.Replay, rreq.Recorded = true, files
			ranswers, rsnap, rfiles := run(rreq, func(string) llm.Provider { return never{t} })
			if !slices.Equal(ranswers, answers) {
				t.Errorf("replayed answers %q, want %q", ranswers, answers)
			}
			a, _ := json.Marshal(snap)
			b, _ := json.Marshal(rsnap)
			if string(a) != string(b) {
				t.Errorf("replayed memory\n%s\nwant\n%s", b, a)
			}
			want := maps.Clone(files)
			delete(want, stage.ClockFile)
			if len(want) == 0 {
				want = nil
			}
			if got := slices.Sorted(maps.Keys(rfiles)); !slices.Equal(got, slices.Sorted(maps.Keys(want))) {
				t.Errorf("a replay's stage files %v, want the recorded calls again %v", got, slices.Sorted(maps.Keys(want)))
			}
			// A replayed failure is recorded as one ("replayed: ..."); a
			// replayed answer is recorded as it was.
			if !c.fail && !maps.Equal(rfiles, want) {
				t.Errorf("a replay's stage files differ from the recorded calls:\n%v\nwant\n%v", rfiles, want)
			}
		})
	}
}

// TestVisitFiles: the agent's own stage files come with the visit's, and
// a visit that recorded nothing has none.
func TestVisitFiles(t *testing.T) {
	v, err := stage.Begin(time.Now, lunad.StageRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if f := v.Files(nil); f != nil {
		t.Errorf("an unread visit has the files %v", f)
	}
	own := map[string]string{"workspace.json": "{}\n"}
	if f := v.Files(own); !maps.Equal(f, own) {
		t.Errorf("files %v, want %v", f, own)
	}
	if _, err := v.Memory(memory.Options{}, nil); err != nil { // reads the clock
		t.Fatal(err)
	}
	f := v.Files(own)
	if len(f) != 2 || f[stage.ClockFile] == "" || len(own) != 1 {
		t.Errorf("files %v (own %v): want the agent's and the clock's", f, own)
	}
}

// TestVisitRetry: a live visit keeps the retry policy's waits; a replay
// does not wait, but still ends with its context.
func TestVisitRetry(t *testing.T) {
	waited := errors.New("waited")
	o := llm.RetryOptions{Attempts: 2, Sleep: func(context.Context, time.Duration) error { return waited }}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name   string
		replay bool
		ctx    context.Context
		want   error
	}{
		{"live", false, context.Background(), waited},
		{"replay", true, context.Background(), nil},
		{"replay, context ended", true, ended, context.Canceled},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, err := stage.Begin(time.Now, lunad.StageRequest{Replay: c.replay})
			if err != nil {
				t.Fatal(err)
			}
			r := v.Retry(o)
			if err := r.Sleep(c.ctx, time.Hour); !errors.Is(err, c.want) && err != c.want {
				t.Errorf("sleep: %v, want %v", err, c.want)
			}
			if r.Attempts != o.Attempts {
				t.Errorf("attempts %d, want %d", r.Attempts, o.Attempts)
			}
		})
	}
}

// TestVisitInvalid: a replay of a stage whose recorded clock or model
// calls do not decode is ErrInvalid.
func TestVisitInvalid(t *testing.T) {
	for _, c := range []struct {
		name     string
		recorded map[string]string
		dir      string // the model's folder; "-": the error comes with Begin
	}{
		{"clock", map[string]string{stage.ClockFile: "["}, "-"},
		{"model call", map[string]string{"llm/0001.json": "{"}, ""},
		{"a role's model call", map[string]string{"coder/llm/0001.json": `{"seq":1,"hash":"x"}`}, "coder/"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, err := stage.Begin(time.Now, lunad.StageRequest{Replay: true, Recorded: c.recorded})
			if c.dir == "-" {
				if !errors.Is(err, lunad.ErrInvalid) {
					t.Errorf("begin: %v, want ErrInvalid", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := v.Model(c.dir, &echo{name: "echo"}); !errors.Is(err, lunad.ErrInvalid) {
				t.Errorf("model: %v, want ErrInvalid", err)
			}
		})
	}
}
