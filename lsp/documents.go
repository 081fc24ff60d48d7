package lsp

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/lunad/lunad"
)

// document is an open editor buffer.
type document struct {
	uri       uri.URI
	id        string // the artifact's ID; "" if the file is not an artifact
	text      []byte // the buffer as the client has it
	committed []byte // the artifact's content the server last showed for it
	version   int32
	lenses    string // what the code lenses the client was given show (lensKey)
}

// DidOpen starts tracking a buffer and publishes its diagnostics.
func (s *Server) DidOpen(ctx context.Context, params *protocol.DidOpenTextDocumentParams) error {
	ws, err := s.ready()
	if err != nil {
		return err
	}
	// Requests run concurrently (the protocol layer releases each one):
	// register the buffer first, so a didChange right behind finds it.
	d := &document{uri: params.TextDocument.URI, text: []byte(params.TextDocument.Text), version: params.TextDocument.Version}
	s.mu.Lock()
	s.docs[d.uri] = d
	s.mu.Unlock()
	if rel, ok := s.relPath(d.uri); ok {
		if a, err := ws.Artifact(ctx, rel); err == nil {
			var committed []byte
			if content, _, err := ws.Read(ctx, a.ID, ""); err == nil {
				committed = content
			}
			s.mu.Lock()
			d.id, d.committed = a.ID, committed
			s.mu.Unlock()
		}
	}
	s.publish(ctx, d)
	return nil
}

// DidChange applies incremental (or whole-document) changes to a buffer.
func (s *Server) DidChange(ctx context.Context, params *protocol.DidChangeTextDocumentParams) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[params.TextDocument.URI]
	if d == nil {
		return nil
	}
	for _, ch := range params.ContentChanges {
		switch c := ch.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			d.text = []byte(c.Text)
		case *protocol.TextDocumentContentChangePartial:
			m := newMapper(d.text)
			start, end := m.offset(c.Range.Start), m.offset(c.Range.End)
			if end < start {
				start, end = end, start
			}
			text := make([]byte, 0, len(d.text)-(end-start)+len(c.Text))
			text = append(append(append(text, d.text[:start]...), c.Text...), d.text[end:]...)
			d.text = text
		}
	}
	d.version = params.TextDocument.Version
	return nil
}

// DidSave refreshes diagnostics (the daemon records the saved file).
func (s *Server) DidSave(ctx context.Context, params *protocol.DidSaveTextDocumentParams) error {
	if d := s.doc(params.TextDocument.URI); d != nil {
		s.publish(ctx, d)
	}
	return nil
}

// DidClose stops tracking a buffer and clears its diagnostics.
func (s *Server) DidClose(ctx context.Context, params *protocol.DidCloseTextDocumentParams) error {
	s.mu.Lock()
	delete(s.docs, params.TextDocument.URI)
	s.mu.Unlock()
	return s.peer().PublishDiagnostics(ctx, &protocol.PublishDiagnosticsParams{URI: params.TextDocument.URI, Diagnostics: []protocol.Diagnostic{}})
}

// docState reads an open buffer's artifact ID and text under the lock
// (requests run concurrently with didChange).
func (s *Server) docState(u uri.URI) (id string, text []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.docs[u]; d != nil {
		return d.id, d.text
	}
	return "", nil
}

func (s *Server) doc(u uri.URI) *document {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[u]
}

// relPath is a file URI's path relative to the workspace root.
func (s *Server) relPath(u uri.URI) (string, bool) {
	if u.Scheme() != "file" {
		return "", false
	}
	rel, err := filepath.Rel(s.root, u.FsPath())
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// uriOf is the file URI of a workspace path.
func (s *Server) uriOf(path string) uri.URI {
	return uri.File(filepath.Join(s.root, filepath.FromSlash(path)))
}

// located is a position request resolved to an artifact and a byte offset
// in its committed content.
type located struct {
	ws      lunad.Workspace
	id      string
	offset  int
	content []byte
}

// locate maps a buffer position to an offset of the artifact's committed
// content: the same offset when the buffer equals it, else the same line
// and column when that line is unchanged. ok is false when the position
// cannot be carried over (the line was edited and not saved).
func (s *Server) locate(ctx context.Context, u uri.URI, pos protocol.Position) (located, bool, error) {
	ws, err := s.ready()
	if err != nil {
		return located{}, false, err
	}
	id, text := s.docState(u)
	if id == "" {
		rel, ok := s.relPath(u)
		if !ok {
			return located{}, false, nil
		}
		a, err := ws.Artifact(ctx, rel)
		if errors.Is(err, lunad.ErrNotFound) {
			return located{}, false, nil
		}
		if err != nil {
			return located{}, false, err
		}
		id = a.ID
	}
	content, _, err := ws.Read(ctx, id, "")
	if err != nil {
		return located{}, false, err
	}
	if text == nil || string(text) == string(content) {
		return located{ws, id, newMapper(content).offset(pos), content}, true, nil
	}
	bm, cm := newMapper(text), newMapper(content)
	line := int(pos.Line)
	if lineText(text, bm, line) != lineText(content, cm, line) {
		return located{}, false, nil
	}
	return located{ws, id, cm.offset(pos), content}, true, nil
}

func lineText(text []byte, m mapper, line int) string {
	start := m.lines.LineStart(line)
	end := m.lines.LineStart(line + 1)
	if line+1 >= m.lines.Count() {
		end = len(text)
	}
	return string(text[start:end])
}
