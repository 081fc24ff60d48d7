package lunad

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// The vocabulary of runs: a run drives one workflow (a versioned state
// machine) through its stages. The workflow engine alone chooses the next
// stage; a stage's agent only turns a StageRequest into a StageResponse.
// Every step of a run is a RunEvent, appended to the run's log in git.

// RunStatus is where a run stands: one of the constants below, or the
// outcome a workflow's transition to end named (`status = "question"`),
// which a run that ended there has instead of RunCompleted (see Ended).
type RunStatus string

const (
	RunRunning      RunStatus = "running"
	RunCompleted    RunStatus = "completed"
	RunAborted      RunStatus = "aborted"
	RunCancelled    RunStatus = "cancelled"
	RunDeadLettered RunStatus = "dead_lettered"
)

// Ended reports whether a run in status s reached the end of its
// workflow: "completed", or the outcome its transition to end named.
func (s RunStatus) Ended() bool {
	switch s {
	case "", RunRunning, RunAborted, RunCancelled, RunDeadLettered:
		return false
	}
	return true
}

// Finished reports whether no more events will be appended to a run in
// status s (unless it is retried by hand).
func (s RunStatus) Finished() bool { return s != RunRunning && s != "" }

// EventType names a RunEvent. The names are the event log's contract.
type EventType string

const (
	EventRunCreated       EventType = "RUN_CREATED"
	EventStageEnqueued    EventType = "STAGE_ENQUEUED"
	EventStageStarted     EventType = "STAGE_STARTED"
	EventStageSucceeded   EventType = "STAGE_SUCCEEDED"
	EventStageFailed      EventType = "STAGE_FAILED"
	EventRetryScheduled   EventType = "RETRY_SCHEDULED"
	EventDuplicateIgnored EventType = "DUPLICATE_IGNORED"
	EventQuarantined      EventType = "OUTPUT_QUARANTINED"
	EventDeadLettered     EventType = "DEAD_LETTERED"
	EventRunRetried       EventType = "RUN_RETRIED"
	EventRunCompleted     EventType = "RUN_COMPLETED"
	EventRunAborted       EventType = "RUN_ABORTED"
	EventRunCancelled     EventType = "RUN_CANCELLED"
	// EventStageCommitted follows STAGE_SUCCEEDED once the stage's writes
	// are commits on the branch (Writes names them).
	EventStageCommitted EventType = "STAGE_COMMITTED"
	// EventStageConflict follows STAGE_SUCCEEDED when the stage's writes
	// conflict with a change made to an artifact since the version the
	// stage read (Error names both): nothing was written, and the attempt
	// counts as failed — the stage is tried again on the new content
	// within its attempt limit, else the run is dead-lettered.
	EventStageConflict EventType = "STAGE_CONFLICT"
	// EventRunPruned is the summary a pruned run's log is replaced by.
	EventRunPruned EventType = "RUN_PRUNED"
	// EventRunAccepted: a finished isolated run's work was accepted — the
	// branch it was made from (BaseBranch) fast-forwarded from Base to
	// Tip, its branch's last commit (Runner.AcceptRun).
	EventRunAccepted EventType = "RUN_ACCEPTED"
	// EventRunDiscarded: a finished isolated run's worktree was removed
	// and its branch deleted (Runner.DiscardRun).
	EventRunDiscarded EventType = "RUN_DISCARDED"
)

// ArtifactRef names one version of an artifact by reference: messages and
// events carry these, never content.
type ArtifactRef struct {
	ID      string `json:"id"`
	Path    string `json:"path"`
	Version int    `json:"version"`
	Commit  string `json:"commit"`
}

// RunEvent is one immutable entry of a run's log.
type RunEvent struct {
	// Seq is the event's 1-based position in its run's log.
	Seq             int       `json:"seq"`
	Type            EventType `json:"type"`
	RunID           string    `json:"run_id"`
	CorrelationID   string    `json:"correlation_id"`
	Workflow        string    `json:"workflow"`
	WorkflowVersion string    `json:"workflow_version"`
	// ConfigRef is the git blob hash of the effective configuration the
	// run was started with (stored with its RUN_CREATED event).
	ConfigRef string `json:"config_ref"`
	// Stage and Visit name a stage visit: Visit is the stage's 1-based
	// position in the run's path, so a stage entered twice (a loop) has
	// two visits. Both are empty for run-level events.
	Stage          string `json:"stage,omitempty"`
	Visit          int    `json:"visit,omitempty"`
	Attempt        int    `json:"attempt,omitempty"`
	AgentVersion   string `json:"agent_version,omitempty"`
	IdempotencyKey string `json:"idempotency_key,omitempty"`
	// Inputs are the artifacts the stage read (STAGE_ENQUEUED); Writes
	// the artifact versions its writes produced (STAGE_COMMITTED), or all
	// the run wrote (RUN_COMPLETED).
	Inputs []ArtifactRef `json:"inputs,omitempty"`
	Writes []ArtifactRef `json:"writes,omitempty"`
	// Output is the stage's small structured output (STAGE_SUCCEEDED),
	// or the run's summary (RUN_PRUNED).
	Output json.RawMessage `json:"output,omitempty"`
	// Next is the stage the engine chose after this one ("end" to finish).
	Next string `json:"next,omitempty"`
	// Outcome is the `status` of the transition to end the engine chose
	// (STAGE_SUCCEEDED, STAGE_COMMITTED and RUN_COMPLETED): the run's
	// status once it completes, instead of "completed".
	Outcome string `json:"outcome,omitempty"`
	// Params and Key are the run's parameters and idempotency key
	// (RUN_CREATED).
	Params map[string]string `json:"params,omitempty"`
	Key    string            `json:"key,omitempty"`
	// Branch and Base are an isolated run's branch and the commit it was
	// made from, and BaseBranch the branch that commit was the tip of, the
	// one AcceptRun fast-forwards (RUN_CREATED, RUN_ACCEPTED).
	Branch     string `json:"branch,omitempty"`
	Base       string `json:"base,omitempty"`
	BaseBranch string `json:"base_branch,omitempty"`
	// Tip is the commit BaseBranch was fast-forwarded to (RUN_ACCEPTED).
	Tip  string    `json:"tip,omitempty"`
	Time time.Time `json:"time"`
	// RetryAt is when a scheduled retry is due (RETRY_SCHEDULED).
	RetryAt   time.Time `json:"retry_at,omitzero"`
	Error     string    `json:"error,omitempty"`
	Permanent bool      `json:"permanent,omitempty"`
	// Interrupted marks a STAGE_FAILED written on restart for an attempt
	// the daemon stopped during: it does not count against the stage's
	// attempt limit.
	Interrupted bool `json:"interrupted,omitempty"`
}

// RunRecord is one event to append to a run's log, with the files stored
// beside it (request.json, response.json, workflow.toml, config.toml).
type RunRecord struct {
	Event RunEvent
	Files map[string][]byte
}

// RunInfo is a run's state, derived from its log.
type RunInfo struct {
	ID              string            `json:"id"`
	Workflow        string            `json:"workflow"`
	WorkflowVersion string            `json:"workflow_version"`
	Status          RunStatus         `json:"status"`
	Key             string            `json:"key,omitempty"`
	Params          map[string]string `json:"params,omitempty"`
	Inputs          []ArtifactRef     `json:"inputs,omitempty"`
	// Path is the stages visited, in order.
	Path   []string    `json:"path"`
	Stages []StageInfo `json:"stages"`
	Error  string      `json:"error,omitempty"`
	// Branch and Base are an isolated run's own branch and the commit it
	// was made from (RUN_CREATED), BaseBranch the branch that commit was
	// the tip of.
	Branch     string `json:"branch,omitempty"`
	Base       string `json:"base,omitempty"`
	BaseBranch string `json:"base_branch,omitempty"`
	// Accepted is the commit BaseBranch was fast-forwarded to when the
	// run's work was accepted (RUN_ACCEPTED); Discarded says the run's
	// branch and worktree were discarded (RUN_DISCARDED).
	Accepted  string     `json:"accepted,omitempty"`
	Discarded bool       `json:"discarded,omitempty"`
	Created   time.Time  `json:"created"`
	Updated   time.Time  `json:"updated"`
	Events    []RunEvent `json:"events,omitempty"`
	Commit    string     `json:"commit,omitempty"` // the run ref's tip
}

// StageInfo is one stage visit of a run.
type StageInfo struct {
	Stage    string          `json:"stage"`
	Visit    int             `json:"visit"`
	Attempts int             `json:"attempts"`
	Status   string          `json:"status"` // enqueued, running, retrying, succeeded, failed
	Output   json.RawMessage `json:"output"` // null until the stage succeeds
	Error    string          `json:"error,omitempty"`
}

// StageRequest is what a stage's agent gets: references and small
// metadata, never artifact content. Its JSON is the process agent's stdin
// (a contract).
type StageRequest struct {
	RunID           string            `json:"run_id"`
	CorrelationID   string            `json:"correlation_id"`
	Stage           string            `json:"stage"`
	Attempt         int               `json:"attempt"`
	Workflow        string            `json:"workflow"`
	WorkflowVersion string            `json:"workflow_version"`
	IdempotencyKey  string            `json:"idempotency_key"`
	Inputs          []ArtifactRef     `json:"inputs"`
	Params          map[string]string `json:"params"`
	// Outputs maps each earlier stage to its latest visit's output.
	Outputs map[string]json.RawMessage `json:"outputs"`
	// Visit is the stage visit's 1-based position in the run's path (a
	// stage entered again in a loop gets a new visit number).
	Visit int `json:"visit"`
	// Replay is set when a live replay runs the stage again; Recorded then
	// holds the Files of the visit's original successful attempt (none
	// if it had none), so an agent can serve what it recorded instead of
	// calling the outside world again.
	Replay   bool              `json:"replay,omitempty"`
	Recorded map[string]string `json:"-"`
	// Branch and Dir are an isolated run's (a workflow with isolated =
	// true): the run's own branch, and the absolute path of the worktree
	// where it is checked out, where the stage's commands run and its
	// writes land once committed. Both are empty for other runs.
	Branch string `json:"branch,omitempty"`
	Dir    string `json:"dir,omitempty"`
}

// StageResponse is what a stage's agent returns. Its JSON is what a
// process agent prints on stdout (a contract).
type StageResponse struct {
	Status    string          `json:"status"` // "ok" or "fail"
	Permanent bool            `json:"permanent,omitempty"`
	Output    json.RawMessage `json:"output,omitempty"`
	Writes    []StageWrite    `json:"writes,omitempty"`
	Error     string          `json:"error,omitempty"`
	// Agent is the author of the commit of the stage's writes (e.g.
	// "writer"); "" is the stage's agent name, or the stage's name.
	Agent string `json:"agent,omitempty"`
	// Trailers are extra Luna-<key> trailers of that commit (e.g. Model,
	// Prompt). The names lunad writes itself are refused, as in
	// Change.Extra, and so are the engine's Run, Stage and Attempt.
	Trailers map[string]string `json:"trailers,omitempty"`
	// Files are text files stored beside the STAGE_SUCCEEDED event under
	// files/NAME (a recorder's transcript, say); a live replay hands them
	// back in StageRequest.Recorded.
	Files map[string]string `json:"files,omitempty"`
	// Acks are acknowledgements of references the stage checked and
	// found right (a reviewer's): the engine records each, after the
	// writes, as an ack commit (Writer.Ack) by the same author with the
	// same trailers, once per stage visit.
	Acks []StageAck `json:"acks,omitempty"`
}

// StageAck acknowledges artifact Ref's references — all of them, or only
// those to Symbol — as AckRequest does.
type StageAck struct {
	Ref    string `json:"ref"`
	Symbol string `json:"symbol,omitempty"`
}

// StageWrite is one file a stage's effects write, as a path relative to
// the workspace root. Title and Type are used only when the write creates
// an artifact (a path no artifact has): its title (default: the file's
// name) and type (default: inferred from the path); an existing
// artifact's are left as they are.
//
// Base is the commit of the version the content was computed from (the
// Artifact.Commit the stage read). When the artifact has moved since, the
// workspace merges three ways — base, the artifact now, Content — and
// commits the merge when it is clean; Edits, the SEARCH/REPLACE edits that
// took base to Content, are applied to the artifact as it is now instead,
// when each still matches exactly once as it is. A write without Base
// overwrites. It is recorded with the stage's response, so a replay or a
// resumed commit merges the same way.
type StageWrite struct {
	Path    string  `json:"path"`
	Content string  `json:"content"`
	Title   string  `json:"title,omitempty"`
	Type    string  `json:"type,omitempty"`
	Base    string  `json:"base,omitempty"`
	Edits   []Block `json:"edits,omitempty"`
}

// Agent processes one stage. It never writes to the workspace and never
// chooses the next stage. An error is a failure to produce a response (a
// crash, a timeout, garbage on stdout): an *AgentError says whether it is
// permanent; any other error is transient. A response with Status "fail"
// is the agent's own failure report.
type Agent interface {
	// Version identifies the agent's code, recorded on every event.
	Version() string
	Process(ctx context.Context, req StageRequest) (StageResponse, error)
}

// AgentError is an agent that could not produce a response.
type AgentError struct {
	Permanent bool
	Err       error
}

func (e *AgentError) Error() string { return e.Err.Error() }
func (e *AgentError) Unwrap() error { return e.Err }

// RunNotFoundError: no run or workflow by that name.
type RunNotFoundError struct {
	Kind string `json:"kind"` // "run" or "workflow"
	Ref  string `json:"ref"`
}

func (e *RunNotFoundError) Is(target error) bool { return target == ErrNotFound }
func (e *RunNotFoundError) Error() string {
	return fmt.Sprintf("%v: no %s %q", ErrNotFound, e.Kind, e.Ref)
}

// RunRequest starts a run of a workflow.
type RunRequest struct {
	Workflow string `json:"workflow"`
	// Inputs name artifacts (IDs or paths) the run reads.
	Inputs []string          `json:"inputs,omitempty"`
	Params map[string]string `json:"params,omitempty"`
	// Key makes the start idempotent: a run started with the same key is
	// returned instead of a new one (and a different request with it is
	// ErrConflict).
	Key           string `json:"key,omitempty"`
	CorrelationID string `json:"correlation_id,omitempty"`
}

// WorkflowInfo describes a workflow file of the workspace.
type WorkflowInfo struct {
	Name    string   `json:"name"`
	Version string   `json:"version"` // the version recorded on events
	File    string   `json:"file"`
	Start   string   `json:"start"`
	Stages  []string `json:"stages"`
	// Isolated: each run on a branch and worktree of its own
	// (`isolated = true`).
	Isolated bool `json:"isolated,omitempty"`
	// Error is set when the file does not check; the rest may be empty.
	Error string `json:"error,omitempty"`
}

// ReplayReport compares a run with its replay.
type ReplayReport struct {
	Run  string `json:"run"`
	Live bool   `json:"live"`
	// Identical: the same state path, terminal status and written tree.
	Identical    bool      `json:"identical"`
	Path         []string  `json:"path"`
	ReplayPath   []string  `json:"replay_path"`
	Status       RunStatus `json:"status"`
	ReplayStatus RunStatus `json:"replay_status"`
	// Tree and ReplayTree hash the files the run wrote, as a git tree.
	Tree       string `json:"tree"`
	ReplayTree string `json:"replay_tree"`
	// Divergence: 1 if the terminal stage differs, else the fraction of
	// stage outputs that differ (live replay).
	Divergence  float64  `json:"divergence"`
	Differences []string `json:"differences,omitempty"`
}
