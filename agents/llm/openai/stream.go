package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/lunad/lunad/agents/llm"
)

// chunk is the part of a chat.completion.chunk that lunad reads.
type chunk struct {
	ID      string `json:"id"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index        int     `json:"index"`
		FinishReason *string `json:"finish_reason"`
		Delta        struct {
			Content   *string `json:"content"`
			Refusal   *string `json:"refusal"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
}

// assembled is the chat.completion a stream adds up to.
type assembled struct {
	ID      string            `json:"id"`
	Object  string            `json:"object"`
	Created int64             `json:"created"`
	Model   string            `json:"model"`
	Choices []assembledChoice `json:"choices"`
	Usage   json.RawMessage   `json:"usage,omitempty"`
}

type assembledChoice struct {
	Index        int              `json:"index"`
	FinishReason string           `json:"finish_reason"`
	Message      assembledMessage `json:"message"`
}

type assembledMessage struct {
	Role      string          `json:"role"`
	Content   *string         `json:"content"`
	Refusal   *string         `json:"refusal,omitempty"`
	ToolCalls []assembledCall `json:"tool_calls,omitempty"`
}

type assembledCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// assemble reads a stream of chat.completion.chunks up to "data:
// [DONE]" (or its end) and returns the chat.completion they add up to
// (llm.AssembleStreams: an answer streamed though lunad did not ask it
// to). No event holds more than limit bytes; what the chunks add up to,
// decoded from them, is never longer than they are, and they are bounded
// by the transport.
func assemble(body io.Reader, limit int64) ([]byte, error) {
	var out assembled
	choices := map[int]*assembledChoice{}
	var order []int
	err := llm.EachEvent(body, limit, func(data []byte) error {
		if string(bytes.TrimSpace(data)) == "[DONE]" {
			return llm.EndOfStream
		}
		var c chunk
		if err := json.Unmarshal(data, &c); err != nil {
			return &llm.StreamError{Why: fmt.Sprintf("an event of the answer's stream is not a chat.completion.chunk: %v", err)}
		}
		if out.ID == "" {
			out.ID, out.Created, out.Model = c.ID, c.Created, c.Model
		}
		if len(c.Usage) > 0 && string(c.Usage) != "null" {
			out.Usage = c.Usage
		}
		for _, ch := range c.Choices {
			a := choices[ch.Index]
			if a == nil {
				a = &assembledChoice{Index: ch.Index, Message: assembledMessage{Role: "assistant"}}
				choices[ch.Index] = a
				order = append(order, ch.Index)
			}
			if ch.FinishReason != nil {
				a.FinishReason = *ch.FinishReason
			}
			if d := ch.Delta.Content; d != nil {
				a.Message.Content = appendText(a.Message.Content, *d)
			}
			if d := ch.Delta.Refusal; d != nil {
				a.Message.Refusal = appendText(a.Message.Refusal, *d)
			}
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Index < 0 || tc.Index > len(a.Message.ToolCalls) {
					return &llm.StreamError{Why: fmt.Sprintf("the answer's stream gives tool call %d before tool call %d", tc.Index, len(a.Message.ToolCalls))}
				}
				if tc.Index == len(a.Message.ToolCalls) {
					a.Message.ToolCalls = append(a.Message.ToolCalls, assembledCall{Type: "function"})
				}
				call := &a.Message.ToolCalls[tc.Index]
				if tc.ID != "" {
					call.ID = tc.ID
				}
				if tc.Type != "" {
					call.Type = tc.Type
				}
				call.Function.Name += tc.Function.Name
				call.Function.Arguments += tc.Function.Arguments
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, i := range order {
		out.Choices = append(out.Choices, *choices[i])
	}
	out.Object = "chat.completion"
	return json.Marshal(out)
}

func appendText(p *string, s string) *string {
	if p == nil {
		return &s
	}
	t := *p + s
	return &t
}
