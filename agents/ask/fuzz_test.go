package ask_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/ask"
	"github.com/lunad/lunad/agents/llm"
)

// nowhere is a workspace that has nothing: a replay must not read it.
type nowhere struct{}

func (nowhere) List(context.Context) ([]lunad.Artifact, error) { return nil, lunad.ErrNotFound }
func (nowhere) Artifact(context.Context, string) (lunad.Artifact, error) {
	return lunad.Artifact{}, lunad.ErrNotFound
}
func (nowhere) Read(context.Context, string, string) ([]byte, lunad.Artifact, error) {
	return nil, lunad.Artifact{}, lunad.ErrNotFound
}
func (nowhere) Refs(context.Context, string) (lunad.RefReport, error) {
	return lunad.RefReport{}, lunad.ErrNotFound
}
func (nowhere) Outgoing(context.Context, string) ([]lunad.Reference, error) {
	return nil, lunad.ErrNotFound
}
func (nowhere) Symbols(context.Context, string) (lunad.Artifact, []lunad.Symbol, error) {
	return lunad.Artifact{}, nil, lunad.ErrNotFound
}
func (nowhere) Stale(context.Context) ([]lunad.Reference, error) { return nil, lunad.ErrNotFound }

// FuzzReplayFiles: whatever a run log's stage files hold, a replayed stage
// answers (a response or an error), never panics, and calls no model.
func FuzzReplayFiles(f *testing.F) {
	f.Add(`{"List\u0000":{"value":[]},"Stale":{"value":[]}}`, `[1,2,3]`, `{"seq":1}`, `{"outcome":"route","visit":1,"memory":{"version":1}}`)
	f.Add(`{"List":{"error":"x","kind":"not_found"}}`, `null`, `[]`, `{}`)
	f.Add(`[`, `{`, `"`, `{"visit":"x"}`)
	live := &model{name: "live"}
	a, err := ask.New(ask.Options{Source: nowhere{}, Providers: func(string) (llm.Provider, llm.Config, error) {
		return live, llm.Config{Model: "m"}, nil
	}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { a.Close() })
	f.Fuzz(func(t *testing.T, reads, clock, call, prev string) {
		for _, stage := range []string{"ask.supervisor", "ask.writer"} {
			req := lunad.StageRequest{RunID: "r1", Stage: stage, Visit: 2, Replay: true,
				Params:   map[string]string{lunad.AskParamRequest: "x"},
				Outputs:  map[string]json.RawMessage{"supervise": json.RawMessage(prev)},
				Recorded: map[string]string{"workspace.json": reads, "clock.json": clock, "supervisor/llm/0001.json": call, "writer/llm/0001.json": call}}
			if !json.Valid([]byte(prev)) {
				req.Outputs = nil
			}
			a.Agents()[stage].Process(context.Background(), req)
		}
		if live.calls() != 0 {
			t.Fatal("a replay called the model")
		}
	})
}
