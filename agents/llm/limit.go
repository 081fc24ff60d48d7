package llm

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/lunad/lunad"
)

// The bounds of [llm] max_response: what is read of one model answer.
const (
	// DefaultMaxResponse is a few times the largest answer lunad's agents
	// ask for (max_tokens of 32k tokens is about 128 KiB of text, tool
	// arguments holding a whole artifact up to a few MiB).
	DefaultMaxResponse = 4 << 20
	MinMaxResponse     = lunad.ByteSize(64 << 10)
	MaxMaxResponse     = lunad.ByteSize(1 << 30)
)

// SettingMaxResponse is the setting a too large answer names.
const SettingMaxResponse = "[llm] max_response"

// ResponseLimit is MaxResponse, or DefaultMaxResponse when unset.
func (c Config) ResponseLimit() int64 {
	if c.MaxResponse > 0 {
		return int64(c.MaxResponse)
	}
	return DefaultMaxResponse
}

// TooLargeError is an answer that is larger than what a provider reads.
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the answer is larger than %s, the most lunad reads of one model answer", lunad.ByteSize(e.Limit))
}

// TooLarge is the Permanent *Error of provider's answer over limit
// bytes, naming SettingMaxResponse, the setting that raises the limit:
// retried, the same answer would come again. Its text reads "openai: the
// answer is larger than 4MiB, the most lunad reads of one model answer
// (check [llm] max_response)".
func TooLarge(provider string, limit int64) *Error {
	return &Error{Provider: provider, Kind: Permanent, Setting: SettingMaxResponse, Err: &TooLargeError{Limit: limit}}
}

// LimitTransport bounds the body of every response next returns to limit
// bytes: a read past it fails with a *TooLargeError, and so does the
// first read of a body whose Content-Length is larger, so that an SDK
// above it never holds more than limit bytes of an answer, whether it
// decodes it whole or as a stream. A nil next is http.DefaultTransport.
func LimitTransport(next http.RoundTripper, limit int64) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return limitTransport{next: next, limit: limit}
}

type limitTransport struct {
	next  http.RoundTripper
	limit int64
}

func (t limitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := t.next.RoundTrip(r)
	if err != nil || res == nil || res.Body == nil {
		return res, err
	}
	res.Body = &limitedBody{rc: res.Body, left: t.limit, limit: t.limit, over: res.ContentLength > t.limit}
	return res, nil
}

// limitedBody passes at most limit bytes of rc on.
type limitedBody struct {
	rc          io.ReadCloser
	left, limit int64
	over        bool
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.over {
		return 0, &TooLargeError{Limit: b.limit}
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1] // one byte more than allowed tells an overflow from the end
	}
	n, err := b.rc.Read(p)
	if int64(n) > b.left {
		n, b.left, b.over = int(b.left), 0, true
		return n, &TooLargeError{Limit: b.limit}
	}
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// AsTooLarge returns the Permanent *Error of err if a *TooLargeError is
// its cause, else nil.
func AsTooLarge(provider string, err error) *Error {
	var tl *TooLargeError
	if errors.As(err, &tl) {
		return TooLarge(provider, tl.Limit)
	}
	return nil
}
