package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"

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

// streams is a middleware that turns an answer sent as Server-Sent
// Events (a server streaming though lunad did not ask it to) into the
// one chat.completion its chunks add up to, so that it is read as any
// other answer: finish reason first. The body is bounded by the
// transport (llm.LimitTransport, limit bytes); an event longer than limit
// is a *llm.TooLargeError, and what the chunks add up to, decoded from
// them, is never longer than they are. A stream that does not decode is
// a *streamError.
func streams(limit int64) func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	return func(r *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		res, err := next(r)
		if err != nil || res == nil || res.StatusCode != http.StatusOK {
			return res, err
		}
		if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt != "text/event-stream" {
			return res, nil
		}
		defer res.Body.Close()
		body, err := assemble(res.Body, limit)
		if err != nil {
			return nil, err
		}
		res.Body = io.NopCloser(bytes.NewReader(body))
		res.ContentLength = int64(len(body))
		res.Header.Set("Content-Type", "application/json")
		res.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return res, nil
	}
}

// assemble reads the events of a stream of chat.completion.chunks up to
// "data: [DONE]" (or the end) and returns the chat.completion they make.
func assemble(body io.Reader, limit int64) ([]byte, error) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), int(min(limit, 1<<30)))
	var out assembled
	choices := map[int]*assembledChoice{}
	var order []int
	for sc.Scan() {
		line := sc.Bytes()
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue // event names, ids, comments and the blank lines between events
		}
		data = bytes.TrimSpace(data)
		if string(data) == "[DONE]" {
			break
		}
		var c chunk
		if err := json.Unmarshal(data, &c); err != nil {
			return nil, &streamError{fmt.Sprintf("an event of the answer's stream is not a chat.completion.chunk: %v", err)}
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
					return nil, &streamError{fmt.Sprintf("the answer's stream gives tool call %d before tool call %d", tc.Index, len(a.Message.ToolCalls))}
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
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, &llm.TooLargeError{Limit: limit}
		}
		return nil, err
	}
	for _, i := range order {
		out.Choices = append(out.Choices, *choices[i])
	}
	out.Object = "chat.completion"
	return json.Marshal(out)
}

// streamError is a stream of events that does not add up to an answer.
type streamError struct{ why string }

func (e *streamError) Error() string { return e.why }

func appendText(p *string, s string) *string {
	if p == nil {
		return &s
	}
	t := *p + s
	return &t
}
