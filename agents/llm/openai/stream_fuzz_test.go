package openai

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// FuzzAssemble: any event stream assembles without panicking, into a
// chat.completion that is JSON, or fails.
func FuzzAssemble(f *testing.F) {
	if raw, err := os.ReadFile("testdata/llamacpp_stream_cut.http"); err == nil {
		if _, body, ok := strings.Cut(string(raw), "\n\n"); ok {
			f.Add(body)
		}
	}
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1}]}}]}\n\n")
	f.Fuzz(func(t *testing.T, stream string) {
		out, err := assemble(strings.NewReader(stream), 1<<16)
		if err == nil && !json.Valid(out) {
			t.Fatalf("assembled %q: not JSON", out)
		}
	})
}
