package anthropic_test

import (
	"testing"

	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/internal/llmtest"
)

// TestHugeAnswer attacks the provider with a message whose tool_use input
// is 100 MiB, as one JSON body (with and without a length) and as a
// stream of events: the call fails as permanent, naming
// [llm] max_response, without reading more than that.
func TestHugeAnswer(t *testing.T) {
	const head = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","stop_reason":"tool_use","stop_sequence":null,` +
		`"usage":{"input_tokens":1,"output_tokens":1},"content":[{"type":"tool_use","id":"tu_1","name":"write","input":{"text":"`
	const tail = `"}}]}`
	const events = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-test\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"tu_1\",\"name\":\"write\",\"input\":{}}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"text\\\": \\\""
	llmtest.RunHugeCases(t, []llmtest.HugeReply{
		{Name: "json with length", ContentType: "application/json", Prefix: head, Fill: 'a', Size: llmtest.PayloadSize, Suffix: tail, Length: true},
		{Name: "json chunked", ContentType: "application/json", Prefix: head, Fill: 'a', Size: llmtest.PayloadSize, Suffix: tail},
		{Name: "gzip bomb", ContentType: "application/json", Prefix: head, Fill: 'a', Size: llmtest.PayloadSize, Suffix: tail, Gzip: true},
		{Name: "event stream", ContentType: "text/event-stream", Prefix: events, Fill: 'a', Size: llmtest.PayloadSize, Suffix: "\\\"}\"}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"},
	}, func(t *testing.T, url string) llm.Provider { return newProviderAt(t, url, nil) })
}
