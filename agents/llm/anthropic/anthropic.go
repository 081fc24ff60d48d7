package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/lunad/lunad/agents/llm"
)

// Name is the provider's name.
const Name = llm.ProviderAnthropic

// DefaultBaseURL is Anthropic's API.
const DefaultBaseURL = "https://api.anthropic.com/"

// Provider calls the Messages API.
type Provider struct {
	cfg     llm.Config
	key     string
	secrets []string // redacted from every quoted message: the key, the base URL's
	keyEnv  string
	svc     sdk.MessageService
	now     func() time.Time
}

// New makes a provider from cfg, reading the API key from
// getenv(cfg.KeyEnv()): an empty key is an *llm.Error of Kind Auth naming
// the variable.
func New(cfg llm.Config, getenv func(string) string) (*Provider, error) {
	if cfg.Provider == "" {
		cfg.Provider = Name
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	p := &Provider{cfg: cfg, key: cfg.APIKey(getenv), keyEnv: cfg.KeyEnv(), now: time.Now}
	if p.key == "" {
		return nil, llm.NoKeyError(Name, p.keyEnv)
	}
	base := cfg.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	p.secrets = llm.Secrets(p.key, base)
	client := sdk.NewClient(
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(base),
		option.WithAPIKey(p.key),
		option.WithMaxRetries(0),
		// The SDK reads an answer whole: it never sees more than [llm]
		// max_response of one.
		option.WithHTTPClient(&http.Client{Transport: llm.LimitTransport(nil, cfg.ResponseLimit())}),
		option.WithRequestTimeout(cfg.CallTimeout()),
	)
	p.svc = client.Messages
	return p, nil
}

// Name is "anthropic".
func (p *Provider) Name() string { return Name }

// Chat sends req (with the configuration's defaults) as one message.
func (p *Provider) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	req = p.cfg.Apply(req)
	params, err := p.params(req)
	if err != nil {
		return llm.Response{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.CallTimeout())
	defer cancel()
	var seen llm.LastResponse
	opts := []option.RequestOption{option.WithMiddleware(seen.Middleware,
		llm.AssembleStreams(func(r io.Reader) ([]byte, error) { return assemble(r, p.cfg.ResponseLimit()) }))}
	if req.Temperature != nil {
		// The SDK dropped the field; the API still reads it.
		opts = append(opts, option.WithJSONSet("temperature", *req.Temperature))
	}
	res, err := p.svc.New(ctx, params, opts...)
	if err != nil {
		return llm.Response{}, p.classify(err, &seen)
	}
	return p.response(req, res)
}

func (p *Provider) params(req llm.Request) (sdk.MessageNewParams, error) {
	params := sdk.MessageNewParams{Model: sdk.Model(req.Model), MaxTokens: int64(req.MaxTokens)}
	if req.System != "" {
		params.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	msgs, err := messages(req.Messages)
	if err != nil {
		return params, p.permanent(err, "")
	}
	params.Messages = msgs
	for i, t := range req.Tools {
		tool, err := tool(t.Name, t.Description, t.Schema)
		if err != nil {
			return params, p.permanent(fmt.Errorf("tools[%d] (%s): schema: %w", i, t.Name, err), "")
		}
		params.Tools = append(params.Tools, tool)
	}
	if f := req.Format; f != nil {
		for _, t := range req.Tools {
			if t.Name == f.Name {
				return params, p.permanent(fmt.Errorf("format %s has the name of a tool: rename one", f.Name), "")
			}
		}
		tool, err := tool(f.Name, "Answer with this tool: its input is your answer.", f.Schema)
		if err != nil {
			return params, p.permanent(fmt.Errorf("format %s: schema: %w", f.Name, err), "")
		}
		params.Tools = append(params.Tools, tool)
		params.ToolChoice = sdk.ToolChoiceParamOfTool(f.Name)
	}
	return params, nil
}

// messages maps the conversation; consecutive user and tool messages make
// one user turn.
func messages(in []llm.Message) ([]sdk.MessageParam, error) {
	var out []sdk.MessageParam
	var user []sdk.ContentBlockParamUnion
	flush := func() {
		if len(user) > 0 {
			out = append(out, sdk.NewUserMessage(user...))
			user = nil
		}
	}
	for i, m := range in {
		switch m.Role {
		case llm.RoleUser:
			user = append(user, sdk.NewTextBlock(m.Content))
		case llm.RoleTool:
			if m.ToolCallID == "" {
				return nil, fmt.Errorf("messages[%d]: a tool message needs tool_call_id", i)
			}
			user = append(user, sdk.NewToolResultBlock(m.ToolCallID, m.Content, m.IsError))
		case llm.RoleAssistant:
			flush()
			var blocks []sdk.ContentBlockParamUnion
			if m.Content != "" {
				blocks = append(blocks, sdk.NewTextBlock(m.Content))
			}
			for _, c := range m.ToolCalls {
				blocks = append(blocks, sdk.NewToolUseBlock(c.ID, toolInput(c.Arguments), c.Name))
			}
			if len(blocks) == 0 {
				blocks = append(blocks, sdk.NewTextBlock(""))
			}
			out = append(out, sdk.NewAssistantMessage(blocks...))
		default:
			return nil, fmt.Errorf("messages[%d]: unknown role %q (want user, assistant or tool)", i, m.Role)
		}
	}
	flush()
	return out, nil
}

// toolInput is a tool call's arguments as the API wants them: an object.
// Arguments that are not one (another provider's model wrote them) are
// sent as {"invalid_arguments": "<text>"}.
func toolInput(args json.RawMessage) any {
	var obj map[string]json.RawMessage
	if len(bytes.TrimSpace(args)) == 0 {
		return map[string]any{}
	}
	if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
		return map[string]string{"invalid_arguments": string(args)}
	}
	return json.RawMessage(args)
}

// tool maps a JSON Schema object onto the SDK's tool parameter.
func tool(name, description string, schema json.RawMessage) (sdk.ToolUnionParam, error) {
	m := map[string]any{}
	if len(schema) > 0 {
		if err := json.Unmarshal(schema, &m); err != nil || m == nil {
			return sdk.ToolUnionParam{}, errors.New("not a JSON object")
		}
	}
	in := sdk.ToolInputSchemaParam{Properties: m["properties"]}
	if in.Properties == nil {
		in.Properties = map[string]any{}
	}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				in.Required = append(in.Required, s)
			}
		}
	}
	for k, v := range m {
		if k != "properties" && k != "required" && k != "type" {
			if in.ExtraFields == nil {
				in.ExtraFields = map[string]any{}
			}
			in.ExtraFields[k] = v
		}
	}
	t := sdk.ToolUnionParamOfTool(in, name)
	if description != "" {
		t.OfTool.Description = sdk.String(description)
	}
	return t, nil
}

func (p *Provider) response(req llm.Request, res *sdk.Message) (llm.Response, error) {
	if res == nil {
		return llm.Response{}, p.permanent(errors.New("empty response"), "[llm] base_url")
	}
	if res.StopReason == sdk.StopReasonMaxTokens {
		// A cut answer's blocks are prefixes: the stop reason comes first.
		return llm.Response{}, llm.Cut(Name, req.MaxTokens)
	}
	u := res.Usage
	out := llm.Response{
		Message: llm.Message{Role: llm.RoleAssistant},
		Usage: llm.Usage{InputTokens: int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens),
			OutputTokens: int(u.OutputTokens)},
		Model: string(res.Model),
	}
	if out.Model == "" {
		out.Model = req.Model
	}
	var text []string
	for i, b := range res.Content {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "tool_use":
			if b.Name == "" || b.ID == "" {
				return llm.Response{}, p.permanent(fmt.Errorf("content[%d]: a tool_use block without id or name", i), "")
			}
			out.Message.ToolCalls = append(out.Message.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: b.Input})
		}
	}
	out.Message.Content = strings.Join(text, "")
	if f := req.Format; f != nil {
		return p.structured(out, f.Name)
	}
	switch {
	case len(out.Message.ToolCalls) > 0:
		out.StopReason = llm.StopToolCalls
	case res.StopReason == sdk.StopReasonEndTurn || res.StopReason == sdk.StopReasonStopSequence:
		out.StopReason = llm.StopEnd
	default:
		out.StopReason = llm.StopOther
	}
	return out, nil
}

// structured turns the forced tool call into the answer's content.
func (p *Provider) structured(out llm.Response, name string) (llm.Response, error) {
	for _, c := range out.Message.ToolCalls {
		if c.Name != name {
			continue
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, c.Arguments); err != nil {
			return llm.Response{}, p.permanent(fmt.Errorf("structured output %s: the tool input is not JSON: %v", name, err), "")
		}
		out.Message = llm.Message{Role: llm.RoleAssistant, Content: buf.String()}
		out.StopReason = llm.StopEnd
		return out, nil
	}
	return llm.Response{}, p.permanent(fmt.Errorf("structured output %s: the model did not call the forced tool %s", name, name), "")
}

func (p *Provider) permanent(err error, setting string) *llm.Error {
	return &llm.Error{Provider: Name, Kind: llm.Permanent, Setting: setting, Err: err}
}

// classify turns the SDK's error into an *llm.Error without the key.
func (p *Provider) classify(err error, seen *llm.LastResponse) *llm.Error {
	var apiErr *sdk.Error
	status, msg := 0, ""
	if errors.As(err, &apiErr) {
		status, msg = apiErr.StatusCode, apiErr.Message
	}
	return seen.Failure(Name, err, status, msg, p.secrets, p.keyEnv, p.cfg.CallTimeout(), p.now())
}
