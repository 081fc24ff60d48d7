package runs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/runs"
	"github.com/lunad/lunad/runs/workflow"
)

// goAgent is a built-in agent made of a function; it keeps every request.
type goAgent struct {
	mu   sync.Mutex
	fn   func(req lunad.StageRequest, call int) lunad.StageResponse
	reqs []lunad.StageRequest
}

func (a *goAgent) Version() string { return "go-test@1" }

func (a *goAgent) Process(ctx context.Context, req lunad.StageRequest) (lunad.StageResponse, error) {
	a.mu.Lock()
	a.reqs = append(a.reqs, req)
	n := len(a.reqs)
	a.mu.Unlock()
	return a.fn(req, n), nil
}

func (a *goAgent) requests() []lunad.StageRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.reqs)
}

// agentWorkflow is a one-stage workflow whose stage is the built-in agent
// "scribe", with next as its transitions.
func agentWorkflow(name, next string) string {
	return "name = \"" + name + "\"\nversion = \"1\"\nstart = \"s\"\n[stages.s]\nagent = \"scribe\"\n" + next
}

const toEnd = "[[stages.s.next]]\nto = \"end\"\n"

// withAgent configures the engine with a as the built-in agent "scribe".
func withAgent(a lunad.Agent, more func(*runs.Options)) func(*runs.Options) {
	return func(o *runs.Options) {
		o.Agents = map[string]lunad.Agent{"scribe": a}
		if more != nil {
			more(o)
		}
	}
}

// eventOf is the run's last event of type t.
func eventOf(t *testing.T, info lunad.RunInfo, typ lunad.EventType) lunad.RunEvent {
	t.Helper()
	for i := len(info.Events) - 1; i >= 0; i-- {
		if info.Events[i].Type == typ {
			return info.Events[i]
		}
	}
	t.Fatalf("run %s has no %s event: %v", info.ID, typ, info.Events)
	return lunad.RunEvent{}
}

// TestBuiltinWorkflows: a built-in workflow is listed and runs; a
// workspace file of its name takes precedence.
func TestBuiltinWorkflows(t *testing.T) {
	builtin := agentWorkflow("hello", toEnd)
	file := strings.Replace(agentWorkflow("hello", toEnd), `version = "1"`, `version = "2"`, 1)
	for _, c := range []struct {
		name        string
		files       map[string]string
		wantFile    string
		wantVersion string
	}{
		{"built in", nil, "builtin:hello", "1@" + workflow.BlobHash([]byte(builtin))},
		{"overridden by a file", map[string]string{"hello": file}, ".luna/workflows/hello.toml", "2@" + workflow.BlobHash([]byte(file))},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := &goAgent{fn: func(lunad.StageRequest, int) lunad.StageResponse { return lunad.StageResponse{Status: "ok"} }}
			w := newWorkspaceWith(t, c.files, withAgent(a, func(o *runs.Options) {
				o.Builtin = map[string][]byte{"hello": []byte(builtin)}
			}))
			list, err := w.eng.Workflows(context.Background())
			if err != nil || len(list) != 1 || list[0].Name != "hello" || list[0].File != c.wantFile || list[0].Version != c.wantVersion || list[0].Error != "" {
				t.Fatalf("Workflows = %+v, %v; want hello in %s at %s", list, err, c.wantFile, c.wantVersion)
			}
			one, err := w.eng.Workflow(context.Background(), "hello")
			if err != nil || one.File != c.wantFile || one.Version != c.wantVersion {
				t.Fatalf("Workflow = %+v, %v", one, err)
			}
			info := w.run(lunad.RunRequest{Workflow: "hello"})
			if info.Status != lunad.RunCompleted || info.WorkflowVersion != c.wantVersion || len(a.requests()) != 1 {
				t.Fatalf("run: %s at %s (%s), %d requests", info.Status, info.WorkflowVersion, info.Error, len(a.requests()))
			}
			rep, err := w.eng.Replay(context.Background(), info.ID, false)
			if err != nil || !rep.Identical {
				t.Fatalf("replay: %+v %v", rep, err)
			}
		})
	}
}

// TestBuiltinInvalid: New refuses a built-in workflow that does not check.
func TestBuiltinInvalid(t *testing.T) {
	for _, c := range []struct {
		name, text, want string
	}{
		{"does not check", "name = \"bad\"\nstart = \"nope\"\n[stages.a]\nagent = \"x\"\n" + strings.ReplaceAll(toEnd, ".s.", ".a."), `builtin:bad:2:1: start "nope" names no stage`},
		{"misnamed", agentWorkflow("other", toEnd), `builtin:bad: the workflow is named "other", not "bad"`},
		{"not TOML", "name = ", "builtin:bad:1:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorkspace(t, nil)
			_, err := runs.New(runs.Options{Root: w.root, Store: w.store, Effects: effects{w.store}, Builtin: map[string][]byte{"bad": []byte(c.text)}})
			if !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("New = %v; want ErrInvalid saying %q", err, c.want)
			}
		})
	}
}

// TestOutcome: a transition to end with a status ends the run with that
// outcome: on the events, as the run's status, and in its replay.
func TestOutcome(t *testing.T) {
	const next = "[[stages.s.next]]\nto = \"end\"\nwhen = \"output.spent\"\nstatus = \"budget_exhausted\"\n" + toEnd
	for _, c := range []struct {
		name   string
		output string
		writes []lunad.StageWrite
		want   lunad.RunStatus
	}{
		{"outcome with writes", `{"spent": true}`, []lunad.StageWrite{{Path: "spent.md", Content: "spent\n"}}, "budget_exhausted"},
		{"outcome without writes", `{"spent": true}`, nil, "budget_exhausted"},
		{"no outcome", `{"spent": false}`, nil, lunad.RunCompleted},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := &goAgent{fn: func(lunad.StageRequest, int) lunad.StageResponse {
				return lunad.StageResponse{Status: "ok", Output: json.RawMessage(c.output), Writes: c.writes}
			}}
			w := newWorkspaceWith(t, map[string]string{"o": agentWorkflow("o", next)}, withAgent(a, nil))
			info := w.run(lunad.RunRequest{Workflow: "o"})
			if info.Status != c.want || !info.Status.Ended() || !info.Status.Finished() {
				t.Fatalf("run: %s (%s), want %s", info.Status, info.Error, c.want)
			}
			outcome := string(c.want)
			if c.want == lunad.RunCompleted {
				outcome = ""
			}
			for _, typ := range []lunad.EventType{lunad.EventStageSucceeded, lunad.EventStageCommitted, lunad.EventRunCompleted} {
				if got := eventOf(t, info, typ).Outcome; got != outcome {
					t.Errorf("%s outcome %q, want %q", typ, got, outcome)
				}
			}
			// The outcome is in the log in git, and a restart reads it back.
			msg := w.git("log", "-1", "--format=%B", "refs/luna/runs/"+info.ID)
			if (outcome != "") != strings.Contains(msg, `"outcome":"`+outcome+`"`) {
				t.Errorf("RUN_COMPLETED commit message:\n%s", msg)
			}
			w.eng.Close()
			w.open()
			if again, err := w.eng.Run(context.Background(), info.ID); err != nil || again.Status != c.want {
				t.Fatalf("after a restart: %s %v", again.Status, err)
			}
			rep, err := w.eng.Replay(context.Background(), info.ID, false)
			if err != nil || !rep.Identical || rep.ReplayStatus != c.want {
				t.Fatalf("replay: %+v %v", rep, err)
			}
			if _, err := w.eng.Cancel(context.Background(), info.ID); !errors.Is(err, lunad.ErrInvalid) {
				t.Fatalf("cancel of a run that ended: %v", err)
			}
		})
	}
}

// TestResponseExtras: a response's agent and trailers reach the commit of
// its writes, its files are stored beside STAGE_SUCCEEDED; what breaks the
// rules fails the attempt for good, with nothing written.
func TestResponseExtras(t *testing.T) {
	writes := []lunad.StageWrite{{Path: "notes/x.md", Content: "x\n"}}
	for _, c := range []struct {
		name string
		resp lunad.StageResponse
		want string // in the run's error; "" for success
	}{
		{"agent, trailers and files", lunad.StageResponse{Agent: "writer", Trailers: map[string]string{"Model": "m-1", "Prompt": "writer@3"},
			Files: map[string]string{"llm/0001.json": `{"seq":1}`, "notes.txt": "n\n"}}, ""},
		{"the engine's trailer", lunad.StageResponse{Trailers: map[string]string{"Run": "forged"}}, `trailer "Run" is the engine's own`},
		{"lunad's trailer", lunad.StageResponse{Trailers: map[string]string{"op": "delete"}}, `trailer "op" is lunad's own`},
		{"agent as a trailer", lunad.StageResponse{Trailers: map[string]string{"Agent": "x"}}, "set the response's agent instead"},
		{"a bad trailer name", lunad.StageResponse{Trailers: map[string]string{"model name": "m"}}, `trailer name "model name"`},
		{"a trailer on two lines", lunad.StageResponse{Trailers: map[string]string{"Model": "m\nLuna-Op: delete"}}, "must be one line"},
		{"a bad agent name", lunad.StageResponse{Agent: "Eve <eve@x>"}, `agent "Eve <eve@x>" is not an agent name`},
		{"a file out of its directory", lunad.StageResponse{Files: map[string]string{"../x": "x"}}, `file name "../x"`},
		{"a hidden file", lunad.StageResponse{Files: map[string]string{"llm/.x": "x"}}, `file name "llm/.x"`},
		{"an absolute file", lunad.StageResponse{Files: map[string]string{"/etc/x": "x"}}, `file name "/etc/x"`},
		{"a binary file", lunad.StageResponse{Files: map[string]string{"b.bin": "a\x00b"}}, "file b.bin is not text"},
		{"an ack of nothing", lunad.StageResponse{Acks: []lunad.StageAck{{Symbol: "f"}}}, `ack 1: ref "" must name an artifact`},
		{"an ack's symbol on two lines", lunad.StageResponse{Acks: []lunad.StageAck{{Ref: "notes/x.md", Symbol: "f\nLuna-Op: delete"}}}, "ack 1: symbol must be a name on one line"},
		{"too many bytes", lunad.StageResponse{Files: map[string]string{"a": strings.Repeat("a", 9<<20), "b": strings.Repeat("b", 9<<20)}}, "more than 16 MiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := &goAgent{fn: func(lunad.StageRequest, int) lunad.StageResponse {
				r := c.resp
				r.Status, r.Writes = "ok", writes
				return r
			}}
			w := newWorkspaceWith(t, map[string]string{"x": agentWorkflow("x", toEnd)}, withAgent(a, nil))
			head := w.git("rev-parse", "HEAD")
			info := w.run(lunad.RunRequest{Workflow: "x"})
			if c.want != "" {
				if info.Status != lunad.RunDeadLettered || !strings.Contains(info.Error, "permanent failure") || !strings.Contains(info.Error, c.want) {
					t.Fatalf("run: %s (%s); want dead-lettered saying %q", info.Status, info.Error, c.want)
				}
				if w.git("rev-parse", "HEAD") != head {
					t.Fatal("a refused response wrote to the branch")
				}
				failed := eventOf(t, info, lunad.EventStageFailed)
				for name := range c.resp.Files {
					if _, err := w.store.RunFile(context.Background(), info.ID, failed.Seq, "files/"+name); !errors.Is(err, lunad.ErrNotFound) {
						t.Fatalf("a refused response's file %s was stored: %v", name, err)
					}
				}
				return
			}
			if info.Status != lunad.RunCompleted {
				t.Fatalf("run: %s (%s)", info.Status, info.Error)
			}
			got := w.git("log", "-1", "--format=%an%n%(trailers:key=Luna-Model,key=Luna-Prompt,key=Luna-Run,key=Luna-Stage)", "--", "notes/x.md")
			want := "writer\nLuna-Model: m-1\nLuna-Prompt: writer@3\nLuna-Run: " + info.ID + "\nLuna-Stage: s\n\n"
			if got != want {
				t.Fatalf("git log:\n%q\nwant:\n%q", got, want)
			}
			seq := eventOf(t, info, lunad.EventStageSucceeded).Seq
			for name, content := range c.resp.Files {
				b, err := w.store.RunFile(context.Background(), info.ID, seq, "files/"+name)
				if err != nil || string(b) != content {
					t.Fatalf("files/%s = %q, %v; want %q", name, b, err, content)
				}
			}
			b, err := w.store.RunFile(context.Background(), info.ID, seq, "response.json")
			if err != nil || strings.Contains(string(b), `"files"`) || !strings.Contains(string(b), `"stored_files":["llm/0001.json","notes.txt"]`) {
				t.Fatalf("response.json = %s, %v: want the files' names, not their content", b, err)
			}
			w.fsck()
		})
	}
}

// TestLiveReplayRecorded: a live replay gives each stage visit's agent the
// files its original successful attempt stored.
func TestLiveReplayRecorded(t *testing.T) {
	const wf = "name = \"rec\"\nstart = \"ask\"\n[stages.ask]\nagent = \"scribe\"\n[[stages.ask.next]]\nto = \"tell\"\n[stages.tell]\nagent = \"scribe\"\n[[stages.tell.next]]\nto = \"end\"\n"
	a := &goAgent{fn: func(req lunad.StageRequest, call int) lunad.StageResponse {
		if req.Stage == "tell" {
			return lunad.StageResponse{Status: "ok", Output: json.RawMessage(`{}`)}
		}
		if req.Replay {
			// Serve the recorded answer, as a model-calling agent would.
			return lunad.StageResponse{Status: "ok", Output: json.RawMessage(req.Recorded["llm/0001.json"])}
		}
		// A fresh call answers differently each time.
		answer := fmt.Sprintf(`{"answer":%d}`, 42*call)
		return lunad.StageResponse{Status: "ok", Output: json.RawMessage(answer), Files: map[string]string{"llm/0001.json": answer}}
	}}
	w := newWorkspaceWith(t, map[string]string{"rec": wf}, withAgent(a, nil))
	info := w.run(lunad.RunRequest{Workflow: "rec"})
	if info.Status != lunad.RunCompleted {
		t.Fatalf("run: %s (%s)", info.Status, info.Error)
	}
	rep, err := w.eng.Replay(context.Background(), info.ID, true)
	if err != nil || !rep.Identical || rep.Divergence != 0 {
		t.Fatalf("live replay: %+v %v", rep, err)
	}
	reqs := a.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	for _, c := range []struct {
		name     string
		req      lunad.StageRequest
		replay   bool
		recorded map[string]string
	}{
		{"ask, run", reqs[0], false, nil},
		{"tell, run", reqs[1], false, nil},
		{"ask, replayed", reqs[2], true, map[string]string{"llm/0001.json": `{"answer":42}`}},
		{"tell, replayed", reqs[3], true, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.req.Replay != c.replay || !maps.Equal(c.req.Recorded, c.recorded) {
				t.Fatalf("replay %v recorded %v; want %v %v", c.req.Replay, c.req.Recorded, c.replay, c.recorded)
			}
		})
	}
}

// TestVisit: a stage entered again in a loop gets the next visit number,
// and the outputs of its latest visit.
func TestVisit(t *testing.T) {
	const wf = "name = \"loop\"\nstart = \"s\"\n[stages.s]\nagent = \"scribe\"\n[[stages.s.next]]\nto = \"s\"\nwhen = \"output.visit < 3\"\n" + toEnd
	a := &goAgent{fn: func(req lunad.StageRequest, _ int) lunad.StageResponse {
		return lunad.StageResponse{Status: "ok", Output: json.RawMessage(fmt.Sprintf(`{"visit":%d}`, req.Visit))}
	}}
	w := newWorkspaceWith(t, map[string]string{"loop": wf}, withAgent(a, nil))
	info := w.run(lunad.RunRequest{Workflow: "loop"})
	if info.Status != lunad.RunCompleted || !slices.Equal(info.Path, []string{"s", "s", "s"}) {
		t.Fatalf("run: %s %v (%s)", info.Status, info.Path, info.Error)
	}
	reqs := a.requests()
	for i, c := range []struct {
		name    string
		visit   int
		outputs string
	}{
		{"first", 1, ""},
		{"second", 2, `{"visit":1}`},
		{"third", 3, `{"visit":2}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if reqs[i].Visit != c.visit || string(reqs[i].Outputs["s"]) != c.outputs {
				t.Fatalf("visit %d outputs %s; want %d %s", reqs[i].Visit, reqs[i].Outputs["s"], c.visit, c.outputs)
			}
			b, err := w.store.RunFile(context.Background(), info.ID, eventOf(t, lunad.RunInfo{ID: info.ID, Events: visitEvents(info, c.visit)}, lunad.EventStageSucceeded).Seq, "request.json")
			if err != nil || !strings.Contains(string(b), fmt.Sprintf(`"visit":%d`, c.visit)) {
				t.Fatalf("request.json = %s, %v", b, err)
			}
		})
	}
}

// visitEvents are the run's events of one stage visit.
func visitEvents(info lunad.RunInfo, visit int) []lunad.RunEvent {
	var out []lunad.RunEvent
	for _, ev := range info.Events {
		if ev.Visit == visit {
			out = append(out, ev)
		}
	}
	return out
}

// failingAcks commits acknowledgements through the effects it wraps, then
// answers an error that is not a refusal (a daemon that died once the
// commit landed): the engine gets no further than the first ack.
type failingAcks struct {
	runs.Effects
	committed chan struct{} // closed after the first ack's commit
	once      sync.Once
}

func (f *failingAcks) Ack(ctx context.Context, ref, symbol string, ch lunad.Change) (lunad.ArtifactRef, error) {
	if _, err := f.Effects.Ack(ctx, ref, symbol, ch); err != nil {
		return lunad.ArtifactRef{}, err
	}
	f.once.Do(func() { close(f.committed) })
	return lunad.ArtifactRef{}, errors.New("the daemon died after the commit")
}

// TestStageAcks: a response's acks are recorded after its writes, one ack
// commit each, by the stage's author with its trailers; an engine that
// stops between two acks and resumes records none twice.
func TestStageAcks(t *testing.T) {
	ctx := context.Background()
	a := &goAgent{fn: func(lunad.StageRequest, int) lunad.StageResponse {
		return lunad.StageResponse{Status: "ok", Agent: "reviewer", Trailers: map[string]string{"Model": "m-1"},
			Writes: []lunad.StageWrite{{Path: "notes/x.md", Content: "x\n"}},
			Acks:   []lunad.StageAck{{Ref: "notes/old.md"}, {Ref: "notes/x.md"}}}
	}}
	fa := &failingAcks{committed: make(chan struct{})}
	w := newWorkspaceWith(t, map[string]string{"x": agentWorkflow("x", toEnd)}, withAgent(a, func(o *runs.Options) {
		if fa != nil {
			fa.Effects = o.Effects
			o.Effects = fa
		}
	}))
	if _, err := w.store.Create(ctx, lunad.CreateSpec{Title: "Old", Path: "notes/old.md", Content: []byte("old\n")}); err != nil {
		t.Fatal(err)
	}
	info, err := w.eng.Start(ctx, lunad.RunRequest{Workflow: "x"})
	if err != nil {
		t.Fatal(err)
	}
	<-fa.committed
	w.eng.Close()
	fa = nil
	w.open()
	info = w.wait(info.ID)
	if info.Status != lunad.RunCompleted {
		t.Fatalf("run: %s (%s)", info.Status, info.Error)
	}
	if got := wstest.EventTypes(info); slices.Index(got, "STAGE_COMMITTED s") != len(got)-2 || strings.Count(strings.Join(got, ","), "STAGE_COMMITTED") != 1 {
		t.Errorf("events %v", got)
	}
	log := w.git("log", "--format=%an|%(trailers:key=Luna-Op,key=Luna-Artifact,key=Luna-Run,key=Luna-Stage,key=Luna-Model,separator=%x2c,valueonly)", "-3")
	x, err := w.store.Artifact(ctx, "notes/x.md")
	if err != nil {
		t.Fatal(err)
	}
	old, _ := w.store.Artifact(ctx, "notes/old.md")
	want := fmt.Sprintf("reviewer|%s,ack,m-1,%s,s\nreviewer|%s,ack,m-1,%s,s\nreviewer|%s,create,m-1,%s,s\n", x.ID, info.ID, old.ID, info.ID, x.ID, info.ID)
	if log != want {
		t.Errorf("git log (newest first):\n%s\nwant:\n%s", log, want)
	}
	if n := w.git("rev-list", "--count", "HEAD"); n != "5\n" { // the workflow, old.md, the write, two acks
		t.Errorf("%s commits", n)
	}
}
