package openai_test

import (
	"testing"

	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/internal/llmtest"
)

// TestHugeAnswer attacks the provider with a chat completion whose tool
// argument is 100 MiB, as one JSON body (with and without a length) and
// as a stream of chunks: the call fails as permanent, naming
// [llm] max_response, without reading more than that.
func TestHugeAnswer(t *testing.T) {
	const head = `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"m","choices":[{"index":0,"finish_reason":"tool_calls",` +
		`"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"write","arguments":"`
	const tail = `"}}]}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	const chunk = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,` +
		`"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"write","arguments":"`
	llmtest.RunHugeCases(t, []llmtest.HugeReply{
		{Name: "json with length", ContentType: "application/json", Prefix: head, Fill: 'a', Size: llmtest.PayloadSize, Suffix: tail, Length: true},
		{Name: "json chunked", ContentType: "application/json", Prefix: head, Fill: 'a', Size: llmtest.PayloadSize, Suffix: tail},
		{Name: "gzip bomb", ContentType: "application/json", Prefix: head, Fill: 'a', Size: llmtest.PayloadSize, Suffix: tail, Gzip: true},
		{Name: "event stream", ContentType: "text/event-stream", Prefix: chunk, Fill: 'a', Size: llmtest.PayloadSize, Suffix: "\"}}]}}]}\n\ndata: [DONE]\n\n"},
	}, func(t *testing.T, url string) llm.Provider { return newProviderAt(t, url+"/v1", nil) })
}
