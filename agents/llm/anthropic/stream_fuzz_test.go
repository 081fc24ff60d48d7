package anthropic

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// FuzzAssemble: any event stream assembles without panicking, into a
// Message that is JSON, or fails.
func FuzzAssemble(f *testing.F) {
	for _, name := range []string{"testdata/max_tokens_cut_stream.http", "testdata/tool_use_stream.http"} {
		if raw, err := os.ReadFile(name); err == nil {
			if _, body, ok := strings.Cut(string(raw), "\n\n"); ok {
				f.Add(body)
			}
		}
	}
	f.Fuzz(func(t *testing.T, stream string) {
		out, err := assemble(strings.NewReader(stream), 1<<16)
		if err == nil && !json.Valid(out) {
			t.Fatalf("assembled %q: not JSON", out)
		}
	})
}
