package rpc

import (
	"fmt"
	"time"
)

// The daemon's protocol: JSON-RPC 2.0 over the workspace's unix socket,
// each message framed like LSP ("Content-Length: N\r\n\r\n" and N bytes of
// JSON; framing.go). Every Workspace method is one call, "lunad/<name>"
// (lunad/list, lunad/edit, ...), with the params and result structs of
// params.go, answered by the handlers of handlers.go; events come as
// "lunad/event" notifications after a "lunad/subscribe" call, and the index
// build's progress as "lunad/indexing" during a "lunad/index" call
// (index.go). Errors carry lunad's sentinel errors (errors.go) so that a
// Client returns errors that errors.Is the same sentinels, with the same
// messages.

// protocolVersion changes whenever a method's params or result change
// incompatibly; a client and a daemon of different versions do not talk.
// 2: lunad/index and its lunad/indexing notifications.
const protocolVersion = 2

// Method names.
const (
	mHello     = "lunad/hello"
	mList      = "lunad/list"
	mArtifact  = "lunad/artifact"
	mRead      = "lunad/read"
	mHistory   = "lunad/history"
	mDiff      = "lunad/diff"
	mCreate    = "lunad/create"
	mEdit      = "lunad/edit"
	mUndo      = "lunad/undo"
	mRedo      = "lunad/redo"
	mRestore   = "lunad/restore"
	mMove      = "lunad/move"
	mArchive   = "lunad/archive"
	mRemove    = "lunad/remove"
	mLink      = "lunad/link"
	mAck       = "lunad/ack"
	mBranch    = "lunad/branch"
	mSwitch    = "lunad/switch"
	mBranches  = "lunad/branches"
	mSymbols   = "lunad/symbols"
	mRefs      = "lunad/refs"
	mStale     = "lunad/stale"
	mAt        = "lunad/at"
	mSearch    = "lunad/search_symbols"
	mOutgoing  = "lunad/outgoing"
	mSubscribe = "lunad/subscribe"
	mEvent     = "lunad/event"  // notification, daemon to client
	mDaemon    = "lunad/daemon" // the daemon's status (lifecycle.go)
	mStop      = "lunad/stop"   // the daemon stops (lifecycle.go)
)

// Settings is the configuration a daemon's answers depend on: who the
// person is, how long a write waits for the workspace lock, the size
// limit. A client configured otherwise does not use the daemon; the two are
// compared as values, field by field.
type Settings struct {
	Author      string        `json:"author"`
	Email       string        `json:"email"`
	LockTimeout time.Duration `json:"lock_timeout"`
	MaxContent  int           `json:"max_content"`
}

func (s *Settings) String() string {
	if s == nil {
		return "none reported"
	}
	return fmt.Sprintf("author=%q <%q> lock_timeout=%v max_content=%d", s.Author, s.Email, s.LockTimeout, s.MaxContent)
}

// Hello is what a daemon says about itself, its answer to "lunad/hello"
// (not an artifact's lunad.Status).
type Hello struct {
	Protocol int    `json:"protocol"`
	Root     string `json:"root"`
	PID      int    `json:"pid"`
	// Config is the configuration the daemon runs with (see
	// ServeOptions.Config).
	Config *Settings `json:"config,omitempty"`
	// MaxFrame is the largest message the daemon reads, in bytes.
	MaxFrame int       `json:"max_frame"`
	Started  time.Time `json:"started"`
	// Served counts the calls answered so far, Active those being answered
	// (besides this one), Clients the connections open.
	Served  uint64 `json:"served"`
	Active  int    `json:"active"`
	Clients int    `json:"clients"`
	// Notice is what the daemon has to tell the next client about itself
	// (ServeOptions.Notice), once.
	Notice string `json:"notice,omitempty"`
}
