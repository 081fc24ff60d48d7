package rpc

import (
	"context"
	"encoding/json"
	"errors"

	"go.lsp.dev/jsonrpc2"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/editor"
)

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

// remoteError is an error returned by the daemon's Service: its message,
// and the sentinels and editor error it wrapped.
type remoteError struct {
	msg     string
	wrapped []error
}

func (e *remoteError) Error() string   { return e.msg }
func (e *remoteError) Unwrap() []error { return e.wrapped }

// remote rebuilds the error a daemon sent.
func remote(we *jsonrpc2.Error) error {
	var data errorData
	if len(we.Data) == 0 || json.Unmarshal(we.Data, &data) != nil {
		return we // a protocol error: method not found, invalid params, ...
	}
	e := &remoteError{msg: we.Message}
	for _, name := range data.Errors {
		for _, s := range sentinels {
			if s.name == name {
				e.wrapped = append(e.wrapped, s.err)
			}
		}
	}
	if data.NotFound != nil {
		e.wrapped = append(e.wrapped, data.NotFound)
	}
	if data.RunNotFound != nil {
		e.wrapped = append(e.wrapped, data.RunNotFound)
	}
	if data.KeyReused != nil {
		e.wrapped = append(e.wrapped, data.KeyReused)
	}
	if data.LinkExists != nil {
		e.wrapped = append(e.wrapped, data.LinkExists)
	}
	if data.BranchMoved != nil {
		e.wrapped = append(e.wrapped, data.BranchMoved)
	}
	if ed := data.Editor; ed != nil {
		if typed := editorFrom(ed); typed != nil {
			e.wrapped = append(e.wrapped, typed)
		}
	}
	return e
}

func editorFrom(ed *editorError) error {
	var sentinel error
	for _, s := range sentinels {
		if s.name == ed.Err {
			sentinel = s.err
		}
	}
	var v error
	switch ed.Type {
	case "no_match":
		v = &editor.NoMatchError{}
	case "ambiguous":
		v = &editor.AmbiguousError{}
	case "already_applied":
		v = &editor.AlreadyAppliedError{}
	case "parse":
		v = &editor.ParseError{Err: sentinel}
	case "text":
		v = &editor.TextError{Err: sentinel}
	default:
		return nil
	}
	if json.Unmarshal(ed.Value, v) != nil {
		return nil
	}
	return v
}
