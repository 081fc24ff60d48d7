package llm

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrorKind says whether a failed call may be retried.
type ErrorKind string

// The kinds of failure.
const (
	Transient ErrorKind = "transient" // 429, 5xx, timeouts, connection refused: retried
	Permanent ErrorKind = "permanent" // 400, 404, a bad response: not retried
	Auth      ErrorKind = "auth"      // 401, 403: never retried; Setting names the env var holding the key
)

// Error is a failed call. Setting names the configuration key or
// environment variable to fix ("[llm] base_url", "[llm] model",
// "OPENAI_API_KEY") when one is to blame. RetryAfter is the server's
// Retry-After, if any. It never contains an API key or a secret of the
// base URL's: providers redact them (Secrets, Quote) from everything they
// quote.
type Error struct {
	Provider   string
	Kind       ErrorKind
	Status     int // HTTP status, 0 if none
	Setting    string
	RetryAfter time.Duration
	Err        error
}

// Error words the failure with what to do.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	if e.Status != 0 {
		fmt.Fprintf(&b, ": HTTP %d %s", e.Status, http.StatusText(e.Status))
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	switch {
	case e.Kind == Auth && e.Setting != "":
		fmt.Fprintf(&b, " (the API key was refused: check the key in the environment variable %s; [llm] api_key_env or LUNAD_LLM_API_KEY_ENV names the variable)", e.Setting)
	case e.Kind == Auth:
		b.WriteString(" (the API key was refused)")
	case e.Setting != "":
		fmt.Fprintf(&b, " (check %s)", e.Setting)
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether err is a Transient *Error.
func Retryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == Transient
}

// KindOf returns the Kind of err's *Error, Permanent if it has none.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Permanent
}

// StatusError classifies an HTTP error answer of an API: 401 and 403 are
// Auth (Setting keyEnv), 408, 409, 425, 429 and 5xx Transient (with
// retryAfter), 404 Permanent naming modelSetting (an unknown model or a
// wrong base URL), anything else Permanent. message is the API's own
// error text, already redacted.
func StatusError(provider string, status int, retryAfter time.Duration, keyEnv, message string) *Error {
	e := &Error{Provider: provider, Status: status}
	if message != "" {
		e.Err = errors.New(message)
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind, e.Setting = Auth, keyEnv
	case status == http.StatusRequestTimeout, status == http.StatusConflict, status == http.StatusTooEarly,
		status == http.StatusTooManyRequests, status >= 500:
		e.Kind, e.RetryAfter = Transient, retryAfter
	case status == http.StatusNotFound:
		e.Kind, e.Setting = Permanent, "[llm] model and [llm] base_url"
	default:
		e.Kind = Permanent
	}
	return e
}

// ParseRetryAfter reads a Retry-After header value: delay-seconds or an
// HTTP date (relative to now). It returns 0 for an absent, malformed or
// past value.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		if n <= 0 || n > 1e6 {
			return 0
		}
		return time.Duration(n * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Redact replaces every occurrence of each secret in s. An empty secret
// changes nothing.
func Redact(s string, secrets ...string) string {
	for _, secret := range secrets {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "[REDACTED]")
		}
	}
	return s
}

// CutError is an answer the model did not finish: the server stopped it
// at max_tokens (OpenAI's finish_reason "length", Anthropic's stop_reason
// "max_tokens"). Whatever it holds — text, JSON, a tool call's arguments —
// is a prefix, never to be taken as a whole answer.
type CutError struct{ MaxTokens int }

func (e *CutError) Error() string {
	return fmt.Sprintf("the model's answer was cut at max_tokens (%d): raise %s", e.MaxTokens, SettingMaxTokens)
}

// Cut is the Permanent *Error of provider's answer cut at maxTokens:
// asked again, the model would be cut again. Its text reads "openai: the
// model's answer was cut at max_tokens (4096): raise [llm] max_tokens".
func Cut(provider string, maxTokens int) *Error {
	return &Error{Provider: provider, Kind: Permanent, Err: &CutError{MaxTokens: maxTokens}}
}
