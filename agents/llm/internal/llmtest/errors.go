package llmtest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad/agents/llm"
)

// ErrorCase is one HTTP failure and the *llm.Error it must become.
type ErrorCase struct {
	Name     string
	Reply    Reply
	Kind     llm.ErrorKind
	Status   int
	Setting  string
	RetryIn  time.Duration // the error's RetryAfter
	Contains string        // in the error's text
}

// RunErrorCases serves each case's reply to one call of the provider
// newProvider makes over the case's server, and checks the error: its
// fields, its text, that it does not contain secret, and that the SDK
// made exactly one request (its own retries are off).
func RunErrorCases(t *testing.T, cases []ErrorCase, secret string, newProvider func(*testing.T, *Server) llm.Provider) {
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			s := New(t, c.Reply)
			_, err := newProvider(t, s).Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), want *llm.Error", err, err)
			}
			if e.Kind != c.Kind || e.Status != c.Status || e.Setting != c.Setting || e.RetryAfter != c.RetryIn {
				t.Errorf("got kind %s status %d setting %q retry-after %s; want %s %d %q %s (%v)",
					e.Kind, e.Status, e.Setting, e.RetryAfter, c.Kind, c.Status, c.Setting, c.RetryIn, err)
			}
			if !strings.Contains(err.Error(), c.Contains) {
				t.Errorf("error %q does not contain %q", err, c.Contains)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("the key leaked into the error: %s", err)
			}
			if s.Count() != 1 {
				t.Errorf("the SDK made %d requests, want 1 (its retries must be off)", s.Count())
			}
		})
	}
}
