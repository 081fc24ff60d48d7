package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/editor"
)

// The daemon's protocol: JSON-RPC 2.0 over the workspace's unix socket,
// each message framed like LSP ("Content-Length: N\r\n\r\n" and N bytes of
// JSON). Every Workspace method is one call, "lunad/<name>" (lunad/list,
// lunad/edit, ...), with the params and result structs below; events come
// as "lunad/event" notifications after a "lunad/subscribe" call, and the
// index build's progress as "lunad/indexing" during a "lunad/index" call
// (index.go). Errors
// carry lunad's sentinel errors (see errorData) so that a Client returns
// errors that errors.Is the same sentinels, with the same messages.

// protocolVersion changes whenever a method's params or result change
// incompatibly; a client and a daemon of different versions do not talk.
// 2: lunad/index and its lunad/indexing notifications.
const protocolVersion = 2

// DefaultMaxFrame caps the size of one message a daemon reads: a frame
// declaring more is skipped unread and answered with an error. (jsonrpc2's
// own header framer caps a declared Content-Length at 1 GiB.)
const DefaultMaxFrame = 64 << 20

// maxHeader caps a frame's header block; a longer one ends the connection.
const maxHeader = 4 << 10

// writeTimeout bounds the write of one message to a client: a client that
// stops reading its socket for that long is disconnected.
const writeTimeout = 30 * time.Second

// DefaultMaxConns is how many connections a daemon serves at once unless
// ServeOptions.MaxConns says otherwise.
const DefaultMaxConns = 256

// DefaultConnIdleTimeout is how long a connection may stay idle unless
// ServeOptions.ConnIdleTimeout says otherwise.
const DefaultConnIdleTimeout = 10 * time.Minute

// refuseWait bounds the wait for the first call of a connection over the
// cap, which is answered with the refusal (its id lets a client's call
// return the message).
const refuseWait = time.Second

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
	mEvent     = "lunad/event" // notification, daemon to client
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
}

// text is a string sent losslessly: as a JSON string when it is valid
// UTF-8, else as {"base64": "..."} (encoding/json would replace invalid
// bytes, and an edit or a name must reach the store byte for byte).
type text string

func (t text) MarshalJSON() ([]byte, error) {
	if utf8.ValidString(string(t)) {
		return json.Marshal(string(t))
	}
	return json.Marshal(struct {
		B []byte `json:"base64"`
	}{[]byte(t)})
}

func (t *text) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '{' {
		var v struct {
			B []byte `json:"base64"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*t = text(v.B)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*t = text(s)
	return nil
}

// Params and results of the calls.
type (
	noParams  struct{}
	refParams struct {
		Ref text `json:"ref"`
	}
	readParams struct {
		Ref text `json:"ref"`
		At  text `json:"at,omitempty"`
	}
	readResult struct {
		Content  []byte         `json:"content"`
		Artifact lunad.Artifact `json:"artifact"`
	}
	diffParams struct {
		ID   text `json:"id"`
		From int  `json:"from,omitempty"`
		To   int  `json:"to,omitempty"`
	}
	extraField struct {
		Key   text `json:"key"`
		Value text `json:"value"`
	}
	changeParams struct {
		Agent          text         `json:"agent,omitempty"`
		Message        text         `json:"message,omitempty"`
		IdempotencyKey text         `json:"idempotency_key,omitempty"`
		BaseVersion    int          `json:"base_version,omitempty"`
		Extra          []extraField `json:"extra,omitempty"`
	}
	createParams struct {
		Title   text         `json:"title"`
		Type    text         `json:"type,omitempty"`
		Path    text         `json:"path,omitempty"`
		Status  text         `json:"status,omitempty"`
		Content []byte       `json:"content"`
		Change  changeParams `json:"change"`
	}
	blockParams struct {
		Path    text `json:"path,omitempty"`
		Search  text `json:"search"`
		Replace text `json:"replace"`
	}
	editParams struct {
		ID         text          `json:"id"`
		Blocks     []blockParams `json:"blocks,omitempty"`
		BlocksText text          `json:"blocks_text,omitempty"`
		Patch      text          `json:"patch,omitempty"`
		Content    []byte        `json:"content"`
		Rewrite    bool          `json:"rewrite,omitempty"`
		Change     changeParams  `json:"change"`
	}
	writeParams struct { // undo, redo, archive
		Ref    text         `json:"ref"`
		Change changeParams `json:"change"`
	}
	restoreParams struct {
		Ref     text         `json:"ref"`
		Version int          `json:"version"`
		Change  changeParams `json:"change"`
	}
	moveParams struct {
		Ref    text         `json:"ref"`
		Path   text         `json:"path"`
		Change changeParams `json:"change"`
	}
	linkParams struct {
		Src    text         `json:"src"`
		Dst    text         `json:"dst"`
		Kind   text         `json:"kind,omitempty"`
		Change changeParams `json:"change"`
	}
	ackParams struct {
		Ref    text         `json:"ref"`
		Symbol text         `json:"symbol,omitempty"`
		Change changeParams `json:"change"`
	}
	branchParams struct {
		Name text `json:"name"`
		From text `json:"from,omitempty"`
	}
	symbolsResult struct {
		Artifact lunad.Artifact `json:"artifact"`
		Symbols  []lunad.Symbol `json:"symbols"`
	}
	atParams struct {
		Ref    text `json:"ref"`
		Offset int  `json:"offset"`
	}
	searchParams struct {
		Query text `json:"query"`
		Limit int  `json:"limit"`
	}
	subscribeResult struct {
		Subscription int64 `json:"subscription"`
	}
	eventParams struct {
		Subscription int64       `json:"subscription"`
		Event        lunad.Event `json:"event"`
	}
)

// The idempotency keys of the writes' parameters (call retries a
// keyed write on a restored connection).
func (p createParams) key() string  { return string(p.Change.IdempotencyKey) }
func (p editParams) key() string    { return string(p.Change.IdempotencyKey) }
func (p writeParams) key() string   { return string(p.Change.IdempotencyKey) }
func (p restoreParams) key() string { return string(p.Change.IdempotencyKey) }
func (p moveParams) key() string    { return string(p.Change.IdempotencyKey) }
func (p linkParams) key() string    { return string(p.Change.IdempotencyKey) }
func (p ackParams) key() string     { return string(p.Change.IdempotencyKey) }

func toChange(p changeParams) lunad.Change {
	ch := lunad.Change{Agent: string(p.Agent), Message: string(p.Message), IdempotencyKey: string(p.IdempotencyKey), BaseVersion: p.BaseVersion}
	if p.Extra != nil {
		ch.Extra = make(map[string]string, len(p.Extra))
		for _, f := range p.Extra {
			ch.Extra[string(f.Key)] = string(f.Value)
		}
	}
	return ch
}

func fromChange(ch lunad.Change) changeParams {
	p := changeParams{Agent: text(ch.Agent), Message: text(ch.Message), IdempotencyKey: text(ch.IdempotencyKey), BaseVersion: ch.BaseVersion}
	if ch.Extra != nil {
		p.Extra = []extraField{}
		for k, v := range ch.Extra {
			p.Extra = append(p.Extra, extraField{text(k), text(v)})
		}
	}
	return p
}

// The requests of the writes on the wire: each lunad request struct has
// its params, which mirror it field by field with its strings as text
// (byte for byte, see text) and its Change as changeParams. The client
// makes the params of a request (fromX); the daemon gets the request back
// (the params' request method) and calls the Workspace with it (op).

func fromCreate(r lunad.CreateSpec) createParams {
	return createParams{Title: text(r.Title), Type: text(r.Type), Path: text(r.Path), Status: text(r.Status),
		Content: r.Content, Change: fromChange(r.Change)}
}

func (p createParams) request() lunad.CreateSpec {
	return lunad.CreateSpec{Title: string(p.Title), Type: string(p.Type), Path: string(p.Path),
		Status: lunad.Status(p.Status), Content: p.Content, Change: toChange(p.Change)}
}

func fromEdit(r lunad.EditRequest) editParams {
	p := editParams{ID: text(r.ID), BlocksText: text(r.BlocksText), Patch: text(r.Patch), Content: r.Content,
		Rewrite: r.Rewrite, Change: fromChange(r.Change)}
	for _, b := range r.Blocks {
		p.Blocks = append(p.Blocks, blockParams{Path: text(b.Path), Search: text(b.Search), Replace: text(b.Replace)})
	}
	return p
}

func (p editParams) request() lunad.EditRequest {
	r := lunad.EditRequest{ID: string(p.ID), BlocksText: string(p.BlocksText), Patch: string(p.Patch),
		Content: p.Content, Rewrite: p.Rewrite, Change: toChange(p.Change)}
	for _, b := range p.Blocks {
		r.Blocks = append(r.Blocks, lunad.Block{Path: string(b.Path), Search: string(b.Search), Replace: string(b.Replace)})
	}
	return r
}

func fromRef(r lunad.RefRequest) writeParams {
	return writeParams{Ref: text(r.Ref), Change: fromChange(r.Change)}
}

func (p writeParams) request() lunad.RefRequest {
	return lunad.RefRequest{Ref: string(p.Ref), Change: toChange(p.Change)}
}

func fromRestore(r lunad.RestoreRequest) restoreParams {
	return restoreParams{Ref: text(r.Ref), Version: r.Version, Change: fromChange(r.Change)}
}

func (p restoreParams) request() lunad.RestoreRequest {
	return lunad.RestoreRequest{Ref: string(p.Ref), Version: p.Version, Change: toChange(p.Change)}
}

func fromMove(r lunad.MoveRequest) moveParams {
	return moveParams{Ref: text(r.Ref), Path: text(r.Path), Change: fromChange(r.Change)}
}

func (p moveParams) request() lunad.MoveRequest {
	return lunad.MoveRequest{Ref: string(p.Ref), Path: string(p.Path), Change: toChange(p.Change)}
}

func fromLink(r lunad.LinkRequest) linkParams {
	return linkParams{Src: text(r.Src), Dst: text(r.Dst), Kind: text(r.Kind), Change: fromChange(r.Change)}
}

func (p linkParams) request() lunad.LinkRequest {
	return lunad.LinkRequest{Src: string(p.Src), Dst: string(p.Dst), Kind: string(p.Kind), Change: toChange(p.Change)}
}

func fromAck(r lunad.AckRequest) ackParams {
	return ackParams{Ref: text(r.Ref), Symbol: text(r.Symbol), Change: fromChange(r.Change)}
}

func (p ackParams) request() lunad.AckRequest {
	return lunad.AckRequest{Ref: string(p.Ref), Symbol: string(p.Symbol), Change: toChange(p.Change)}
}

func fromBranch(r lunad.BranchRequest) branchParams {
	return branchParams{Name: text(r.Name), From: text(r.From)}
}

func (p branchParams) request() lunad.BranchRequest {
	return lunad.BranchRequest{Name: string(p.Name), From: string(p.From)}
}

// methods answers each call but lunad/hello, lunad/subscribe and
// lunad/index, which need the connection.
var methods = map[string]func(ctx context.Context, s lunad.Workspace, params []byte) (any, error){
	mList:     noArgs(func(ctx context.Context, s lunad.Workspace) (any, error) { return s.List(ctx) }),
	mBranches: noArgs(func(ctx context.Context, s lunad.Workspace) (any, error) { return s.Branches(ctx) }),
	mStale:    noArgs(func(ctx context.Context, s lunad.Workspace) (any, error) { return s.Stale(ctx) }),
	mArtifact: args(func(ctx context.Context, s lunad.Workspace, p refParams) (any, error) {
		return s.Artifact(ctx, string(p.Ref))
	}),
	mHistory: args(func(ctx context.Context, s lunad.Workspace, p refParams) (any, error) {
		return s.History(ctx, string(p.Ref))
	}),
	mRefs: args(func(ctx context.Context, s lunad.Workspace, p refParams) (any, error) {
		return s.Refs(ctx, string(p.Ref))
	}),
	mOutgoing: args(func(ctx context.Context, s lunad.Workspace, p refParams) (any, error) {
		return s.Outgoing(ctx, string(p.Ref))
	}),
	mRead: args(func(ctx context.Context, s lunad.Workspace, p readParams) (any, error) {
		c, a, err := s.Read(ctx, string(p.Ref), string(p.At))
		return readResult{c, a}, err
	}),
	mDiff: args(func(ctx context.Context, s lunad.Workspace, p diffParams) (any, error) {
		d, err := s.Diff(ctx, string(p.ID), p.From, p.To)
		return text(d), err
	}),
	mCreate:  op[createParams](lunad.Workspace.Create),
	mEdit:    op[editParams](lunad.Workspace.Edit),
	mUndo:    op[writeParams](lunad.Workspace.Undo),
	mRedo:    op[writeParams](lunad.Workspace.Redo),
	mArchive: op[writeParams](lunad.Workspace.Archive),
	mRestore: op[restoreParams](lunad.Workspace.Restore),
	mMove:    op[moveParams](lunad.Workspace.Move),
	mLink:    op[linkParams](lunad.Workspace.Link),
	mAck:     op[ackParams](lunad.Workspace.Ack),
	mBranch:  op[branchParams](lunad.Workspace.Branch),
	mSwitch: args(func(ctx context.Context, s lunad.Workspace, p branchParams) (any, error) {
		return s.Switch(ctx, string(p.Name))
	}),
	mSymbols: args(func(ctx context.Context, s lunad.Workspace, p refParams) (any, error) {
		a, syms, err := s.Symbols(ctx, string(p.Ref))
		return symbolsResult{a, syms}, err
	}),
	mAt: args(func(ctx context.Context, s lunad.Workspace, p atParams) (any, error) {
		return s.At(ctx, string(p.Ref), p.Offset)
	}),
	mSearch: args(func(ctx context.Context, s lunad.Workspace, p searchParams) (any, error) {
		return s.SearchSymbols(ctx, string(p.Query), p.Limit)
	}),

	// lunad.WorkflowRuns (runs.go).
	mWorkflows:   noArgs(func(ctx context.Context, s lunad.Workspace) (any, error) { return s.Workflows(ctx) }),
	mRuns:        noArgs(func(ctx context.Context, s lunad.Workspace) (any, error) { return s.Runs(ctx) }),
	mDeadLetters: noArgs(func(ctx context.Context, s lunad.Workspace) (any, error) { return s.DeadLetters(ctx) }),
	mWorkflow: args(func(ctx context.Context, s lunad.Workspace, p runParams) (any, error) {
		return s.Workflow(ctx, p.ID)
	}),
	mRunStart: op[runStartParams](lunad.Workspace.StartRun),
	mRun: args(func(ctx context.Context, s lunad.Workspace, p runParams) (any, error) {
		return s.Run(ctx, p.ID)
	}),
	mRunWait: args(waitRun),
	mRunCancel: args(func(ctx context.Context, s lunad.Workspace, p runParams) (any, error) {
		return s.CancelRun(ctx, p.ID)
	}),
	mRunRetry: args(func(ctx context.Context, s lunad.Workspace, p runParams) (any, error) {
		return s.RetryRun(ctx, p.ID)
	}),
	mRunReplay: args(func(ctx context.Context, s lunad.Workspace, p runParams) (any, error) {
		return s.ReplayRun(ctx, p.ID, p.Live)
	}),
	mRunPrune: args(func(ctx context.Context, s lunad.Workspace, p pruneParams) (any, error) {
		return s.PruneRuns(ctx, p.OlderThan)
	}),
	mRunAccept: args(func(ctx context.Context, s lunad.Workspace, p settleParams) (any, error) {
		return s.AcceptRun(ctx, p.ID)
	}),
	mRunDiscard: args(func(ctx context.Context, s lunad.Workspace, p settleParams) (any, error) {
		return s.DiscardRun(ctx, p.ID)
	}),
	mRunFile: args(func(ctx context.Context, s lunad.Workspace, p runFileParams) (any, error) {
		return s.RunFile(ctx, p.ID, p.Seq, string(p.Name))
	}),
}

// writes are the methods that change the workspace: logged at Info level
// (the rest at Debug), and not sent again after a broken connection unless
// their params carry an idempotency key (Client.do).
var writes = map[string]bool{mCreate: true, mEdit: true, mUndo: true, mRedo: true, mRestore: true, mMove: true,
	mArchive: true, mLink: true, mAck: true, mBranch: true, mSwitch: true,
	mRunStart: true, mRunCancel: true, mRunRetry: true, mRunPrune: true, mRunAccept: true, mRunDiscard: true}

func args[P any](f func(context.Context, lunad.Workspace, P) (any, error)) func(context.Context, lunad.Workspace, []byte) (any, error) {
	return func(ctx context.Context, s lunad.Workspace, raw []byte) (any, error) {
		var p P
		if err := decodeParams(raw, &p); err != nil {
			return nil, err
		}
		return f(ctx, s, p)
	}
}

// op answers a call with a Workspace method that takes one request (R),
// such as lunad.Workspace.Move: its params P are that request on the wire.
func op[P interface{ request() R }, R, T any](f func(lunad.Workspace, context.Context, R) (T, error)) func(context.Context, lunad.Workspace, []byte) (any, error) {
	return args(func(ctx context.Context, s lunad.Workspace, p P) (any, error) {
		res, err := f(s, ctx, p.request())
		return res, err
	})
}

func noArgs(f func(context.Context, lunad.Workspace) (any, error)) func(context.Context, lunad.Workspace, []byte) (any, error) {
	return args(func(ctx context.Context, s lunad.Workspace, _ noParams) (any, error) { return f(ctx, s) })
}

// decodeParams decodes a call's params strictly: unknown fields, wrong
// types and trailing data are invalid params. Absent params are {}.
func decodeParams(raw []byte, v any) error {
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("trailing data after the params")
	}
	if err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	return nil
}

// codec is the payload codec of both ends: encoding/json, without HTML
// escaping. (jsonrpc2's default, encoding/json/v2, turns nil slices into
// [] and would change what the CLI prints through a daemon.)
type codec struct{}

func (codec) Marshal(v any) ([]byte, error) {
	switch raw := v.(type) { // already encoded: verbatim, as jsonrpc2.Codec requires
	case jsonrpc2.RawMessage:
		if raw == nil {
			return []byte("null"), nil
		}
		return raw, nil
	case json.RawMessage:
		if raw == nil {
			return []byte("null"), nil
		}
		return raw, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func (codec) Unmarshal(data []byte, v any) error {
	switch p := v.(type) {
	case *jsonrpc2.RawMessage:
		*p = append((*p)[:0:0], data...)
		return nil
	case *json.RawMessage:
		*p = append((*p)[:0:0], data...)
		return nil
	}
	return json.Unmarshal(data, v)
}

// Error codes, in the range JSON-RPC leaves to implementations. A
// response's code is that of the first of these sentinels its error
// wraps (the order of cmd/lunad's exit codes); errorData lists them all.
const (
	codeError        jsonrpc2.Code = -32000 // none of the sentinels
	codeConflict     jsonrpc2.Code = -32010
	codeNotApplied   jsonrpc2.Code = -32011
	codeNotFound     jsonrpc2.Code = -32012
	codeInvalid      jsonrpc2.Code = -32013
	codeLocked       jsonrpc2.Code = -32014
	codeDirty        jsonrpc2.Code = -32015
	codeExists       jsonrpc2.Code = -32016
	codeNotWorkspace jsonrpc2.Code = -32017
	codeCanceled     jsonrpc2.Code = -32018
	codeBusy         jsonrpc2.Code = -32019 // the daemon serves as many connections as it may
	codeIdle         jsonrpc2.Code = -32020 // the connection is closed for idleness
)

// sentinels are the errors carried across the socket by name.
var sentinels = []struct {
	name string
	err  error
	code jsonrpc2.Code
}{
	{"conflict", lunad.ErrConflict, codeConflict},
	{"not_applied", lunad.ErrNotApplied, codeNotApplied},
	{"not_found", lunad.ErrNotFound, codeNotFound},
	{"invalid", lunad.ErrInvalid, codeInvalid},
	{"locked", lunad.ErrLocked, codeLocked},
	{"dirty", lunad.ErrDirty, codeDirty},
	{"exists", lunad.ErrExists, codeExists},
	{"not_workspace", lunad.ErrNotWorkspace, codeNotWorkspace},
	{"canceled", context.Canceled, codeCanceled},
	{"deadline_exceeded", context.DeadlineExceeded, codeCanceled},
	{"editor.no_match", editor.ErrNoMatch, 0},
	{"editor.ambiguous", editor.ErrAmbiguous, 0},
	{"editor.already_applied", editor.ErrAlreadyApplied, 0},
	{"editor.bad_blocks", editor.ErrBadBlocks, 0},
	{"editor.bad_patch", editor.ErrBadPatch, 0},
	{"editor.binary", editor.ErrBinary, 0},
	{"editor.invalid_utf8", editor.ErrInvalidUTF8, 0},
	{"editor.empty_search", editor.ErrEmptySearch, 0},
}

// errorData is the "data" of an error response: the names of the
// sentinels the error wraps and, for an edit that did not apply or did not
// parse, the editor's typed error with its details (the "did you mean"
// hints of a SEARCH text that was not found).
type errorData struct {
	Errors []string     `json:"errors"`
	Editor *editorError `json:"editor,omitempty"`
	// The typed errors of the root package, with their facts, so that a
	// client's adapter words its hint as it would in-process.
	NotFound    *lunad.NotFoundError    `json:"not_found,omitempty"`
	KeyReused   *lunad.KeyReusedError   `json:"key_reused,omitempty"`
	LinkExists  *lunad.LinkExistsError  `json:"link_exists,omitempty"`
	RunNotFound *lunad.RunNotFoundError `json:"run_not_found,omitempty"`
	BranchMoved *lunad.BranchMovedError `json:"branch_moved,omitempty"`
}

type editorError struct {
	// Type: no_match, ambiguous, already_applied, parse or text.
	Type string `json:"type"`
	// Err names the sentinel of a parse or text error.
	Err   string          `json:"err,omitempty"`
	Value json.RawMessage `json:"value"`
}

// wireError turns an error of the Service into a JSON-RPC error that
// carries its message, its sentinels and its editor details.
func wireError(err error) *jsonrpc2.Error {
	var we *jsonrpc2.Error
	if errors.As(err, &we) && we.Error() == err.Error() {
		return we // a protocol error (invalid params)
	}
	data := errorData{Errors: []string{}}
	code := codeError
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			data.Errors = append(data.Errors, s.name)
			if code == codeError && s.code != 0 {
				code = s.code
			}
		}
	}
	data.Editor = editorDetails(err)
	errors.As(err, &data.NotFound)
	errors.As(err, &data.KeyReused)
	errors.As(err, &data.LinkExists)
	errors.As(err, &data.RunNotFound)
	errors.As(err, &data.BranchMoved)
	raw, merr := json.Marshal(data)
	if merr != nil {
		raw = nil
	}
	return &jsonrpc2.Error{Code: code, Message: err.Error(), Data: raw}
}

func editorDetails(err error) *editorError {
	var (
		nm *editor.NoMatchError
		am *editor.AmbiguousError
		aa *editor.AlreadyAppliedError
		pe *editor.ParseError
		te *editor.TextError
		e  editorError
		v  any
	)
	switch {
	case errors.As(err, &nm):
		e.Type, v = "no_match", nm
	case errors.As(err, &am):
		e.Type, v = "ambiguous", am
	case errors.As(err, &aa):
		e.Type, v = "already_applied", aa
	case errors.As(err, &pe):
		e.Type, e.Err, v = "parse", sentinelName(pe.Err), pe
	case errors.As(err, &te):
		e.Type, e.Err, v = "text", sentinelName(te.Err), te
	default:
		return nil
	}
	raw, merr := json.Marshal(v)
	if merr != nil {
		return nil
	}
	e.Value = raw
	return &e
}

func sentinelName(err error) string {
	for _, s := range sentinels {
		if err == s.err {
			return s.name
		}
	}
	return ""
}

// ServeOptions configure Serve.
type ServeOptions struct {
	// IdleTimeout, when > 0, makes Serve return once no client has been
	// connected for that long.
	IdleTimeout time.Duration
	// Busy, when set, is asked before an idle daemon stops: while it
	// reports true (runs in flight), the daemon keeps serving.
	Busy func() bool
	// Logger receives the daemon's log (default slog.Default()).
	Logger *slog.Logger
	// MaxFrame caps the size of a message read from a client (default
	// DefaultMaxFrame).
	MaxFrame int
	// Config is reported to clients in Hello; a client configured
	// otherwise can decline the daemon (ConnectOptions.Config).
	Config *Settings
	// MaxConns caps the connections served at once (default
	// DefaultMaxConns): one more is answered with a JSON-RPC error saying
	// so (its first call, or unasked) and closed.
	MaxConns int
	// ConnIdleTimeout closes a connection that has had no call in flight
	// and no subscription for that long (default DefaultConnIdleTimeout;
	// negative: never), after telling it why. A subscribed client (the
	// language server, the MCP server) waits for events and is never idle.
	// It also bounds the time a client may take to send one message.
	ConnIdleTimeout time.Duration
}

// server is one Serve call.
type server struct {
	svc      lunad.Workspace
	opts     ServeOptions
	log      *slog.Logger
	base     context.Context // parent of every request: never canceled, so shutdown lets requests finish
	stopping chan struct{}   // closed when Serve stops
	started  time.Time
	served   atomic.Uint64
	active   atomic.Int64
	clients  atomic.Int64
	nextSub  atomic.Int64
	nextConn atomic.Int64
}

// Serve answers the clients that connect to ln (see Listen) with svc until
// ctx is done or, with opts.IdleTimeout, no client has been connected for
// that long. Each connection is served concurrently, and requests on one
// connection run concurrently too. At most opts.MaxConns connections are
// served at once (more are refused with an error) and a connection idle
// for opts.ConnIdleTimeout is closed. On shutdown Serve stops accepting, lets
// the requests in flight finish and answers them, closes every connection
// and ln, and returns once all its goroutines are done. It returns nil
// after ctx is done or the idle timeout, else the listener's error.
func Serve(ctx context.Context, svc lunad.Workspace, ln net.Listener, opts ServeOptions) error {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MaxFrame <= 0 {
		opts.MaxFrame = DefaultMaxFrame
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = DefaultMaxConns
	}
	if opts.ConnIdleTimeout == 0 {
		opts.ConnIdleTimeout = DefaultConnIdleTimeout
	}
	srv := &server{svc: svc, opts: opts, log: opts.Logger, base: context.WithoutCancel(ctx),
		stopping: make(chan struct{}), started: time.Now()}
	defer ln.Close()

	var wg sync.WaitGroup
	accepted := make(chan net.Conn)
	acceptErr := make(chan error, 1)
	wg.Go(func() {
		var backoff time.Duration
		for {
			nc, err := ln.Accept()
			if err != nil && transient(err) {
				// Out of file descriptors, say: wait, and accept again.
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				srv.log.Warn("accept failed; retrying", "err", err, "in", backoff)
				select {
				case <-time.After(backoff):
					continue
				case <-srv.stopping:
					return
				}
			}
			if err != nil {
				acceptErr <- err
				return
			}
			backoff = 0
			select {
			case accepted <- nc:
			case <-srv.stopping:
				nc.Close()
				return
			}
		}
	})
	var (
		mu   sync.Mutex
		open int                      // connections being served
		left = make(chan struct{}, 1) // signalled when open drops to 0

		lastRefusal time.Time // of the last refusal logged (at most one a second)
	)
	idle := time.NewTimer(opts.IdleTimeout)
	if opts.IdleTimeout <= 0 {
		idle.Stop()
	}
	defer idle.Stop()
	shutdown := func(why string) {
		mu.Lock()
		n := open
		mu.Unlock()
		srv.log.Info("daemon stopping", "reason", why, "clients", n)
		close(srv.stopping)
		ln.Close()
		wg.Wait()
		srv.log.Info("daemon stopped", "served", srv.served.Load())
	}
	for {
		select {
		case nc := <-accepted:
			mu.Lock()
			full := open >= opts.MaxConns
			if !full {
				open++
			}
			mu.Unlock()
			if full {
				if now := time.Now(); now.Sub(lastRefusal) >= time.Second {
					lastRefusal = now
					srv.log.Warn("connection refused: the daemon serves as many as it may", "max", opts.MaxConns)
				}
				wg.Go(func() { srv.refuse(nc) })
				continue
			}
			idle.Stop()
			wg.Go(func() {
				srv.serveConn(nc)
				mu.Lock()
				open--
				none := open == 0
				mu.Unlock()
				if none {
					select {
					case left <- struct{}{}:
					default:
					}
				}
			})
		case <-left:
			mu.Lock()
			none := open == 0
			mu.Unlock()
			if none && opts.IdleTimeout > 0 {
				idle.Reset(opts.IdleTimeout)
			}
		case <-idle.C:
			mu.Lock()
			none := open == 0
			mu.Unlock()
			if none && opts.Busy != nil && opts.Busy() {
				idle.Reset(opts.IdleTimeout) // runs in flight: not idle
				continue
			}
			if none {
				shutdown(fmt.Sprintf("no client for %v", opts.IdleTimeout))
				return nil
			}
		case <-ctx.Done():
			shutdown(context.Cause(ctx).Error())
			return nil
		case err := <-acceptErr:
			shutdown("accept: " + err.Error())
			return fmt.Errorf("daemon: accept: %w", err)
		}
	}
}

// transient reports whether an accept error may go away by itself.
func transient(err error) bool {
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED, syscall.EINTR} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// refuse answers a connection over opts.MaxConns: its first call (read
// within refuseWait) gets the error, or, if none comes, an answer to no
// call does; then the connection is closed.
func (srv *server) refuse(nc net.Conn) {
	defer nc.Close()
	fs := newFrameStream(nc, srv.opts.MaxFrame, srv.log, 0)
	nc.SetReadDeadline(time.Now().Add(refuseWait))
	var id jsonrpc2.ID
	if body, _, err := fs.ReadFrame(srv.base); err == nil {
		if call, ok := decodeCall(body); ok {
			id = call.ID()
		}
	}
	conns := "connections"
	if srv.opts.MaxConns == 1 {
		conns = "connection"
	}
	fs.Write(srv.base, jsonrpc2.NewResponse(id, nil, jsonrpc2.Errorf(codeBusy,
		"the daemon serves at most %d %s; close clients you do not use, or raise daemon.max_connections in .luna/config.toml, then connect again", srv.opts.MaxConns, conns)))
}

// decodeCall returns the call body holds, if it is one.
func decodeCall(body []byte) (*jsonrpc2.Call, bool) {
	msg, err := jsonrpc2.DecodeMessage(body)
	if err != nil {
		return nil, false
	}
	call, ok := msg.(*jsonrpc2.Call)
	return call, ok
}

// serveConn serves one client until it disconnects or the server stops.
func (srv *server) serveConn(nc net.Conn) {
	srv.clients.Add(1)
	defer srv.clients.Add(-1)
	log := srv.log.With("conn", srv.nextConn.Add(1))
	log.Debug("client connected")
	fs := newFrameStream(nc, srv.opts.MaxFrame, log, max(srv.opts.ConnIdleTimeout, 0))
	conn := jsonrpc2.NewConn(fs, jsonrpc2.WithCodec(codec{}))
	c := &serverConn{srv: srv, conn: conn, fs: fs, log: log}
	subCtx, cancelSubs := context.WithCancel(srv.base)
	c.subCtx = subCtx
	conn.Go(srv.base, jsonrpc2.AsyncHandler(c.handle))
	select {
	case <-conn.Done():
	case <-srv.stopping:
		fs.stop() // answer what is in flight, read no more
		<-conn.Done()
	}
	cancelSubs()
	c.subs.Wait()
	conn.Close()
	if err := conn.Err(); err != nil {
		log.Info("client connection failed", "err", err)
	}
	log.Debug("client disconnected")
}

// serverConn is one client's connection.
type serverConn struct {
	srv    *server
	conn   jsonrpc2.Conn
	fs     *frameStream
	log    *slog.Logger
	subCtx context.Context // ends the subscriptions when the connection ends
	subs   sync.WaitGroup
}

func (c *serverConn) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if !req.IsCall() {
		return nil, nil // the daemon takes no notifications
	}
	start := time.Now()
	method := req.Method()
	c.srv.active.Add(1)
	res, err := c.call(ctx, method, req.Params())
	c.srv.active.Add(-1)
	c.srv.served.Add(1)
	level := slog.LevelDebug
	if writes[method] && err == nil {
		level = slog.LevelInfo
	}
	attrs := []any{"method", method, "ms", float64(time.Since(start).Microseconds()) / 1000}
	if err != nil {
		attrs = append(attrs, "err", err)
	}
	if r, ok := res.(lunad.Result); ok {
		attrs = append(attrs, "artifact", r.Artifact.ID, "version", r.Version.Number, "commit", r.Version.Commit)
	} else if r, ok := res.(lunad.EditResult); ok {
		attrs = append(attrs, "artifact", r.Artifact.ID, "version", r.Version.Number, "commit", r.Version.Commit)
	}
	c.log.Log(ctx, level, "call", attrs...)
	if err != nil {
		return nil, wireError(err)
	}
	return res, nil
}

func (c *serverConn) call(ctx context.Context, method string, params []byte) (any, error) {
	switch method {
	case mHello:
		var p noParams
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		return c.srv.status(), nil
	case mSubscribe:
		var p noParams
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		return c.subscribe()
	case mIndex:
		return c.index(ctx, params)
	}
	f, ok := methods[method]
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "unknown method %q", method)
	}
	return f(ctx, c.srv.svc, params)
}

func (srv *server) status() Hello {
	return Hello{Protocol: protocolVersion, Root: srv.svc.Root(), PID: os.Getpid(), Config: srv.opts.Config,
		MaxFrame: srv.opts.MaxFrame, Started: srv.started.UTC(), Served: srv.served.Load(), Active: int(srv.active.Load()) - 1, Clients: int(srv.clients.Load())}
}

// subscribe starts forwarding the workspace's events to the client as
// lunad/event notifications, until the connection ends.
func (c *serverConn) subscribe() (any, error) {
	events, err := c.srv.svc.Subscribe(c.subCtx)
	if err != nil {
		return nil, err
	}
	id := c.srv.nextSub.Add(1)
	c.fs.keepAlive() // a subscriber waits for events: it is not idle
	c.subs.Go(func() {
		for e := range events {
			if err := c.conn.Notify(c.subCtx, mEvent, eventParams{Subscription: id, Event: e}); err != nil {
				c.log.Debug("event not sent", "err", err)
				return // the connection is ending; events stops with subCtx
			}
		}
	})
	return subscribeResult{Subscription: id}, nil
}

// frameStream is the daemon's jsonrpc2.Stream: LSP header framing, with
// what jsonrpc2's own framer lacks for a server that must keep serving.
//
//   - A frame declaring more than max bytes is skipped without reading it
//     into memory and answered with an "invalid request" error; a header
//     block over maxHeader bytes, or one that does not parse, is answered
//     with a parse error and ends the connection (the stream cannot be
//     resynchronised).
//   - A frame that is not one well-formed JSON-RPC message (malformed
//     JSON, a batch, a message of no kind) is answered with a parse or
//     invalid-request error instead of ending the connection.
//   - stop answers the calls already read and reads no more, so a shutdown
//     loses no reply: jsonrpc2 writes no response once its read loop ended.
//   - With idle > 0, a connection with no call in flight and no
//     subscription (keepAlive) that sends nothing for idle is told so and
//     ended, and a message must arrive whole within idle of its first
//     byte: the read deadline is set whenever the connection turns idle
//     and cleared when a call is read.
type frameStream struct {
	nc   net.Conn
	in   *bufio.Reader
	max  int
	log  *slog.Logger
	idle time.Duration
	rbuf []byte

	wmu  sync.Mutex
	wbuf []byte

	mu         sync.Mutex
	cond       sync.Cond
	pending    int  // calls read and not answered yet
	stopping   bool // stop was called
	broken     bool // a write failed: no more answers will be written
	subscribed bool // keepAlive was called
}

// newFrameStream makes the stream of connection nc; idle 0 means no idle
// timeout.
func newFrameStream(nc net.Conn, max int, log *slog.Logger, idle time.Duration) *frameStream {
	s := &frameStream{nc: nc, in: bufio.NewReaderSize(nc, 64<<10), max: max, log: log, idle: idle}
	s.cond.L = &s.mu
	return s
}

// errIdle: no message began within the idle timeout.
var errIdle = errors.New("idle connection")

// keepAlive exempts the connection from the idle timeout.
func (s *frameStream) keepAlive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subscribed = true
	s.setDeadlineLocked()
}

// setDeadlineLocked sets the read deadline for the wait for the next
// message: idle from now if the connection is idle, none otherwise (and
// leaves stop's deadline alone). s.mu is held.
func (s *frameStream) setDeadlineLocked() {
	switch {
	case s.stopping || s.idle <= 0:
	case s.pending == 0 && !s.subscribed:
		s.nc.SetReadDeadline(time.Now().Add(s.idle))
	default:
		s.nc.SetReadDeadline(time.Time{})
	}
}

// beginFrame waits for the first byte of a message (errIdle when the
// deadline set for an idle connection passes first), then gives the rest
// of the message idle to arrive.
func (s *frameStream) beginFrame() error {
	if _, err := s.in.Peek(1); err != nil {
		if s.idle > 0 && errors.Is(err, os.ErrDeadlineExceeded) {
			return errIdle
		}
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopping && s.idle > 0 {
		s.nc.SetReadDeadline(time.Now().Add(s.idle))
	}
	return nil
}

// frameError is a bad frame: answered with Err, then the stream goes on
// unless fatal.
type frameError struct {
	err   *jsonrpc2.Error
	fatal bool
}

func (e *frameError) Error() string { return e.err.Error() }

// stop makes the stream end (io.EOF) once the calls already read are
// answered, interrupting a read in progress.
func (s *frameStream) stop() {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	s.nc.SetReadDeadline(time.Now())
}

// drained waits until every call read was answered (or cannot be) when
// stopping, and reports whether the stream is stopping.
func (s *frameStream) drained() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopping {
		return false
	}
	for s.pending > 0 && !s.broken {
		s.cond.Wait()
	}
	return true
}

// ReadFrame returns the body of the next well-formed message (valid until
// the next call); bad frames are answered and skipped.
func (s *frameStream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	if cap(s.rbuf) > 1<<20 {
		s.rbuf = nil // do not keep a large frame's buffer for the connection's life
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		if s.drained() {
			return nil, 0, io.EOF
		}
		s.mu.Lock()
		s.setDeadlineLocked()
		s.mu.Unlock()
		body, n, err := s.readFrame()
		if err != nil {
			if s.drained() {
				return nil, 0, io.EOF
			}
			if errors.Is(err, errIdle) {
				s.log.Info("closing an idle client connection", "idle", s.idle)
				s.reject(ctx, jsonrpc2.Errorf(codeIdle, "the daemon closes connections that have no call in flight and no subscription for %v (daemon.conn_idle_timeout); connect again", s.idle))
				return nil, 0, io.EOF
			}
			if s.idle > 0 && errors.Is(err, os.ErrDeadlineExceeded) {
				err = &frameError{jsonrpc2.Errorf(jsonrpc2.ParseError, "message not received whole within %v", s.idle), true}
			}
			var fe *frameError
			if !errors.As(err, &fe) {
				return nil, 0, err
			}
			s.log.Info("bad message from client", "err", fe.err.Message)
			s.reject(ctx, fe.err)
			if fe.fatal {
				return nil, 0, err
			}
			continue
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			var we *jsonrpc2.Error
			if !errors.As(err, &we) {
				we = jsonrpc2.NewError(jsonrpc2.ParseError, err.Error())
			}
			if bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
				we = jsonrpc2.NewError(jsonrpc2.InvalidRequest, "batches are not supported: send one message per frame")
			}
			s.log.Info("bad message from client", "err", we.Message)
			s.reject(ctx, we)
			continue
		}
		if _, ok := msg.(*jsonrpc2.Call); ok {
			s.mu.Lock()
			s.pending++
			s.setDeadlineLocked() // a call in flight: not idle
			s.mu.Unlock()
		}
		return body, n, nil
	}
}

// readFrame reads one header block and its body.
func (s *frameStream) readFrame() ([]byte, int64, error) {
	if err := s.beginFrame(); err != nil {
		return nil, 0, err
	}
	length, seen, header := -1, false, 0
	for {
		line, err := s.in.ReadSlice('\n')
		header += len(line)
		if err == bufio.ErrBufferFull || header > maxHeader {
			return nil, 0, &frameError{jsonrpc2.Errorf(jsonrpc2.ParseError, "message header longer than %d bytes", maxHeader), true}
		}
		if err != nil {
			if err == io.EOF && header > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, 0, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if !seen {
				return nil, 0, &frameError{jsonrpc2.NewError(jsonrpc2.ParseError, "message header without Content-Length"), true}
			}
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return nil, 0, &frameError{jsonrpc2.Errorf(jsonrpc2.ParseError, "malformed message header line %q", line), true}
		}
		if bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
			if err != nil || n <= 0 {
				return nil, 0, &frameError{jsonrpc2.Errorf(jsonrpc2.ParseError, "bad Content-Length %q", value), true}
			}
			length, seen = int(min(n, 1<<62)), true
		}
	}
	if length > s.max {
		if _, err := io.CopyN(io.Discard, s.in, int64(length)); err != nil {
			return nil, 0, err
		}
		return nil, 0, &frameError{jsonrpc2.Errorf(jsonrpc2.InvalidRequest,
			"message of %d bytes is larger than the daemon's limit of %d bytes", length, s.max), false}
	}
	if cap(s.rbuf) < length {
		s.rbuf = make([]byte, length)
	}
	body := s.rbuf[:length]
	if _, err := io.ReadFull(s.in, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, 0, err
	}
	return body, int64(header + length), nil
}

// reject answers a bad frame with err (the id is unknown: null).
func (s *frameStream) reject(ctx context.Context, err *jsonrpc2.Error) {
	s.Write(ctx, jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, err))
}

// Read implements jsonrpc2.Stream (jsonrpc2 uses ReadFrame).
func (s *frameStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	body, n, err := s.ReadFrame(ctx)
	if err != nil {
		return nil, 0, err
	}
	msg, err := jsonrpc2.DecodeMessage(body)
	return msg, n, err
}

var responsePrefix = []byte(`{"jsonrpc":"2.0","id":`)

// Write implements jsonrpc2.Stream: one write per message.
func (s *frameStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.wbuf = jsonrpc2.AppendMessage(s.wbuf[:0], msg)
	body := s.wbuf
	// A response with an id answers a call read by ReadFrame.
	answer := bytes.HasPrefix(body, responsePrefix) && !bytes.HasPrefix(body[len(responsePrefix):], []byte("null"))
	n, err := s.writeLocked(body)
	if answer || err != nil {
		s.mu.Lock()
		if answer {
			s.pending--
			s.setDeadlineLocked() // idle from now on, if that was the last call
		}
		if err != nil {
			s.broken = true
		}
		s.cond.Broadcast()
		s.mu.Unlock()
	}
	return n, err
}

// WriteFrame implements jsonrpc2's raw frame writing (for batch replies,
// which this stream never reads).
func (s *frameStream) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.writeLocked(data)
}

func (s *frameStream) writeLocked(body []byte) (int64, error) {
	header := make([]byte, 0, 32)
	header = append(header, "Content-Length: "...)
	header = strconv.AppendInt(header, int64(len(body)), 10)
	header = append(header, "\r\n\r\n"...)
	s.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	bufs := net.Buffers{header, body} // one writev
	n, err := bufs.WriteTo(s.nc)
	if cap(s.wbuf) > 1<<20 {
		s.wbuf = nil // do not keep a large message's buffer for the connection's life
	}
	return n, err
}

func (s *frameStream) Close() error { return s.nc.Close() }
