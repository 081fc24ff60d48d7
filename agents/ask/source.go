package ask

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/tools"
)

// readsFile is the stage file holding what the stage read of the
// workspace.
const readsFile = "workspace.json"

// source is the workspace as one stage sees it: every read is recorded
// (reads) and a repeated read is served from the recording, so the stage
// sees one state of the workspace throughout; in a live replay every read
// is served from the recording of the original stage — the workspace as
// it was then, whatever it is now — as the model calls are.
type source struct {
	ws     Source
	replay bool

	mu    sync.Mutex
	reads map[string]json.RawMessage // by call: "Read\x00ref\x00at"
}

// read is one recorded read: its result, or its error and the sentinel
// it wrapped.
type read struct {
	Value json.RawMessage `json:"value,omitempty"`
	Error string          `json:"error,omitempty"`
	Kind  string          `json:"kind,omitempty"` // not_found, invalid
}

func newSource(ws Source, req lunad.StageRequest) (*source, error) {
	s := &source{ws: ws, replay: req.Replay, reads: map[string]json.RawMessage{}}
	if req.Replay {
		text, ok := req.Recorded[readsFile]
		if !ok {
			return nil, fmt.Errorf("%w: the stage's original attempt recorded no %s to replay its reads of the workspace from", lunad.ErrInvalid, readsFile)
		}
		if err := json.Unmarshal([]byte(text), &s.reads); err != nil {
			return nil, fmt.Errorf("%w: the stage's recorded %s does not decode: %v", lunad.ErrInvalid, readsFile, err)
		}
	}
	return s, nil
}

// file is the recording, as a stage file (keys sorted by encoding/json).
func (s *source) file() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay {
		return ""
	}
	b, err := json.MarshalIndent(s.reads, "", " ")
	if err != nil {
		return ""
	}
	return string(b) + "\n"
}

func recorded[T any](s *source, key []string, f func() (T, error)) (T, error) {
	k := strings.Join(key, "\x00")
	var zero T
	s.mu.Lock()
	raw, ok := s.reads[k]
	s.mu.Unlock()
	if !ok && s.replay {
		return zero, fmt.Errorf("%w: replay: the original stage did not read %s", lunad.ErrNotFound, strings.Join(key, " "))
	}
	if ok {
		var r read
		if err := json.Unmarshal(raw, &r); err != nil {
			return zero, err
		}
		if r.Error != "" {
			switch r.Kind {
			case "not_found":
				return zero, fmt.Errorf("%w (%s)", lunad.ErrNotFound, r.Error)
			case "invalid":
				return zero, fmt.Errorf("%w (%s)", lunad.ErrInvalid, r.Error)
			}
			return zero, errors.New(r.Error)
		}
		var v T
		err := json.Unmarshal(r.Value, &v)
		return v, err
	}
	v, err := f()
	r := read{}
	if err != nil {
		r.Error = err.Error()
		switch {
		case errors.Is(err, lunad.ErrNotFound):
			r.Kind = "not_found"
		case errors.Is(err, lunad.ErrInvalid):
			r.Kind = "invalid"
		}
	} else if r.Value, err = json.Marshal(v); err != nil {
		return v, err
	}
	raw, _ = json.Marshal(r)
	s.mu.Lock()
	s.reads[k] = raw
	s.mu.Unlock()
	return v, err
}

func (s *source) List(ctx context.Context) ([]lunad.Artifact, error) {
	return recorded(s, []string{"List"}, func() ([]lunad.Artifact, error) { return s.ws.List(ctx) })
}

func (s *source) Artifact(ctx context.Context, ref string) (lunad.Artifact, error) {
	return recorded(s, []string{"Artifact", ref}, func() (lunad.Artifact, error) { return s.ws.Artifact(ctx, ref) })
}

type readResult struct {
	Content  string         `json:"content"`
	Artifact lunad.Artifact `json:"artifact"`
}

func (s *source) Read(ctx context.Context, ref, at string) ([]byte, lunad.Artifact, error) {
	r, err := recorded(s, []string{"Read", ref, at}, func() (readResult, error) {
		b, a, err := s.ws.Read(ctx, ref, at)
		return readResult{string(b), a}, err
	})
	return []byte(r.Content), r.Artifact, err
}

func (s *source) Refs(ctx context.Context, ref string) (lunad.RefReport, error) {
	return recorded(s, []string{"Refs", ref}, func() (lunad.RefReport, error) { return s.ws.Refs(ctx, ref) })
}

func (s *source) Outgoing(ctx context.Context, ref string) ([]lunad.Reference, error) {
	return recorded(s, []string{"Outgoing", ref}, func() ([]lunad.Reference, error) { return s.ws.Outgoing(ctx, ref) })
}

type symbolsResult struct {
	Artifact lunad.Artifact `json:"artifact"`
	Symbols  []lunad.Symbol `json:"symbols"`
}

func (s *source) Symbols(ctx context.Context, ref string) (lunad.Artifact, []lunad.Symbol, error) {
	r, err := recorded(s, []string{"Symbols", ref}, func() (symbolsResult, error) {
		a, syms, err := s.ws.Symbols(ctx, ref)
		return symbolsResult{a, syms}, err
	})
	return r.Artifact, r.Symbols, err
}

func (s *source) Stale(ctx context.Context) ([]lunad.Reference, error) {
	return recorded(s, []string{"Stale"}, func() ([]lunad.Reference, error) { return s.ws.Stale(ctx) })
}

// FileAt is tools.FileAt over the workspace, recorded: whether a file
// that is not an artifact is at path (create_artifact refuses it). A
// stage recorded before creations were checked has no such read: its
// replay answers no file, since the create it recorded was made.
func (s *source) FileAt(ctx context.Context, path string) (bool, error) {
	key := []string{"FileAt", path}
	if s.replay && !s.recordedRead(key) {
		return false, nil
	}
	return recorded(s, key, func() (bool, error) { return tools.FileAt(ctx, s.ws, path) })
}

// recordedRead reports whether the recording holds the read.
func (s *source) recordedRead(key []string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.reads[strings.Join(key, "\x00")]
	return ok
}
