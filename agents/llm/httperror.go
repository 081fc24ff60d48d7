package llm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/lunad/lunad"
)

// The helpers below are shared by the HTTP providers (openai, anthropic).

// TransportError classifies a failed HTTP call that has no error status:
// a cancelled context (Transient, wrapping context.Canceled), a timeout
// (Transient, Setting "[llm] timeout"), a 2xx answer whose body could not
// be decoded (Permanent, Setting "[llm] base_url"), a connection failure
// (Transient, Setting "[llm] base_url"), anything else Permanent. The
// secrets (the key, the base URL's: Secrets) are redacted from the quoted
// cause, and so is the query of a URL it quotes.
func TransportError(provider string, err error, status int, secrets []string, timeout time.Duration) *Error {
	var netErr net.Error
	msg := err.Error()
	var urlErr *url.Error
	if errors.As(err, &urlErr) && urlErr.URL != "" {
		msg = strings.ReplaceAll(msg, urlErr.URL, lunad.RedactURL(urlErr.URL))
	}
	switch {
	case errors.Is(err, context.Canceled):
		return &Error{Provider: provider, Kind: Transient, Err: context.Canceled}
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		return &Error{Provider: provider, Kind: Transient, Setting: "[llm] timeout",
			Err: fmt.Errorf("no answer within %s: %w", timeout, context.DeadlineExceeded)}
	case status >= 200 && status < 300:
		return &Error{Provider: provider, Kind: Permanent, Status: status, Setting: "[llm] base_url",
			Err: fmt.Errorf("invalid response body (does the base URL serve this provider's API?): %s", Quote(msg, secrets...))}
	case errors.As(err, &netErr):
		return &Error{Provider: provider, Kind: Transient, Setting: "[llm] base_url",
			Err: fmt.Errorf("cannot reach the server: %s", Quote(msg, secrets...))}
	}
	return &Error{Provider: provider, Kind: Permanent, Status: status, Err: errors.New(Quote(msg, secrets...))}
}

// RetryAfterHeader reads Retry-After-Ms (OpenAI's), then Retry-After.
func RetryAfterHeader(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if ms := h.Get("Retry-After-Ms"); ms != "" {
		if d := ParseRetryAfter(ms, now); d > 0 {
			return d / 1000
		}
	}
	return ParseRetryAfter(h.Get("Retry-After"), now)
}

// Quote redacts the secrets from a message quoted from a server and
// bounds it to 300 bytes.
func Quote(s string, secrets ...string) string {
	s = strings.TrimSpace(Redact(s, secrets...))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// LastResponse keeps the status and header of the last HTTP answer of a
// call, seen through an SDK's middleware (both SDKs turn a non-JSON error
// body into a decoding error that hides the status). Safe for concurrent
// use.
type LastResponse struct {
	mu     sync.Mutex
	status int
	header http.Header
}

// Middleware passes r on and keeps the answer's status and header.
func (l *LastResponse) Middleware(r *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	res, err := next(r)
	if res != nil {
		l.mu.Lock()
		l.status, l.header = res.StatusCode, res.Header.Clone()
		l.mu.Unlock()
	}
	return res, err
}

// Get returns the last status (0 if none) and header.
func (l *LastResponse) Get() (int, http.Header) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.status, l.header
}

// Failure classifies a failed SDK call: an answer over the limit of
// LimitTransport is TooLarge; an HTTP error status (the SDK's apiStatus,
// else the last one seen) is a StatusError quoting apiMessage; anything
// else a TransportError. A *StreamError is Permanent, naming the base
// URL. The secrets are redacted from what is quoted;
// keyEnv is the setting an Auth error names.
func (l *LastResponse) Failure(provider string, err error, apiStatus int, apiMessage string, secrets []string, keyEnv string, timeout time.Duration, now time.Time) *Error {
	if e := AsTooLarge(provider, err); e != nil {
		return e
	}
	if se := (*StreamError)(nil); errors.As(err, &se) {
		return &Error{Provider: provider, Kind: Permanent, Setting: "[llm] base_url", Err: errors.New(Redact(se.Why, secrets...))}
	}
	status, header := l.Get()
	if apiStatus != 0 {
		status = apiStatus
	}
	if status >= 400 {
		return StatusError(provider, status, RetryAfterHeader(header, now), keyEnv, Quote(apiMessage, secrets...))
	}
	return TransportError(provider, err, status, secrets, timeout)
}

// Secrets are what a provider redacts from every message it quotes: the
// API key and the secrets of its base URL (lunad.URLSecrets).
func Secrets(key, baseURL string) []string {
	out := lunad.URLSecrets(baseURL)
	if key != "" {
		out = append(out, key)
	}
	return out
}
