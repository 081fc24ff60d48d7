package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/lunad/lunad"
)

// ExecuteCommand runs a luna.* command. The first argument of a command
// that acts on one artifact is its ID, path or document URI. Results are
// the Workspace's, as JSON. Open buffers of changed artifacts are updated
// by the event that the write causes (see follow).
func (s *Server) ExecuteCommand(ctx context.Context, params *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	ws, err := s.ready()
	if err != nil {
		return nil, err
	}
	args := make([]json.RawMessage, len(params.Arguments))
	for i, a := range params.Arguments {
		args[i] = json.RawMessage(a)
	}
	res, err := s.run(ctx, ws, params.Command, args)
	if err != nil {
		return nil, rpcError(err)
	}
	// A write committed whose file could not be updated: done, with a warning.
	switch r := res.(type) {
	case lunad.Result:
		s.warnResult(r)
	case lunad.EditResult:
		s.warnResult(r.Result)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, rpcError(err)
	}
	return protocol.LSPAny(raw), nil
}

// run dispatches a command; argument errors wrap lunad.ErrInvalid.
func (s *Server) run(ctx context.Context, ws lunad.Workspace, cmd string, args []json.RawMessage) (any, error) {
	a := argList{s: s, ctx: ctx, ws: ws, cmd: cmd, args: args}
	ch := lunad.Change{Agent: s.opts.Agent}
	switch cmd {
	case "luna.undo":
		id := a.artifact(0)
		if a.err != nil {
			return nil, a.err
		}
		return ws.Undo(ctx, lunad.RefRequest{Ref: id, Change: ch})
	case "luna.redo":
		id := a.artifact(0)
		if a.err != nil {
			return nil, a.err
		}
		return ws.Redo(ctx, lunad.RefRequest{Ref: id, Change: ch})
	case "luna.restore":
		id, n := a.artifact(0), a.int(1)
		if a.err != nil {
			return nil, a.err
		}
		return ws.Restore(ctx, lunad.RestoreRequest{Ref: id, Version: n, Change: ch})
	case "luna.history":
		id := a.artifact(0)
		if a.err != nil {
			return nil, a.err
		}
		return ws.History(ctx, id)
	case "luna.diff":
		id, from, to := a.artifact(0), a.optInt(1), a.optInt(2)
		if a.err != nil {
			return nil, a.err
		}
		return ws.Diff(ctx, id, from, to)
	case "luna.ack":
		id, sym := a.artifact(0), a.optString(1)
		if a.err != nil {
			return nil, a.err
		}
		return ws.Ack(ctx, lunad.AckRequest{Ref: id, Symbol: sym, Change: ch})
	case "luna.link":
		src, dst, kind := a.artifact(0), a.artifact(1), a.optString(2)
		if a.err != nil {
			return nil, a.err
		}
		return ws.Link(ctx, lunad.LinkRequest{Src: src, Dst: dst, Kind: kind, Change: ch})
	case "luna.createArtifact":
		var spec struct {
			Title, Type, Path, Content string
		}
		a.object(0, &spec)
		if a.err != nil {
			return nil, a.err
		}
		return ws.Create(ctx, lunad.CreateSpec{Title: spec.Title, Type: spec.Type, Path: spec.Path, Content: []byte(spec.Content), Change: ch})
	case "luna.edit":
		id, blocks := a.artifact(0), a.string(1)
		if a.err != nil {
			return nil, a.err
		}
		return ws.Edit(ctx, lunad.EditRequest{ID: id, BlocksText: blocks, Change: ch})
	case "luna.branch":
		name, from := a.string(0), a.optString(1)
		if a.err != nil {
			return nil, a.err
		}
		return ws.Branch(ctx, lunad.BranchRequest{Name: name, From: from})
	case "luna.switch":
		name := a.string(0)
		if a.err != nil {
			return nil, a.err
		}
		return ws.Switch(ctx, name)
	case "luna.references":
		id, sym := a.artifact(0), a.optString(1)
		if a.err != nil {
			return nil, a.err
		}
		rep, err := ws.Refs(ctx, id)
		if err != nil || sym == "" {
			return rep, err
		}
		var in []lunad.Reference
		for _, r := range rep.Incoming {
			if r.To != nil && r.To.Symbol == sym {
				in = append(in, r)
			}
		}
		rep.Incoming = in
		return rep, nil
	case "luna.runs":
		return runsCommand(ctx, ws, &a)
	case "luna.runWorkflow":
		return s.runWorkflowCommand(ctx, ws, &a)
	case "luna.ask":
		return s.askCommand(ctx, ws, &a)
	case "luna.goal":
		return s.goalCommand(ctx, ws, &a)
	case "luna.acceptRun":
		return settleCommand(ctx, ws, &a, true)
	case "luna.discardRun":
		return settleCommand(ctx, ws, &a, false)
	}
	return nil, fmt.Errorf("%w: unknown command %q (known: %s)", lunad.ErrInvalid, cmd, strings.Join(commands, ", "))
}

// argList decodes command arguments, keeping the first error.
type argList struct {
	s    *Server
	ctx  context.Context
	ws   lunad.Workspace
	cmd  string
	args []json.RawMessage
	err  error
}

func (a *argList) fail(i int, want string) {
	if a.err == nil {
		a.err = fmt.Errorf("%w: %s: argument %d must be %s", lunad.ErrInvalid, a.cmd, i+1, want)
	}
}

func (a *argList) string(i int) string {
	var v string
	if i >= len(a.args) || json.Unmarshal(a.args[i], &v) != nil || v == "" {
		a.fail(i, "a non-empty string")
	}
	return v
}

func (a *argList) optString(i int) string {
	if i >= len(a.args) || string(a.args[i]) == "null" {
		return ""
	}
	return a.string(i)
}

func (a *argList) int(i int) int {
	var v int
	if i < len(a.args) && json.Unmarshal(a.args[i], &v) == nil {
		return v
	}
	var str string
	if i < len(a.args) && json.Unmarshal(a.args[i], &str) == nil {
		if n, err := strconv.Atoi(str); err == nil {
			return n
		}
	}
	a.fail(i, "a number")
	return 0
}

func (a *argList) optInt(i int) int {
	if i >= len(a.args) || string(a.args[i]) == "null" {
		return 0
	}
	return a.int(i)
}

func (a *argList) object(i int, v any) {
	if i >= len(a.args) || json.Unmarshal(a.args[i], v) != nil {
		a.fail(i, "an object")
	}
}

// artifact reads an artifact argument: an ID, a workspace path, or a
// document URI.
func (a *argList) artifact(i int) string {
	v := a.string(i)
	if a.err != nil {
		return v
	}
	return a.ref(v)
}

// ref is an artifact named by an ID, a workspace path or a document URI,
// as an ID or path.
func (a *argList) ref(v string) string {
	if !strings.Contains(v, "://") {
		return v
	}
	rel, ok := a.s.relPath(uri.URI(v))
	if !ok {
		a.err = fmt.Errorf("%w: %s: %s is not a file of the workspace %s", lunad.ErrInvalid, a.cmd, v, a.s.root)
		return v
	}
	return rel
}

func (s *Server) warnResult(r lunad.Result) {
	if r.Warning != "" {
		s.notify(protocol.MessageTypeWarning, "lunad: "+r.Warning)
	}
}
