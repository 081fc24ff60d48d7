package lsp

import (
	"bytes"
	"github.com/lunad/lunad"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// follow reacts to workspace events until the session ends: after a burst
// (Debounce), open documents whose artifact changed get the new content
// (when their buffer has no unsaved changes) and every open document gets
// fresh diagnostics — the stale ones appear when code they mention changes
// — and, if their code lenses went stale, the client is asked to refresh
// them.
func (s *Server) follow(events <-chan lunad.Event) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	changed := map[string]bool{}
	all := false
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			if len(ev.IDs) == 0 {
				all = true
			}
			for _, id := range ev.IDs {
				changed[id] = true
			}
			timer.Reset(s.opts.Debounce)
		case <-timer.C:
			s.refresh(changed, all)
			changed, all = map[string]bool{}, false
		case <-s.ctx.Done():
			timer.Stop()
			return
		}
	}
}

// refresh updates the open documents after changes to the artifacts in
// changed (or to anything, with all).
func (s *Server) refresh(changed map[string]bool, all bool) {
	ws := s.workspace()
	if ws == nil {
		return
	}
	s.mu.Lock()
	docs := make([]*document, 0, len(s.docs))
	for _, d := range s.docs {
		docs = append(docs, d)
	}
	s.mu.Unlock()
	for _, d := range docs {
		if id, _ := s.docState(d.uri); id != "" && (all || changed[id]) {
			s.reload(d, id, ws)
		}
		s.publish(s.ctx, d)
	}
	s.refreshLenses()
}

// reload brings an open buffer to the artifact's new content with
// workspace/applyEdit, unless the user has unsaved changes in it.
func (s *Server) reload(d *document, id string, ws lunad.Workspace) {
	content, _, err := ws.Read(s.ctx, id, "")
	if err != nil {
		return
	}
	s.mu.Lock()
	text, committed := d.text, d.committed
	s.mu.Unlock()
	if bytes.Equal(text, content) {
		s.mu.Lock()
		d.committed = content
		s.mu.Unlock()
		return
	}
	if committed != nil && !bytes.Equal(text, committed) {
		s.notify(protocol.MessageTypeWarning, d.uri.FsPath()+" changed in lunad while you have unsaved changes in it; save or reload to reconcile")
		return
	}
	m := newMapper(text)
	label := "lunad: update to the artifact's current version"
	res, err := s.peer().ApplyEdit(s.ctx, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: protocol.WorkspaceEdit{
		Changes: map[uri.URI][]protocol.TextEdit{d.uri: {{Range: m.rangeOf(0, len(text)), NewText: string(content)}}},
	}})
	if err != nil || res == nil || !res.Applied {
		s.log.Debug("applyEdit", "uri", d.uri, "err", err)
		return
	}
	s.mu.Lock()
	d.text, d.committed = content, content
	s.mu.Unlock()
}

func (s *Server) notify(typ protocol.MessageType, msg string) {
	if err := s.peer().ShowMessage(s.ctx, &protocol.ShowMessageParams{Type: typ, Message: msg}); err != nil {
		s.log.Debug("showMessage", "err", err)
	}
}
