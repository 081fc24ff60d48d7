package lunad

import (
	"encoding/json"
	"fmt"
)

// The vocabulary of asking lunad's agents: `lunad ask`, the MCP tool ask
// and the LSP command luna.ask all start a run of the built-in workflow
// AskWorkflow with the params below, wait for it, and read the AskResult
// its terminal event carries (AskResultOf). The agents themselves live in
// agents/.

// AskWorkflow is the built-in workflow an ask runs.
const AskWorkflow = "ask"

// The params of an ask run (RunRequest.Params).
const (
	// AskParamRequest is the user's request, as typed.
	AskParamRequest = "request"
	// AskParamArtifact is the active artifact (an ID or a path), if any.
	AskParamArtifact = "artifact"
	// AskParamDryRun ("true") routes and compiles the worker's prompts
	// without calling the worker's model or writing anything.
	AskParamDryRun = "dry_run"
)

// AskStatus is how an ask ended.
type AskStatus string

const (
	// AskDone: the worker finished (with writes, findings or an answer).
	AskDone AskStatus = "done"
	// AskQuestion: the request was ambiguous or the supervisor could not
	// route it; Question says what to make precise. Nothing was written.
	AskQuestion AskStatus = "question"
	// AskBudgetExhausted: a token, call or time budget ran out; Summary
	// says what was done so far.
	AskBudgetExhausted AskStatus = "budget_exhausted"
	// AskStopped: a guard stopped the run (a handoff loop, a stall, three
	// failed attempts at one change, an open breaker with no fallback);
	// Reason says which. Nothing of the stopped stage was written.
	AskStopped AskStatus = "stopped"
	// AskFailed: the run failed (a provider error, a refused write).
	AskFailed AskStatus = "failed"
	// AskDryRun: --dry-run: Route and Prompts say what would run.
	AskDryRun AskStatus = "dry_run"
)

// AskRoute is the supervisor's decision (the structured output named
// "route"; a contract).
type AskRoute struct {
	Intent      string       `json:"intent"` // create, edit, answer, review
	Worker      string       `json:"worker"` // coder, writer, reviewer
	Target      *string      `json:"target"`
	NewArtifact *NewArtifact `json:"new_artifact"`
	ReadDeps    []string     `json:"read_deps"`
	Reason      string       `json:"reason"`
}

// NewArtifact is the artifact a create route makes.
type NewArtifact struct {
	Title string `json:"title"`
	Type  string `json:"type"`
	Path  string `json:"path"`
}

// AskChange is one artifact an ask created or edited.
type AskChange struct {
	ArtifactRef
	Title   string `json:"title,omitempty"`
	Created bool   `json:"created,omitempty"`
	// Added and Removed count the lines of the change.
	Added   int `json:"added"`
	Removed int `json:"removed"`
	// Worker is the role that wrote it.
	Worker string `json:"worker"`
}

// AskFollowUp is an artifact that became stale because of the ask's
// writes: the next `lunad ask "update the stale docs"` routes it to the
// writer.
type AskFollowUp struct {
	ID      string   `json:"id"`
	Path    string   `json:"path"`
	Symbols []string `json:"symbols"`
}

// AskFinding is one finding of the reviewer.
type AskFinding struct {
	Artifact string `json:"artifact"`
	Line     int    `json:"line,omitempty"`
	Severity string `json:"severity"` // info, warning, error
	Message  string `json:"message"`
}

// AskUsage is what an ask consumed.
type AskUsage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	Calls        int `json:"calls"`
}

// AskPrompt is one compiled prompt (--dry-run).
type AskPrompt struct {
	Role   string   `json:"role"`
	Prompt string   `json:"prompt"` // name@version of the prompt file
	System string   `json:"system"`
	User   string   `json:"user"`
	Tools  []string `json:"tools"`
	Tokens int      `json:"tokens"`
}

// AskResult is what an ask did (the Output of its run's terminal event).
type AskResult struct {
	Run      string        `json:"run"`
	Status   AskStatus     `json:"status"`
	Route    *AskRoute     `json:"route,omitempty"`
	Workers  []string      `json:"workers"` // the roles that ran, in order
	Summary  string        `json:"summary,omitempty"`
	Question string        `json:"question,omitempty"`
	Reason   string        `json:"reason,omitempty"`
	Changes  []AskChange   `json:"changes"`
	Stale    []AskFollowUp `json:"stale"`
	Findings []AskFinding  `json:"findings,omitempty"`
	Usage    AskUsage      `json:"usage"`
	Prompts  []AskPrompt   `json:"prompts,omitempty"`
	// Memory is the run's working memory's summary: consumption per
	// role, the handoffs, breaker trips, guard detections, budget
	// warnings (agents/memory.Summary's JSON).
	Memory json.RawMessage `json:"memory,omitempty"`
}

// AskResultOf reads an ask's result from its finished run: the Output of
// the run's last event. ErrInvalid if the run is not an ask or has not
// finished.
func AskResultOf(info RunInfo) (AskResult, error) {
	var r AskResult
	if info.Workflow != AskWorkflow {
		return r, fmt.Errorf("%w: run %s is a run of workflow %q, not an ask", ErrInvalid, info.ID, info.Workflow)
	}
	if !info.Status.Finished() || len(info.Events) == 0 {
		return r, fmt.Errorf("%w: ask %s has not finished (it is %s)", ErrInvalid, info.ID, info.Status)
	}
	last := info.Events[len(info.Events)-1]
	if len(last.Output) == 0 {
		return r, fmt.Errorf("%w: ask %s ended (%s) without a result: %s", ErrInvalid, info.ID, info.Status, last.Error)
	}
	if err := json.Unmarshal(last.Output, &r); err != nil {
		return r, fmt.Errorf("%w: ask %s's result does not decode: %v", ErrInvalid, info.ID, err)
	}
	return r, nil
}
