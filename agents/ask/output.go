package ask

import (
	"encoding/json"
	"fmt"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/agents/tools"
)

// Outcomes of a stage (its output's "outcome"; the workflow routes by
// them).
const (
	outRoute    = "route"   // supervise: go to output.next
	outHandoff  = "handoff" // a worker: go to output.next
	outDone     = "done"    // a worker finished: the run completes
	outQuestion = string(lunad.AskQuestion)
	outDryRun   = string(lunad.AskDryRun)
	outBudget   = string(lunad.AskBudgetExhausted)
	outStopped  = string(lunad.AskStopped)
	outFailed   = string(lunad.AskFailed)
)

// output is a stage's output (a contract with ask.toml and OnFinish).
type output struct {
	Outcome string `json:"outcome"`
	Next    string `json:"next"` // the worker to go to ("" none)
	// Target is the artifact a handoff asks the next worker to change,
	// which it may then write besides the route's target.
	Target   string          `json:"target,omitempty"`
	Role     string          `json:"role"`
	Visit    int             `json:"visit"`
	Route    *lunad.AskRoute `json:"route,omitempty"`
	Question string          `json:"question,omitempty"`
	Summary  string          `json:"summary,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	Model    string          `json:"model,omitempty"`
	Prompt   string          `json:"prompt,omitempty"` // name@version
	Changes  []change        `json:"changes,omitempty"`
	// Skipped are the worker's tool calls not run because they came
	// after its finish or handoff in the same answer.
	Skipped  []string           `json:"skipped,omitempty"`
	Findings []lunad.AskFinding `json:"findings,omitempty"`
	Acks     []tools.Ack        `json:"acks,omitempty"`
	Prompts  []lunad.AskPrompt  `json:"prompts,omitempty"`
	Memory   memory.Snapshot    `json:"memory"`
}

// change is one artifact a worker's stage wrote.
type change struct {
	Path    string `json:"path"`
	Title   string `json:"title,omitempty"`
	Created bool   `json:"created,omitempty"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

func decodeOutput(raw json.RawMessage) (output, error) {
	var o output
	if err := json.Unmarshal(raw, &o); err != nil {
		return o, fmt.Errorf("%w: an ask stage's output does not decode: %v", lunad.ErrInvalid, err)
	}
	return o, nil
}

// latest is the output of the latest stage visit before req's (nil for
// the first stage).
func latest(req lunad.StageRequest) (*output, error) {
	var best *output
	for _, raw := range req.Outputs {
		o, err := decodeOutput(raw)
		if err != nil {
			return nil, err
		}
		if best == nil || o.Visit > best.Visit {
			best = &o
		}
	}
	return best, nil
}
