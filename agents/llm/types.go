package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// Role is who wrote a Message.
type Role string

// The roles of a conversation. The system prompt is Request.System, not a
// message.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one turn. An assistant message may carry ToolCalls; a tool
// message answers one call (ToolCallID) with Content.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	IsError    bool       `json:"is_error,omitempty"` // a tool result that is an error
}

// ToolCall is the model's call of a Tool.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is a JSON object as the model wrote it: it may be invalid
	// JSON (the tool layer answers that with a precise error). Invalid
	// arguments are stored as "arguments_text" (a JSON string) so that a
	// recorded call round-trips byte for byte.
	Arguments json.RawMessage `json:"arguments"`
}

type toolCallJSON struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	Arguments     json.RawMessage `json:"arguments,omitempty"`
	ArgumentsText *string         `json:"arguments_text,omitempty"`
}

// MarshalJSON writes valid arguments as JSON and invalid ones as the
// string "arguments_text".
func (c ToolCall) MarshalJSON() ([]byte, error) {
	out := toolCallJSON{ID: c.ID, Name: c.Name}
	switch {
	case len(c.Arguments) == 0:
	case json.Valid(c.Arguments):
		var buf bytes.Buffer
		if err := json.Compact(&buf, c.Arguments); err != nil {
			return nil, err
		}
		out.Arguments = buf.Bytes()
	default:
		s := string(c.Arguments)
		out.ArgumentsText = &s
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *ToolCall) UnmarshalJSON(b []byte) error {
	var in toolCallJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	if in.Arguments != nil && in.ArgumentsText != nil {
		return fmt.Errorf("tool call %q: both arguments and arguments_text are set", in.ID)
	}
	*c = ToolCall{ID: in.ID, Name: in.Name, Arguments: in.Arguments}
	if in.ArgumentsText != nil {
		c.Arguments = json.RawMessage(*in.ArgumentsText)
	}
	return nil
}

// Tool is a function the model may call; Schema is a JSON Schema object.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

// ResponseFormat asks for structured output validated by a JSON schema
// (OpenAI: response_format json_schema, strict; Anthropic: a forced tool
// call named Name whose input is the answer).
type ResponseFormat struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
}

// Request is one chat call.
type Request struct {
	Model       string          `json:"model"`
	System      string          `json:"system"`
	Messages    []Message       `json:"messages"`
	Tools       []Tool          `json:"tools,omitempty"`
	Format      *ResponseFormat `json:"format,omitempty"`
	Temperature *float64        `json:"temperature,omitempty"`
	Seed        *int64          `json:"seed,omitempty"`
	MaxTokens   int             `json:"max_tokens,omitempty"`
}

// Usage is what a call consumed.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// StopReason says why the model stopped.
type StopReason string

// The stop reasons, the same for every provider.
const (
	StopEnd       StopReason = "end"        // a natural end (or the structured answer)
	StopToolCalls StopReason = "tool_calls" // the message carries tool calls to run
	StopMaxTokens StopReason = "max_tokens" // cut at Request.MaxTokens (the HTTP providers return a Cut error instead)
	StopOther     StopReason = "other"      // anything else (content filter, refusal, ...)
)

// Response is the model's answer.
type Response struct {
	Message    Message    `json:"message"` // Role assistant; Content is the structured JSON when Format was set
	Usage      Usage      `json:"usage"`
	Model      string     `json:"model"`
	StopReason StopReason `json:"stop_reason"`
}

// Provider is one model endpoint.
//
// Chat returns a *Error for every failure (errors.As), whose Kind says
// whether the call may be retried; Chat never retries by itself (Retry
// does). Name is the implementation's name ("openai", "anthropic",
// "process", "scripted"); it never carries a URL or a key.
type Provider interface {
	Name() string
	Chat(ctx context.Context, req Request) (Response, error)
}
