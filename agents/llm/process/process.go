package process

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/lunad/lunad/agents/llm"
)

// Name is the provider's name.
const Name = llm.ProviderProcess

// stderrTail is how much of stderr an error quotes.
const stderrTail = 2048

// exTempFail is sysexits.h's EX_TEMPFAIL: a transient failure.
const exTempFail = 75

// Provider runs a command per call.
type Provider struct {
	cfg llm.Config
}

// New makes a provider from cfg (provider "process", command set).
func New(cfg llm.Config) (*Provider, error) {
	if cfg.Provider == "" {
		cfg.Provider = Name
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Provider{cfg: cfg}, nil
}

// Name is "process".
func (p *Provider) Name() string { return Name }

// Chat runs the command once with req on stdin.
func (p *Provider) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	req = p.cfg.Apply(req)
	in, err := json.Marshal(req)
	if err != nil {
		return llm.Response{}, &llm.Error{Provider: Name, Kind: llm.Permanent, Err: fmt.Errorf("encode request: %w", err)}
	}
	runCtx, cancel := context.WithTimeout(ctx, p.cfg.CallTimeout())
	defer cancel()
	cmd := exec.CommandContext(runCtx, p.cfg.Command[0], p.cfg.Command[1:]...)
	inGroup(cmd)
	cmd.WaitDelay = time.Second // a grandchild holding stdout open cannot hang the call
	cmd.Stdin = bytes.NewReader(in)
	stdout := &limited{max: p.cfg.ResponseLimit()}
	stderr := &tail{max: stderrTail}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return llm.Response{}, &llm.Error{Provider: Name, Kind: llm.Transient, Err: ctx.Err()}
	case runCtx.Err() != nil:
		return llm.Response{}, &llm.Error{Provider: Name, Kind: llm.Transient, Setting: "[llm] timeout",
			Err: fmt.Errorf("%s gave no answer within %s and was killed: %w", p.cfg.Command[0], p.cfg.CallTimeout(), context.DeadlineExceeded)}
	case stdout.over:
		return llm.Response{}, llm.TooLarge(Name, p.cfg.ResponseLimit())
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		kind := llm.Permanent
		if exit.ExitCode() == exTempFail {
			kind = llm.Transient
		}
		return llm.Response{}, p.fail(kind, fmt.Errorf("exited with %s", exit.ProcessState), stderr)
	}
	if err != nil {
		return llm.Response{}, p.fail(llm.Permanent, fmt.Errorf("cannot run: %w", err), stderr)
	}
	resp, err := Decode(stdout.buf.Bytes())
	if err != nil {
		return llm.Response{}, p.fail(llm.Permanent, fmt.Errorf("invalid response on stdout: %w", err), stderr)
	}
	if resp.Model == "" {
		resp.Model = Name
	}
	return resp, nil
}

func (p *Provider) fail(kind llm.ErrorKind, err error, stderr *tail) *llm.Error {
	if s := strings.TrimSpace(stderr.String()); s != "" {
		err = fmt.Errorf("%w; stderr: %s", err, s)
	}
	return &llm.Error{Provider: Name, Kind: kind, Setting: "[llm] command", Err: fmt.Errorf("%s: %w", p.cfg.Command[0], err)}
}

// Decode reads one llm.Response from a command's stdout: exactly one JSON
// object, no unknown fields, then only white space. It fills the role
// (assistant) and the stop reason, and checks the tool calls.
func Decode(b []byte) (llm.Response, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	var resp llm.Response
	if err := d.Decode(&resp); err != nil {
		if errors.Is(err, io.EOF) {
			return llm.Response{}, errors.New("nothing was printed: print one JSON object")
		}
		return llm.Response{}, err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return llm.Response{}, errors.New("more than one JSON value: print one JSON object")
	}
	switch resp.Message.Role {
	case "":
		resp.Message.Role = llm.RoleAssistant
	case llm.RoleAssistant:
	default:
		return llm.Response{}, fmt.Errorf("message.role %q: the answer's role is assistant", resp.Message.Role)
	}
	if resp.Message.ToolCallID != "" || resp.Message.IsError {
		return llm.Response{}, errors.New("message: tool_call_id and is_error belong to tool results, not to the answer")
	}
	for i, c := range resp.Message.ToolCalls {
		if c.ID == "" || c.Name == "" {
			return llm.Response{}, fmt.Errorf("message.tool_calls[%d]: id and name are required", i)
		}
	}
	if resp.Usage.InputTokens < 0 || resp.Usage.OutputTokens < 0 {
		return llm.Response{}, errors.New("usage: token counts must not be negative")
	}
	switch resp.StopReason {
	case "":
		resp.StopReason = llm.StopEnd
		if len(resp.Message.ToolCalls) > 0 {
			resp.StopReason = llm.StopToolCalls
		}
	case llm.StopEnd, llm.StopToolCalls, llm.StopMaxTokens, llm.StopOther:
	default:
		return llm.Response{}, fmt.Errorf("stop_reason %q: use end, tool_calls, max_tokens or other", resp.StopReason)
	}
	return resp, nil
}

// limited keeps up to max bytes and notes an overflow; its error makes
// exec stop reading and close the pipe, so the command's next write fails.
type limited struct {
	buf  bytes.Buffer
	max  int64
	over bool
}

func (l *limited) Write(p []byte) (int, error) {
	if int64(l.buf.Len())+int64(len(p)) > l.max {
		l.over = true
		return 0, errors.New("output too large")
	}
	return l.buf.Write(p)
}

// tail keeps the last max bytes written.
type tail struct {
	b   []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string { return string(t.b) }
