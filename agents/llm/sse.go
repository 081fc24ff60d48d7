package llm

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
)

// StreamError is an answer sent as Server-Sent Events that does not add
// up to an answer: an event that does not decode, a delta out of order,
// the server's error event.
type StreamError struct{ Why string }

func (e *StreamError) Error() string { return e.Why }

// EndOfStream is what EachEvent's fn returns at the stream's last event
// ("data: [DONE]", message_stop): what follows is not read.
var EndOfStream = errors.New("end of the stream")

// EachEvent calls fn with the data of each event of the Server-Sent Events
// stream r, in order (the "data:" lines of an event joined by "\n"; event
// names, ids and comments are skipped), until r ends or fn returns
// EndOfStream. No event may hold more than limit bytes: a longer one is a
// *TooLargeError. Any other error of fn is returned as it is.
func EachEvent(r io.Reader, limit int64, fn func(data []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), int(min(limit, 1<<30)))
	var data []byte
	have := false
	dispatch := func() error {
		if !have {
			return nil
		}
		d := data
		data, have = data[:0:0], false
		return fn(d)
	}
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if err := dispatch(); err != nil {
				if err == EndOfStream {
					return nil
				}
				return err
			}
			continue
		}
		v, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		v = bytes.TrimPrefix(v, []byte(" "))
		if have {
			data = append(data, '\n')
		}
		if int64(len(data)+len(v)) > limit {
			return &TooLargeError{Limit: limit}
		}
		data, have = append(data, v...), true
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &TooLargeError{Limit: limit}
		}
		return err
	}
	if err := dispatch(); err != EndOfStream {
		return err
	}
	return nil
}

// AssembleStreams is an SDK middleware for an answer a server sends as
// Server-Sent Events though it was not asked to stream: a 200 whose
// Content-Type is text/event-stream is replaced by the one JSON answer
// assemble makes of its body, so that it is read as any other answer —
// its stop reason first. The body stays bounded by the transport
// (LimitTransport); assemble's error (a *StreamError, a *TooLargeError)
// fails the call.
func AssembleStreams(assemble func(io.Reader) ([]byte, error)) func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	return func(r *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		res, err := next(r)
		if err != nil || res == nil || res.StatusCode != http.StatusOK {
			return res, err
		}
		if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt != "text/event-stream" {
			return res, nil
		}
		defer res.Body.Close()
		body, err := assemble(res.Body)
		if err != nil {
			return nil, err
		}
		res.Body = io.NopCloser(bytes.NewReader(body))
		res.ContentLength = int64(len(body))
		res.Header.Set("Content-Type", "application/json")
		res.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return res, nil
	}
}
