package llm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lunad/lunad/agents/llm"
)

// TestEachEvent: the data of each event, in order, its lines joined;
// names, ids and comments skipped; the stream's end stops the reading;
// an event over the limit is refused before it is held whole.
func TestEachEvent(t *testing.T) {
	for _, c := range []struct {
		name, stream string
		limit        int64
		want         []string
		err          string
	}{
		{"openai chunks", "data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\ndata: {\"after\":3}\n\n", 64, []string{`{"a":1}`, `{"b":2}`, "[DONE]"}, ""},
		{"anthropic events", "event: message_start\ndata: {\"type\":\"message_start\"}\n\nevent: ping\ndata: {\"type\":\"ping\"}\n\n", 64, []string{`{"type":"message_start"}`, `{"type":"ping"}`}, ""},
		{"comments, ids, no space after the colon", ": keep-alive\nid: 7\ndata:{\"x\":1}\n\n", 64, []string{`{"x":1}`}, ""},
		{"an event of several lines", "data: {\"x\":\ndata: 1}\n\n", 64, []string{"{\"x\":\n1}"}, ""},
		{"the last event without its blank line", "data: 1\n\ndata: 2", 64, []string{"1", "2"}, ""},
		{"CRLF line ends", "data: 1\r\n\r\ndata: 2\r\n\r\n", 64, []string{"1", "2"}, ""},
		{"one line over the limit", "data: " + strings.Repeat("a", 100) + "\n\n", 64, nil, "larger than 64B"},
		{"an event of short lines over the limit", strings.Repeat("data: aaaaaaaaaa\n", 10) + "\n", 64, nil, "larger than 64B"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			err := llm.EachEvent(strings.NewReader(c.stream), c.limit, func(d []byte) error {
				got = append(got, string(d))
				if string(d) == "[DONE]" {
					return llm.EndOfStream
				}
				return nil
			})
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("err = %v", err)
			case c.err != "":
				var tl *llm.TooLargeError
				if !errors.As(err, &tl) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want a *TooLargeError saying %q", err, c.err)
				}
				return
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("events %q, want %q", got, c.want)
			}
		})
	}
}

// FuzzEachEvent: any stream reads without panicking, and no event handed
// on is longer than the limit.
func FuzzEachEvent(f *testing.F) {
	f.Add("data: {\"a\":1}\n\ndata: [DONE]\n\n")
	f.Add("event: x\ndata: 1\ndata: 2\n\n: c\n\ndata:")
	f.Fuzz(func(t *testing.T, stream string) {
		const limit = 32
		llm.EachEvent(strings.NewReader(stream), limit, func(d []byte) error {
			if len(d) > limit {
				t.Fatalf("an event of %d bytes over the limit %d", len(d), limit)
			}
			return nil
		})
	})
}
