package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"

	"go.lsp.dev/jsonrpc2"

	"github.com/lunad/lunad"
)

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
	mRemove:  op[writeParams](lunad.Workspace.Remove),
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
	mArchive: true, mRemove: true, mLink: true, mAck: true, mBranch: true, mSwitch: true,
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

func (c *serverConn) call(ctx context.Context, method string, params []byte) (any, error) {
	switch method {
	case mHello:
		var p noParams
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		st := c.srv.status()
		if c.srv.opts.Notice != nil {
			st.Notice = c.srv.opts.Notice()
		}
		return st, nil
	case mSubscribe:
		var p noParams
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		return c.subscribe()
	case mIndex:
		return c.index(ctx, params)
	case mDaemon, mStop:
		var p noParams
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		if method == mStop {
			c.srv.requestStop()
			return struct{}{}, nil
		}
		return c.srv.daemonStatus(), nil
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
