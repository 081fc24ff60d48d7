package llm_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/lunad/lunad/agents/llm"
)

// TestLimitTransport reads bodies around the limit through a real HTTP
// server, with and without a Content-Length.
func TestLimitTransport(t *testing.T) {
	const limit = 1000
	for _, c := range []struct {
		name   string
		size   int
		length bool
		ok     bool
	}{
		{"under", limit - 1, false, true},
		{"exactly", limit, true, true},
		{"exactly chunked", limit, false, true},
		{"one over", limit + 1, false, false},
		{"one over with length", limit + 1, true, false},
		{"far over", 50 * limit, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if c.length {
					w.Header().Set("Content-Length", strconv.Itoa(c.size))
				}
				io.WriteString(w, strings.Repeat("x", c.size))
			}))
			defer s.Close()
			client := &http.Client{Transport: llm.LimitTransport(nil, limit)}
			res, err := client.Get(s.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			body, err := io.ReadAll(res.Body)
			var tl *llm.TooLargeError
			switch {
			case c.ok && (err != nil || len(body) != c.size):
				t.Fatalf("read %d bytes, %v; want %d", len(body), err, c.size)
			case !c.ok && (!errors.As(err, &tl) || tl.Limit != limit):
				t.Fatalf("err = %v, want a *TooLargeError of limit %d", err, limit)
			case !c.ok && len(body) > limit:
				t.Fatalf("read %d bytes past the limit", len(body))
			case !c.ok && c.length && len(body) != 0:
				t.Fatalf("read %d bytes of a body whose length says it is too large", len(body))
			}
		})
	}
}

// TestTransportErrorHidesURLSecrets: a connection failure quotes the
// request's URL; its query and the base URL's secrets never reach the
// error.
func TestTransportErrorHidesURLSecrets(t *testing.T) {
	const base = "http://127.0.0.1:1/v1?api-version=2024-02-01&api-key=QUERYSECRET42"
	_, err := http.Get(base + "&sig=OTHERSECRET42")
	if err == nil {
		t.Fatal("no error from a closed port")
	}
	e := llm.TransportError("openai", err, 0, llm.Secrets("sk-KEY", base), 0)
	for _, s := range []string{"QUERYSECRET42", "OTHERSECRET42"} {
		if strings.Contains(e.Error(), s) {
			t.Errorf("the error holds %s: %v", s, e)
		}
	}
	if !strings.Contains(e.Error(), "api-key=REDACTED") {
		t.Errorf("the error does not show the redacted URL: %v", e)
	}
	if q := llm.Quote("bad key QUERYSECRET42 and sk-KEY", llm.Secrets("sk-KEY", base)...); strings.Contains(q, "SECRET") || strings.Contains(q, "sk-KEY") {
		t.Errorf("Quote = %q", q)
	}
}
