package scripted

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
)

// Name is the provider's name.
const Name = llm.ProviderScripted

// Entry is one canned answer and the conditions for serving it.
type Entry struct {
	When       string          `json:"when,omitempty"`
	WhenRole   llm.Role        `json:"when_role,omitempty"`
	WhenSystem string          `json:"when_system,omitempty"`
	Repeat     bool            `json:"repeat,omitempty"`
	Content    string          `json:"content,omitempty"`
	JSON       json.RawMessage `json:"json,omitempty"`
	ToolCalls  []llm.ToolCall  `json:"tool_calls,omitempty"`
	Usage      llm.Usage       `json:"usage"`
	Model      string          `json:"model,omitempty"`
	StopReason llm.StopReason  `json:"stop_reason,omitempty"`
	Error      *Failure        `json:"error,omitempty"`
}

// Failure makes an entry fail the call.
type Failure struct {
	Kind    llm.ErrorKind `json:"kind"` // transient, permanent or auth
	Status  int           `json:"status,omitempty"`
	Message string        `json:"message"`
}

// Parse reads a script: a JSON array of entries or JSON lines. Unknown
// fields are refused. Errors wrap lunad.ErrInvalid and name the entry
// (line or index).
func Parse(data []byte) ([]Entry, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var raw []json.RawMessage
		if err := json.Unmarshal(trimmed, &raw); err != nil {
			return nil, fmt.Errorf("%w: script: not a JSON array of entries: %v", lunad.ErrInvalid, err)
		}
		out := make([]Entry, 0, len(raw))
		for i, r := range raw {
			e, err := parseEntry(r)
			if err != nil {
				return nil, fmt.Errorf("%w: script entry [%d]: %v", lunad.ErrInvalid, i, err)
			}
			out = append(out, e)
		}
		return out, nil
	}
	var out []Entry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		e, err := parseEntry(line)
		if err != nil {
			return nil, fmt.Errorf("%w: script line %d: %v", lunad.ErrInvalid, n, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: script: %v", lunad.ErrInvalid, err)
	}
	return out, nil
}

func parseEntry(b []byte) (Entry, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	var e Entry
	if err := d.Decode(&e); err != nil {
		return Entry{}, err
	}
	if d.More() {
		return Entry{}, errors.New("more than one JSON value (one entry per line)")
	}
	if len(e.JSON) > 0 {
		if e.Content != "" {
			return Entry{}, errors.New(`"content" and "json" are exclusive`)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, e.JSON); err != nil {
			return Entry{}, fmt.Errorf("json: %v", err)
		}
		e.Content, e.JSON = buf.String(), nil
	}
	for i, c := range e.ToolCalls {
		if c.ID == "" || c.Name == "" {
			return Entry{}, fmt.Errorf("tool_calls[%d]: id and name are required", i)
		}
		var buf bytes.Buffer
		if json.Compact(&buf, c.Arguments) == nil {
			e.ToolCalls[i].Arguments = buf.Bytes()
		}
	}
	switch e.StopReason {
	case "":
		e.StopReason = llm.StopEnd
		if len(e.ToolCalls) > 0 {
			e.StopReason = llm.StopToolCalls
		}
	case llm.StopEnd, llm.StopToolCalls, llm.StopMaxTokens, llm.StopOther:
	default:
		return Entry{}, fmt.Errorf("stop_reason %q: use end, tool_calls, max_tokens or other", e.StopReason)
	}
	switch e.WhenRole {
	case "", llm.RoleUser, llm.RoleAssistant, llm.RoleTool:
	default:
		return Entry{}, fmt.Errorf("when_role %q: use user, assistant or tool", e.WhenRole)
	}
	if f := e.Error; f != nil {
		switch f.Kind {
		case llm.Transient, llm.Permanent, llm.Auth:
		default:
			return Entry{}, fmt.Errorf("error.kind %q: use transient, permanent or auth", f.Kind)
		}
	}
	if e.Usage.InputTokens < 0 || e.Usage.OutputTokens < 0 {
		return Entry{}, errors.New("usage: token counts must not be negative")
	}
	if e.Model == "" {
		e.Model = Name
	}
	return e, nil
}

// Provider serves a script's entries.
type Provider struct {
	source string // the script's name in errors
	mu     sync.Mutex
	script []Entry
	used   []bool
	calls  int
}

// New reads cfg.Script (provider "scripted").
func New(cfg llm.Config) (*Provider, error) {
	if cfg.Provider == "" {
		cfg.Provider = Name
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	data, err := readScript(cfg.Script, scriptEntries*cfg.ResponseLimit())
	if err != nil {
		return nil, err
	}
	entries, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("[llm] script %s: %w", cfg.Script, err)
	}
	return FromEntries(cfg.Script, entries), nil
}

// scriptEntries is how many answers of [llm] max_response a script may
// hold: it is read whole, and may be a file of the workspace.
const scriptEntries = 16

// readScript reads the file at path, failing when it is larger than max
// bytes without reading more.
func readScript(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("[llm] script: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("[llm] script: %w", err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%w: [llm] script %s is larger than %s, %d times [llm] max_response: split it, or raise [llm] max_response",
			lunad.ErrInvalid, path, lunad.ByteSize(max), scriptEntries)
	}
	return data, nil
}

// FromEntries serves entries; source names them in errors.
func FromEntries(source string, entries []Entry) *Provider {
	return &Provider{source: source, script: entries, used: make([]bool, len(entries))}
}

// Name is "scripted".
func (p *Provider) Name() string { return Name }

// Remaining is the number of entries not served yet (repeating ones
// included until served once).
func (p *Provider) Remaining() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, u := range p.used {
		if !u {
			n++
		}
	}
	return n
}

// Chat serves the first matching entry.
func (p *Provider) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	for i, e := range p.script {
		if (p.used[i] && !e.Repeat) || !e.matches(req) {
			continue
		}
		p.used[i] = true
		if f := e.Error; f != nil {
			return llm.Response{}, &llm.Error{Provider: Name, Kind: f.Kind, Status: f.Status, Err: errors.New(f.Message)}
		}
		return llm.Response{
			Message:    llm.Message{Role: llm.RoleAssistant, Content: e.Content, ToolCalls: append([]llm.ToolCall(nil), e.ToolCalls...)},
			Usage:      e.Usage,
			Model:      e.Model,
			StopReason: e.StopReason,
		}, nil
	}
	last := "(no messages)"
	if n := len(req.Messages); n > 0 {
		m := req.Messages[n-1]
		last = fmt.Sprintf("%s %q", m.Role, cut(m.Content))
	}
	return llm.Response{}, &llm.Error{Provider: Name, Kind: llm.Permanent, Setting: "[llm] script",
		Err: fmt.Errorf("script %s has no response left for call %d (last message: %s): add an entry", p.source, p.calls, last)}
}

func (e Entry) matches(req llm.Request) bool {
	if e.WhenSystem != "" && !strings.Contains(req.System, e.WhenSystem) {
		return false
	}
	if e.WhenRole != "" && (len(req.Messages) == 0 || req.Messages[len(req.Messages)-1].Role != e.WhenRole) {
		return false
	}
	if e.When != "" {
		for i := len(req.Messages) - 1; i >= 0; i-- {
			if req.Messages[i].Role == llm.RoleUser {
				return strings.Contains(req.Messages[i].Content, e.When)
			}
		}
		return false
	}
	return true
}

func cut(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
