package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/lunad/lunad/agents/llm"
)

// Name is the provider's name.
const Name = llm.ProviderOpenAI

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com/v1/"

// Provider calls a chat-completions endpoint.
type Provider struct {
	cfg      llm.Config
	key      string
	secrets  []string // redacted from every quoted message: the key, the base URL's
	keyEnv   string
	official bool // the base URL is OpenAI's: a key is required, max_completion_tokens is sent
	svc      sdk.ChatCompletionService
	now      func() time.Time
}

// New makes a provider from cfg ([llm] or a role's merged config), reading
// the API key from getenv(cfg.KeyEnv()). OpenAI's own API needs the key
// (an *llm.Error of Kind Auth naming the variable when it is empty); a
// local server at another base URL may do without.
func New(cfg llm.Config, getenv func(string) string) (*Provider, error) {
	if cfg.Provider == "" {
		cfg.Provider = Name
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	base := cfg.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	u, _ := url.Parse(base) // Validate parsed it
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	base = u.String()
	p := &Provider{cfg: cfg, key: cfg.APIKey(getenv), keyEnv: cfg.KeyEnv(), now: time.Now}
	p.secrets = llm.Secrets(p.key, base)
	p.official = u.Hostname() == "api.openai.com"
	if p.official && p.key == "" {
		return nil, llm.NoKeyError(Name, p.keyEnv)
	}
	// The service is made without openai.NewClient, which would read
	// OPENAI_BASE_URL, OPENAI_ORG_ID, OPENAI_CUSTOM_HEADERS, ... from the
	// process environment.
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithMaxRetries(0),
		// The SDK reads an answer whole: it never sees more than [llm]
		// max_response of one.
		option.WithHTTPClient(&http.Client{Transport: llm.LimitTransport(nil, cfg.ResponseLimit())}),
	}
	if p.key != "" {
		opts = append(opts, option.WithAPIKey(p.key))
	}
	p.svc = sdk.NewChatCompletionService(opts...)
	return p, nil
}

// Name is "openai".
func (p *Provider) Name() string { return Name }

// Chat sends req (with the configuration's defaults) as one chat completion.
func (p *Provider) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	req = p.cfg.Apply(req)
	params, err := p.params(req)
	if err != nil {
		return llm.Response{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.CallTimeout())
	defer cancel()
	var seen llm.LastResponse
	res, err := p.svc.New(ctx, params, option.WithMiddleware(seen.Middleware, llm.AssembleStreams(func(r io.Reader) ([]byte, error) { return assemble(r, p.cfg.ResponseLimit()) })))
	if err != nil {
		return llm.Response{}, p.classify(err, &seen)
	}
	return p.response(req, res)
}

func (p *Provider) params(req llm.Request) (sdk.ChatCompletionNewParams, error) {
	params := sdk.ChatCompletionNewParams{Model: shared.ChatModel(req.Model)}
	if req.System != "" {
		params.Messages = append(params.Messages, sdk.SystemMessage(req.System))
	}
	for i, m := range req.Messages {
		msg, err := message(m)
		if err != nil {
			return params, p.permanent(fmt.Errorf("messages[%d]: %w", i, err), "")
		}
		params.Messages = append(params.Messages, msg)
	}
	for i, t := range req.Tools {
		schema, err := schemaMap(t.Schema)
		if err != nil {
			return params, p.permanent(fmt.Errorf("tools[%d] (%s): schema: %w", i, t.Name, err), "")
		}
		def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
		if t.Description != "" {
			def.Description = sdk.String(t.Description)
		}
		params.Tools = append(params.Tools, sdk.ChatCompletionFunctionTool(def))
	}
	if f := req.Format; f != nil {
		schema, err := schemaMap(f.Schema)
		if err != nil {
			return params, p.permanent(fmt.Errorf("format %s: schema: %w", f.Name, err), "")
		}
		params.ResponseFormat = sdk.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
				Name: f.Name, Strict: sdk.Bool(true), Schema: schema,
			}},
		}
	}
	if req.Temperature != nil {
		params.Temperature = sdk.Float(*req.Temperature)
	}
	if req.Seed != nil {
		params.Seed = sdk.Int(*req.Seed)
	}
	if req.MaxTokens > 0 {
		if p.official {
			params.MaxCompletionTokens = sdk.Int(int64(req.MaxTokens))
		} else {
			params.MaxTokens = sdk.Int(int64(req.MaxTokens))
		}
	}
	return params, nil
}

func message(m llm.Message) (sdk.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case llm.RoleUser:
		return sdk.UserMessage(m.Content), nil
	case llm.RoleTool:
		if m.ToolCallID == "" {
			return sdk.ChatCompletionMessageParamUnion{}, errors.New("a tool message needs tool_call_id")
		}
		content := m.Content
		if m.IsError {
			content = "error: " + content
		}
		return sdk.ToolMessage(content, m.ToolCallID), nil
	case llm.RoleAssistant:
		a := sdk.ChatCompletionAssistantMessageParam{}
		if m.Content != "" || len(m.ToolCalls) == 0 {
			a.Content.OfString = sdk.String(m.Content)
		}
		for _, c := range m.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID:       c.ID,
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: string(c.Arguments)},
				},
			})
		}
		return sdk.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	}
	return sdk.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q (want user, assistant or tool)", m.Role)
}

// schemaMap decodes a JSON Schema object; an empty one is {"type":"object"}.
func schemaMap(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, errors.New("not a JSON object")
	}
	return m, nil
}

func (p *Provider) response(req llm.Request, res *sdk.ChatCompletion) (llm.Response, error) {
	if res == nil || len(res.Choices) == 0 {
		return llm.Response{}, p.permanent(errors.New("the response has no choices"), "[llm] base_url")
	}
	ch := res.Choices[0]
	if ch.FinishReason == "length" {
		// A cut answer's tool calls and content are prefixes: the
		// finish reason comes first.
		return llm.Response{}, llm.Cut(Name, req.MaxTokens)
	}
	out := llm.Response{
		Message: llm.Message{Role: llm.RoleAssistant, Content: ch.Message.Content},
		Usage:   llm.Usage{InputTokens: int(res.Usage.PromptTokens), OutputTokens: int(res.Usage.CompletionTokens)},
		Model:   res.Model,
	}
	if out.Model == "" {
		out.Model = req.Model
	}
	for i, c := range ch.Message.ToolCalls {
		if c.Type != "" && c.Type != "function" {
			return llm.Response{}, p.permanent(fmt.Errorf("tool_calls[%d]: unsupported tool call type %q", i, c.Type), "")
		}
		if c.Function.Name == "" {
			return llm.Response{}, p.permanent(fmt.Errorf("tool_calls[%d]: no function name", i), "")
		}
		out.Message.ToolCalls = append(out.Message.ToolCalls, llm.ToolCall{
			ID: c.ID, Name: c.Function.Name, Arguments: json.RawMessage(c.Function.Arguments),
		})
	}
	switch {
	case len(out.Message.ToolCalls) > 0:
		out.StopReason = llm.StopToolCalls
	case ch.FinishReason == "stop":
		out.StopReason = llm.StopEnd
	default:
		out.StopReason = llm.StopOther
	}
	if req.Format != nil && out.Message.Content == "" && len(out.Message.ToolCalls) == 0 {
		why := "an empty answer"
		if r := ch.Message.Refusal; r != "" {
			why = "a refusal: " + llm.Redact(r, p.secrets...)
		}
		return llm.Response{}, p.permanent(fmt.Errorf("structured output %s: the model gave %s", req.Format.Name, why), "")
	}
	return out, nil
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
