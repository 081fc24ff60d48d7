package llmtest

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/lunad/lunad/agents/llm"
)

// HugeReply is an answer too large to hold: Prefix, then Size bytes of
// Fill, then Suffix. The server writes it from one small buffer, so that
// it holds none of it itself.
type HugeReply struct {
	Name           string
	ContentType    string
	Prefix, Suffix string
	Fill           byte
	Size           int64
	// Length sends a Content-Length; without it the body is chunked,
	// as a stream is.
	Length bool
	// Gzip compresses the body (Content-Encoding: gzip): 100 MiB of one
	// byte is about 100 KiB on the wire, a bomb.
	Gzip bool
}

// HugeServer serves rep to every request and counts the bytes it wrote;
// it stops writing when the client goes away.
type HugeServer struct {
	*httptest.Server
	written atomic.Int64
}

// NewHuge starts a HugeServer closed at the end of the test.
func NewHuge(t *testing.T, rep HugeReply) *HugeServer {
	t.Helper()
	s := &HugeServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", rep.ContentType)
		var out io.Writer = w
		if rep.Gzip {
			w.Header().Set("Content-Encoding", "gzip")
			gz := gzip.NewWriter(w)
			defer gz.Close()
			out = gz
		}
		if rep.Length && !rep.Gzip {
			w.Header().Set("Content-Length", strconv.FormatInt(int64(len(rep.Prefix))+rep.Size+int64(len(rep.Suffix)), 10))
		}
		w.WriteHeader(http.StatusOK)
		write := func(b []byte) bool {
			n, err := out.Write(b)
			s.written.Add(int64(n))
			return err == nil
		}
		if !write([]byte(rep.Prefix)) {
			return
		}
		chunk := bytes.Repeat([]byte{rep.Fill}, 64<<10)
		for left := rep.Size; left > 0; left -= int64(len(chunk)) {
			if !write(chunk[:min(int64(len(chunk)), left)]) {
				return
			}
		}
		write([]byte(rep.Suffix))
	}))
	t.Cleanup(s.Close)
	return s
}

// Written is how many bytes of the body the server has written (before
// compression).
func (s *HugeServer) Written() int64 { return s.written.Load() }

// CheckTooLarge makes one call to p and checks that it failed as an
// answer over limit bytes must: Permanent, naming [llm] max_response
// and the limit, with less than maxAlloc bytes allocated meanwhile.
func CheckTooLarge(t *testing.T, p llm.Provider, limit, maxAlloc int64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
	runtime.ReadMemStats(&after)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.Permanent || e.Setting != llm.SettingMaxResponse {
		t.Fatalf("err = %v, want a permanent error naming %s", err, llm.SettingMaxResponse)
	}
	var tl *llm.TooLargeError
	if !errors.As(err, &tl) || tl.Limit != limit {
		t.Errorf("err = %v, want a *llm.TooLargeError of limit %d", err, limit)
	}
	if alloc := int64(after.TotalAlloc - before.TotalAlloc); alloc > maxAlloc {
		t.Errorf("the call allocated %d MiB, want under %d MiB", alloc>>20, maxAlloc>>20)
	}
}

// PayloadSize is the tool argument of the attacks: 100 MiB, which once
// took a daemon to 3 GB.
const PayloadSize = 100 << 20

// RunHugeCases serves each reply to one call of the provider newProvider
// makes for the server's URL (with the default [llm] max_response) and
// checks it failed with CheckTooLarge, allocating less than 32 MiB, and
// that the server could not write the whole payload.
func RunHugeCases(t *testing.T, cases []HugeReply, newProvider func(t *testing.T, url string) llm.Provider) {
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			s := NewHuge(t, c)
			CheckTooLarge(t, newProvider(t, s.URL), llm.DefaultMaxResponse, 32<<20)
			s.CloseClientConnections()
			if w := s.Written(); w >= c.Size && !c.Gzip { // a compressed body is all on the wire at once
				t.Errorf("the server wrote all %d bytes: the client read them", w)
			}
		})
	}
}
