package rpc

import (
	"context"
	"encoding/json"
	"sync"
)

// The reference index's build and its progress: the call "lunad/index"
// (lunad.Referencer.IndexReferences) answers once the index is up to date;
// while the daemon builds it, the call's figures come before its answer as
// "lunad/indexing" notifications naming the call's progress token. The
// daemon writes them from the call's handler, so they reach the client in
// order and all before the answer; the client calls the caller's progress
// from the connection's reader, one at a time.
const (
	mIndex    = "lunad/index"
	mIndexing = "lunad/indexing" // notification, daemon to client
)

type (
	// indexParams: Progress is the client's token for the call's figures,
	// 0 when it wants none.
	indexParams struct {
		Progress int64 `json:"progress,omitempty"`
	}
	indexResult    struct{}
	indexingParams struct {
		Progress int64 `json:"progress"`
		Done     int   `json:"done"`
		Total    int   `json:"total"`
	}
)

// index serves lunad/index: the figures of the build go to the client as
// lunad/indexing notifications, written before the answer.
func (c *serverConn) index(ctx context.Context, params []byte) (any, error) {
	var p indexParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	var progress func(done, total int)
	if p.Progress != 0 {
		progress = func(done, total int) {
			if err := c.conn.Notify(ctx, mIndexing, indexingParams{Progress: p.Progress, Done: done, Total: total}); err != nil {
				c.log.Debug("index progress not sent", "err", err) // the call's answer fails the same way
			}
		}
	}
	return indexResult{}, c.srv.svc.IndexReferences(ctx, progress)
}

// progressTokens routes a client's lunad/indexing notifications to the
// IndexReferences calls waiting for them.
type progressTokens struct {
	mu    sync.Mutex
	next  int64
	calls map[int64]func(done, total int)
}

// add registers progress and returns its token and the function that
// unregisters it.
func (t *progressTokens) add(progress func(done, total int)) (token int64, remove func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.calls == nil {
		t.calls = map[int64]func(done, total int){}
	}
	t.next++
	token = t.next
	t.calls[token] = progress
	return token, func() {
		t.mu.Lock()
		delete(t.calls, token)
		t.mu.Unlock()
	}
}

// tell hands a notification's figure to its call; one for a call that has
// returned is dropped.
func (t *progressTokens) tell(raw []byte) {
	var p indexingParams
	if json.Unmarshal(raw, &p) != nil {
		return
	}
	t.mu.Lock()
	progress := t.calls[p.Progress]
	t.mu.Unlock()
	if progress != nil {
		progress(p.Done, p.Total)
	}
}

// IndexReferences returns once the daemon's reference index is up to
// date, telling progress the figures of a build under way (see
// lunad.Referencer). progress is called from the connection's reader, one
// call at a time, and never after IndexReferences returns.
func (c *Client) IndexReferences(ctx context.Context, progress func(done, total int)) error {
	var p indexParams
	if progress != nil {
		token, remove := c.progress.add(progress)
		defer remove()
		p.Progress = token
	}
	_, err := call[indexResult](ctx, c, mIndex, p)
	return err
}
