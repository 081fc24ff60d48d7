package process_test

import (
	"strconv"
	"testing"

	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/internal/llmtest"
)

// TestHugeAnswer attacks the provider with a command that prints a
// 100 MiB tool argument: the call fails as permanent, naming
// [llm] max_response, holding no more than that of it.
func TestHugeAnswer(t *testing.T) {
	p, _ := script(t, `printf '{"message":{"tool_calls":[{"id":"c1","name":"write","arguments":{"text":"'
head -c `+strconv.Itoa(llmtest.PayloadSize)+` /dev/zero | tr '\0' a
printf '"}}]}}'
`, 0)
	llmtest.CheckTooLarge(t, p, llm.DefaultMaxResponse, 32<<20)
}

// TestMaxResponseSetting: [llm] max_response sets the limit.
func TestMaxResponseSetting(t *testing.T) {
	for _, c := range []struct {
		name  string
		limit llm.Config
		size  int
		ok    bool
	}{
		{"under", llm.Config{MaxResponse: 64 << 10}, 60 << 10, true},
		{"over", llm.Config{MaxResponse: 64 << 10}, 70 << 10, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, _ := scriptWith(t, `printf '{"message":{"content":"'
head -c `+strconv.Itoa(c.size)+` /dev/zero | tr '\0' a
printf '"}}'
`, func(cfg *llm.Config) { cfg.MaxResponse = c.limit.MaxResponse })
			if c.ok {
				if _, err := p.Chat(t.Context(), req); err != nil {
					t.Fatal(err)
				}
				return
			}
			llmtest.CheckTooLarge(t, p, 64<<10, 32<<20)
		})
	}
}
