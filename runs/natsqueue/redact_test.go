package natsqueue

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// recordsTo is a slog handler that sends each record's text, with its
// attributes, to a channel.
type recordsTo struct {
	ch    chan<- string
	attrs []slog.Attr
}

func (h recordsTo) Enabled(context.Context, slog.Level) bool { return true }
func (h recordsTo) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	for _, a := range h.attrs {
		b.WriteString(" " + a.String())
	}
	r.Attrs(func(a slog.Attr) bool { b.WriteString(" " + a.String()); return true })
	select {
	case h.ch <- b.String():
	default:
	}
	return nil
}
func (h recordsTo) WithAttrs(as []slog.Attr) slog.Handler {
	return recordsTo{ch: h.ch, attrs: append(append([]slog.Attr(nil), h.attrs...), as...)}
}
func (h recordsTo) WithGroup(string) slog.Handler { return h }

// TestQueueURLSecretsHidden attacks the queue's logs and errors with a
// server that takes a token written as the URL's user, and a password:
// neither may reach a log line or an error.
func TestQueueURLSecretsHidden(t *testing.T) {
	const token = "tok-SECRET-0123456789"
	ts := startServer(t)
	ts.stop()
	ts.opts.Authorization = token
	ts.start()
	withToken := strings.Replace(ts.url, "nats://", "nats://"+token+"@", 1)
	k := newKeys(t)

	t.Run("error", func(t *testing.T) {
		const password = "pw-SECRET-0123456789"
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := Open(ctx, strings.Replace(ts.url, "nats://", "nats://user:"+password+"@", 1)+", "+withToken+"x", k.daemon(Options{Logger: slog.New(recordsTo{ch: make(chan string)})}))
		if err == nil || strings.Contains(err.Error(), password) || strings.Contains(err.Error(), token) {
			t.Fatalf("err = %v, want an error without the password or the token", err)
		}
	})
	t.Run("log", func(t *testing.T) {
		lines := make(chan string, 16)
		openQueue(t, withToken, k.daemon(Options{Logger: slog.New(recordsTo{ch: lines})}))
		ts.stop()
		deadline := time.After(20 * time.Second)
		for {
			select {
			case l := <-lines:
				if strings.Contains(l, token) {
					t.Fatalf("a log line holds the token: %s", l)
				}
				if strings.Contains(l, "disconnected") {
					if !strings.Contains(l, "queue=nats://REDACTED@") {
						t.Errorf("the line does not name the queue redacted: %s", l)
					}
					return
				}
			case <-deadline:
				t.Fatal("no disconnection was logged")
			}
		}
	})
}
