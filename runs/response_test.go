package runs

import (
	"errors"
	"path"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// FuzzCheckResponse: the checks of a response's extras never panic, refuse
// with ErrInvalid, and what they accept is safe to store and to commit: a
// file name is a clean relative path inside files/, a trailer name none of
// the refused ones and a value one line.
func FuzzCheckResponse(f *testing.F) {
	f.Add("writer", "Model", "m-1", "llm/0001.json", "{}")
	f.Add("Eve <e@x>", "Run", "x", "../x", "a")
	f.Add("", "agent", "a\nb", "files//x", "\x00")
	f.Add("w", "Luna-Op", " x ", ".git/config", "é")
	f.Fuzz(func(t *testing.T, agent, trailer, value, file, content string) {
		resp := lunad.StageResponse{Agent: agent, Trailers: map[string]string{trailer: value}, Files: map[string]string{file: content}}
		err := checkResponse(resp)
		if err != nil {
			if !errors.Is(err, lunad.ErrInvalid) {
				t.Fatalf("checkResponse: %v does not wrap ErrInvalid", err)
			}
			return
		}
		if path.Clean(file) != file || path.IsAbs(file) || strings.HasPrefix(file, "..") || strings.Contains(file, "/.") || strings.HasPrefix(file, ".") {
			t.Fatalf("accepted file name %q", file)
		}
		if _, _, reserved := lunad.ReservedTrailer(trailer); reserved || engineTrailers[strings.ToLower(trailer)] || strings.ContainsAny(value, "\r\n") || strings.ContainsAny(agent, "<>\n ") {
			t.Fatalf("accepted trailer %q: %q, agent %q", trailer, value, agent)
		}
	})
}
