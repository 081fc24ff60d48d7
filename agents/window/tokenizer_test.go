package window_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/lunad/lunad/agents/window"
)

func TestTokenizerFor(t *testing.T) {
	for _, c := range []struct{ model, want string }{
		{"gpt-4o", window.O200k},
		{"gpt-4o-mini", window.O200k},
		{"gpt-4.1-nano", window.O200k},
		{"gpt-5", window.O200k},
		{"o1", window.O200k},
		{"o3-mini", window.O200k},
		{"o4-mini", window.O200k},
		{"openai/gpt-oss-20b", window.O200k},
		{"gpt-4", window.CL100k},
		{"gpt-4-turbo", window.CL100k},
		{"gpt-3.5-turbo", window.CL100k},
		{"llama3.1:8b", window.CL100k},
		{"qwen2.5-coder", window.CL100k},
		{"omni-model", window.CL100k}, // starts with "o", not the o-series
		{"", window.CL100k},
		{"claude-sonnet-4-5", window.ClaudeEstimate},
		{"anthropic.claude-3-5-haiku-20241022-v1:0", window.ClaudeEstimate},
	} {
		t.Run(c.model, func(t *testing.T) {
			if got := window.TokenizerFor(c.model).Name(); got != c.want {
				t.Errorf("TokenizerFor(%q) = %s, want %s", c.model, got, c.want)
			}
		})
	}
}

// TestTokenizerCounts checks counts against known values of OpenAI's
// tiktoken (its cookbook and published examples).
func TestTokenizerCounts(t *testing.T) {
	for _, c := range []struct {
		model, text string
		want        int
	}{
		{"gpt-4", "hello world", 2},
		{"gpt-4", "tiktoken is great!", 6},
		{"gpt-4", "antidisestablishmentarianism", 6},
		{"gpt-4", "", 0},
		{"gpt-4o", "hello world", 2},
		{"gpt-4o", "this is a test example, tutorialexample.com", 9},
		{"gpt-3.5-turbo", "Hello, how are you doing today?", 8},
		{"gpt-4", "The quick brown fox jumps over the lazy dog.", 10},
		{"gpt-4", "<|endoftext|>", 7},       // a special token in content is ordinary text
		{"claude-opus-4", "hello world", 3}, // ceil(2 × 1.2)
		{"claude-opus-4", "tiktoken is great!", 8},
	} {
		t.Run(c.model+"/"+c.text, func(t *testing.T) {
			tok := window.TokenizerFor(c.model)
			for range 2 { // the second count comes from the cache
				if got := tok.Count(c.text); got != c.want {
					t.Fatalf("%s.Count(%q) = %d, want %d", tok.Name(), c.text, got, c.want)
				}
			}
		})
	}
}

func TestTokenizerConcurrent(t *testing.T) {
	tok := window.TokenizerFor("gpt-4")
	want := tok.Count(strings.Repeat("concurrent counting ", 50))
	var wg sync.WaitGroup
	errs := make(chan int, 8)
	for i := range 8 {
		wg.Go(func() {
			s := strings.Repeat("concurrent counting ", 50)
			if i%2 == 0 {
				s = strings.Repeat("concurrent counting ", 50) // a distinct string with the same text
			}
			if got := tok.Count(s); got != want {
				errs <- got
			}
		})
	}
	wg.Wait()
	close(errs)
	for got := range errs {
		t.Errorf("concurrent count %d, want %d", got, want)
	}
}
