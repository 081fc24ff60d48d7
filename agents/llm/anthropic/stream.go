package anthropic

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/lunad/lunad/agents/llm"
)

// event is the part of a Messages stream event that lunad reads.
type event struct {
	Type    string          `json:"type"`
	Index   int             `json:"index"`
	Message json.RawMessage `json:"message"`
	Block   json.RawMessage `json:"content_block"`
	Delta   struct {
		Type        string  `json:"type"`
		Text        string  `json:"text"`
		PartialJSON string  `json:"partial_json"`
		StopReason  *string `json:"stop_reason"`
	} `json:"delta"`
	Usage *struct {
		OutputTokens int64 `json:"output_tokens"`
	} `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// block is a content block being assembled: its start as sent, then its
// text or its input's JSON, delta by delta.
type block struct {
	start map[string]json.RawMessage
	text  string
	input string
	typ   string
}

// assemble reads a Messages stream (message_start, content blocks and
// their deltas, message_delta, message_stop) and returns the Message it
// adds up to (llm.AssembleStreams: an answer streamed though lunad did
// not ask it to). No event holds more than limit bytes; what the events
// add up to is never longer than they are, and they are bounded by the
// transport. A tool_use whose input's JSON is cut keeps it as a string:
// the stop reason ("max_tokens") is read first.
func assemble(body io.Reader, limit int64) ([]byte, error) {
	var msg map[string]json.RawMessage
	var blocks []*block
	var stop *string
	var outTokens *int64
	err := llm.EachEvent(body, limit, func(data []byte) error {
		var e event
		if err := json.Unmarshal(data, &e); err != nil {
			return &llm.StreamError{Why: fmt.Sprintf("an event of the answer's stream does not decode: %v", err)}
		}
		switch e.Type {
		case "message_start":
			if err := json.Unmarshal(e.Message, &msg); err != nil || msg == nil {
				return &llm.StreamError{Why: "the answer's stream starts with a message_start without a message"}
			}
		case "content_block_start":
			if e.Index != len(blocks) {
				return &llm.StreamError{Why: fmt.Sprintf("the answer's stream starts content block %d after %d blocks", e.Index, len(blocks))}
			}
			b := &block{}
			if err := json.Unmarshal(e.Block, &b.start); err != nil || b.start == nil {
				return &llm.StreamError{Why: fmt.Sprintf("content block %d of the answer's stream does not decode", e.Index)}
			}
			json.Unmarshal(b.start["type"], &b.typ)
			json.Unmarshal(b.start["text"], &b.text)
			blocks = append(blocks, b)
		case "content_block_delta":
			if e.Index < 0 || e.Index >= len(blocks) {
				return &llm.StreamError{Why: fmt.Sprintf("the answer's stream gives a delta of content block %d, which it did not start", e.Index)}
			}
			blocks[e.Index].text += e.Delta.Text
			blocks[e.Index].input += e.Delta.PartialJSON
		case "message_delta":
			if e.Delta.StopReason != nil {
				stop = e.Delta.StopReason
			}
			if e.Usage != nil {
				outTokens = &e.Usage.OutputTokens
			}
		case "message_stop":
			return llm.EndOfStream
		case "error":
			why := "the server ended the answer's stream with an error"
			if e.Error != nil {
				why += ": " + e.Error.Type + ": " + e.Error.Message
			}
			return &llm.StreamError{Why: why}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if msg == nil {
		return nil, &llm.StreamError{Why: "the answer's stream has no message_start"}
	}
	var content []map[string]json.RawMessage
	for _, b := range blocks {
		c := b.start
		switch b.typ {
		case "text":
			c["text"], _ = json.Marshal(b.text)
		case "tool_use":
			switch {
			case b.input == "":
			case json.Valid([]byte(b.input)):
				c["input"] = json.RawMessage(b.input)
			default:
				c["input"], _ = json.Marshal(b.input)
			}
		}
		content = append(content, c)
	}
	msg["content"], _ = json.Marshal(content)
	if stop != nil {
		msg["stop_reason"], _ = json.Marshal(*stop)
	}
	if outTokens != nil {
		var usage map[string]json.RawMessage
		json.Unmarshal(msg["usage"], &usage)
		if usage == nil {
			usage = map[string]json.RawMessage{}
		}
		usage["output_tokens"], _ = json.Marshal(*outTokens)
		msg["usage"], _ = json.Marshal(usage)
	}
	return json.Marshal(msg)
}
