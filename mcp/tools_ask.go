package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/runs/follow"
)

// The ask tool: a request to lunad's own agents (the supervisor and the
// coder, writer and reviewer), run as the built-in workflow ask. It waits
// for the run, reporting its stages as progress notifications when the
// client asked for them, and returns the run's AskResult.

type askIn struct {
	Request  string `json:"request" jsonschema:"what to do, in words: e.g. write a Python function that parses a TOML config; change the second paragraph to mention JSON; update the stale docs"`
	Artifact string `json:"artifact,omitempty" jsonschema:"the artifact the request is about (ID or workspace path), as an editor's active buffer; it resolves requests like 'the second paragraph'"`
	DryRun   bool   `json:"dry_run,omitempty" jsonschema:"route the request and compile the worker's prompts, return them, call no worker and write nothing"`
}

// askPoll is how often an ask's run is read for its progress.
const askPoll = 100 * time.Millisecond

// askOutput is the ask tool's output schema: the AskResult's, with its
// memory summary (raw JSON) an object rather than the bytes a
// json.RawMessage would be inferred as.
func askOutput() *jsonschema.Schema {
	out, err := jsonschema.For[lunad.AskResult](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {Types: []string{"null", "object"}, Description: "the working memory's summary: consumption per role, breaker trips, detections"},
	}})
	if err != nil {
		panic(fmt.Sprintf("tool ask: output schema: %v", err))
	}
	return out
}

func (s *Server) addAskTool() {
	addTool(s, &sdk.Tool{
		OutputSchema: askOutput(),
		Name:         "ask",
		Title:        "Ask lunad's agents",
		Description: "Hand a request to lunad's own agents: a supervisor routes it to the coder, the writer or the reviewer, who create or edit artifacts through lunad's tools, every write a commit. " +
			"Waits until they are done and returns what was done: status (done, question, budget_exhausted, stopped, failed, dry_run), the route, the artifacts created or edited (id, path, version, lines added and removed, worker), " +
			"the artifacts that became stale because of it (ask again with \"update the stale docs\"), the reviewer's findings, the tokens used, or the question to answer before anything is written. " +
			"The workspace's model is configured in .luna/config.toml [llm].",
		// It calls the configured model provider: an open world.
		Annotations: &sdk.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(true)},
	}, s.ask)
}

func (s *Server) ask(ctx context.Context, req *sdk.CallToolRequest, in askIn) (*sdk.CallToolResult, lunad.AskResult, error) {
	if strings.TrimSpace(in.Request) == "" {
		return nil, lunad.AskResult{}, &toolError{msg: "nothing was started: request is empty; say what to do, e.g. {\"request\": \"write a Python function that parses a TOML config\"}", err: lunad.ErrInvalid}
	}
	params := map[string]string{lunad.AskParamRequest: in.Request}
	if in.Artifact != "" {
		if _, err := s.ws.Artifact(ctx, in.Artifact); err != nil {
			return nil, lunad.AskResult{}, s.explainRun(fmt.Errorf("artifact: %w", err), "nothing was started")
		}
		params[lunad.AskParamArtifact] = in.Artifact
	}
	if in.DryRun {
		params[lunad.AskParamDryRun] = "true"
	}
	info, err := s.ws.StartRun(ctx, lunad.RunRequest{Workflow: lunad.AskWorkflow, Params: params})
	if err != nil {
		return nil, lunad.AskResult{}, s.explainRun(err, "nothing was started")
	}
	done, err := s.followAgents(ctx, req, info.ID, askPoll, follow.Progress)
	if ctx.Err() != nil {
		// The call was cancelled: so is the ask, whose writes are not
		// wanted any more.
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, cerr := s.ws.CancelRun(cctx, info.ID)
		return nil, lunad.AskResult{}, &toolError{msg: fmt.Sprintf("ask %s cancelled with the call (cancelling its run: %v)", info.ID, errOrOK(cerr)), err: ctx.Err()}
	}
	if err != nil {
		return nil, lunad.AskResult{}, s.explainRun(fmt.Errorf("ask %s was started and goes on, but following it failed: %w; see run_status {\"id\": %q}", info.ID, err, info.ID), "")
	}
	res, err := lunad.AskResultOf(done)
	if err != nil {
		why := done.Error
		if why == "" {
			why = err.Error()
		}
		return nil, lunad.AskResult{}, &toolError{msg: fmt.Sprintf("ask %s %s without a result: %s; see run_status {\"id\": %q}", info.ID, done.Status, why, info.ID), err: errors.Join(lunad.ErrInvalid, err)}
	}
	if res.Run == "" {
		res.Run = info.ID
	}
	res.Changes, res.Stale, res.Workers = nonNil(res.Changes), nonNil(res.Stale), nonNil(res.Workers)
	return nil, res, nil
}

// followAgents follows a run of lunad's agents (an ask, a goal) until it
// finishes, a progress notification for each event words gives a line,
// to a client that gave a progress token (a client gone cannot be told:
// a notification that fails is dropped).
func (s *Server) followAgents(ctx context.Context, req *sdk.CallToolRequest, id string, poll time.Duration, words func(lunad.RunEvent) string) (lunad.RunInfo, error) {
	token := req.Params.GetProgressToken()
	step := 0
	return follow.Run(ctx, s.ws, id, poll, func(e lunad.RunEvent) {
		msg := strings.TrimSpace(words(e))
		if token == nil || msg == "" {
			return
		}
		step++
		_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Message: id + ": " + msg, Progress: float64(step)})
	})
}

func errOrOK(err error) string {
	if err != nil {
		return err.Error()
	}
	return "done"
}
