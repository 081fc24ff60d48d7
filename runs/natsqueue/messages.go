package natsqueue

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/lunad/lunad"
)

// stageMsg is a stage message: what a worker needs to run one attempt of
// a stage. It carries references and small metadata (the request names
// its inputs by ID, path, version and commit), never artifact content.
type stageMsg struct {
	Request lunad.StageRequest `json:"request"`
	// Argv is the stage's command, run in the worker's clone.
	Argv []string `json:"argv"`
	// TimeoutMS is the stage's timeout in milliseconds (0: none).
	TimeoutMS int64 `json:"timeout_ms"`
	// AgentVersion is the agent's version as the daemon computed it from
	// its workspace; a worker whose clone differs logs it.
	AgentVersion string `json:"agent_version"`
	// Sent is when the daemon made the message; a worker refuses one
	// older than its queue's duplicate window and the stage's timeout
	// (a replay the server no longer deduplicates).
	Sent time.Time `json:"sent"`
}

// resultMsg is a worker's answer to a stage message: the agent's
// response, or the error it failed with.
type resultMsg struct {
	// For is the attempt this result answers; the daemon takes it only
	// for that attempt.
	For       identity             `json:"for"`
	Response  *lunad.StageResponse `json:"response,omitempty"`
	Error     string               `json:"error,omitempty"`
	Permanent bool                 `json:"permanent,omitempty"`
	// Worker names the worker that ran the stage; AgentVersion is the
	// agent's version in its clone.
	Worker       string `json:"worker"`
	AgentVersion string `json:"agent_version"`
}

// safeToken is what may stand as one subject token unchanged.
var safeToken = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// token makes s one subject token: s itself when it is made of letters,
// digits, '_' and '-' (workflow and stage names always are), otherwise
// "x" and a hash of it.
func token(s string) string {
	if safeToken().MatchString(s) {
		return s
	}
	h := sha256.Sum256([]byte(s))
	return "x" + hex.EncodeToString(h[:12])
}

// msgID is the Nats-Msg-Id of an attempt's stage message.
func msgID(req lunad.StageRequest) string {
	return req.IdempotencyKey + "/" + strconv.Itoa(req.Attempt)
}

func (q *Queue) stageSubject(workflow, stage string) string {
	return q.opts.Name + ".stages." + token(workflow) + "." + token(stage)
}

func (q *Queue) resultSubject(req lunad.StageRequest) string {
	return q.opts.Name + ".results." + token(req.IdempotencyKey) + "." + strconv.Itoa(req.Attempt)
}
