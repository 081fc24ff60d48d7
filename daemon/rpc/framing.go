package rpc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// DefaultMaxFrame caps the size of one message a daemon reads: a frame
// declaring more is skipped unread and answered with an error. (jsonrpc2's
// own header framer caps a declared Content-Length at 1 GiB.)
const DefaultMaxFrame = 64 << 20

// maxHeader caps a frame's header block; a longer one ends the connection.
const maxHeader = 4 << 10

// writeTimeout bounds the write of one message to a client: a client that
// stops reading its socket for that long is disconnected.
const writeTimeout = 30 * time.Second

// frameStream is the daemon's jsonrpc2.Stream: LSP header framing, with
// what jsonrpc2's own framer lacks for a server that must keep serving.
//
//   - A frame declaring more than max bytes is skipped without reading it
//     into memory and answered with an "invalid request" error; a header
//     block over maxHeader bytes, or one that does not parse, is answered
//     with a parse error and ends the connection (the stream cannot be
//     resynchronised).
//   - A frame that is not one well-formed JSON-RPC message (malformed
//     JSON, a batch, a message of no kind) is answered with a parse or
//     invalid-request error instead of ending the connection.
//   - stop answers the calls already read and reads no more, so a shutdown
//     loses no reply: jsonrpc2 writes no response once its read loop ended.
//   - With idle > 0, a connection with no call in flight and no
//     subscription (keepAlive) that sends nothing for idle is told so and
//     ended, and a message must arrive whole within idle of its first
//     byte: the read deadline is set whenever the connection turns idle
//     and cleared when a call is read.
type frameStream struct {
	nc   net.Conn
	in   *bufio.Reader
	max  int
	log  *slog.Logger
	idle time.Duration
	rbuf []byte

	wmu  sync.Mutex
	wbuf []byte

	mu         sync.Mutex
	cond       sync.Cond
	pending    int  // calls read and not answered yet
	stopping   bool // stop was called
	broken     bool // a write failed: no more answers will be written
	subscribed bool // keepAlive was called
}

// newFrameStream makes the stream of connection nc; idle 0 means no idle
// timeout.
func newFrameStream(nc net.Conn, max int, log *slog.Logger, idle time.Duration) *frameStream {
	s := &frameStream{nc: nc, in: bufio.NewReaderSize(nc, 64<<10), max: max, log: log, idle: idle}
	s.cond.L = &s.mu
	return s
}

// errIdle: no message began within the idle timeout.
var errIdle = errors.New("idle connection")

// keepAlive exempts the connection from the idle timeout.
func (s *frameStream) keepAlive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subscribed = true
	s.setDeadlineLocked()
}

// setDeadlineLocked sets the read deadline for the wait for the next
// message: idle from now if the connection is idle, none otherwise (and
// leaves stop's deadline alone). s.mu is held.
func (s *frameStream) setDeadlineLocked() {
	switch {
	case s.stopping || s.idle <= 0:
	case s.pending == 0 && !s.subscribed:
		s.nc.SetReadDeadline(time.Now().Add(s.idle))
	default:
		s.nc.SetReadDeadline(time.Time{})
	}
}

// beginFrame waits for the first byte of a message (errIdle when the
// deadline set for an idle connection passes first), then gives the rest
// of the message idle to arrive.
func (s *frameStream) beginFrame() error {
	if _, err := s.in.Peek(1); err != nil {
		if s.idle > 0 && errors.Is(err, os.ErrDeadlineExceeded) {
			return errIdle
		}
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopping && s.idle > 0 {
		s.nc.SetReadDeadline(time.Now().Add(s.idle))
	}
	return nil
}

// frameError is a bad frame: answered with Err, then the stream goes on
// unless fatal.
type frameError struct {
	err   *jsonrpc2.Error
	fatal bool
}

func (e *frameError) Error() string { return e.err.Error() }

// stop makes the stream end (io.EOF) once the calls already read are
// answered, interrupting a read in progress.
func (s *frameStream) stop() {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	s.nc.SetReadDeadline(time.Now())
}

// drained waits until every call read was answered (or cannot be) when
// stopping, and reports whether the stream is stopping.
func (s *frameStream) drained() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopping {
		return false
	}
	for s.pending > 0 && !s.broken {
		s.cond.Wait()
	}
	return true
}

// ReadFrame returns the body of the next well-formed message (valid until
// the next call); bad frames are answered and skipped.
func (s *frameStream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	if cap(s.rbuf) > 1<<20 {
		s.rbuf = nil // do not keep a large frame's buffer for the connection's life
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		if s.drained() {
			return nil, 0, io.EOF
		}
		s.mu.Lock()
		s.setDeadlineLocked()
		s.mu.Unlock()
		body, n, err := s.readFrame()
		if err != nil {
			if s.drained() {
				return nil, 0, io.EOF
			}
			if errors.Is(err, errIdle) {
				s.log.Info("closing an idle client connection", "idle", s.idle)
				s.reject(ctx, jsonrpc2.Errorf(codeIdle, "the daemon closes connections that have no call in flight and no subscription for %v (daemon.conn_idle_timeout); connect again", s.idle))
				return nil, 0, io.EOF
			}
			if s.idle > 0 && errors.Is(err, os.ErrDeadlineExceeded) {
				err = &frameError{jsonrpc2.Errorf(jsonrpc2.ParseError, "message not received whole within %v", s.idle), true}
			}
			var fe *frameError
			if !errors.As(err, &fe) {
				return nil, 0, err
			}
			s.log.Info("bad message from client", "err", fe.err.Message)
			s.reject(ctx, fe.err)
			if fe.fatal {
				return nil, 0, err
			}
			continue
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			var we *jsonrpc2.Error
			if !errors.As(err, &we) {
				we = jsonrpc2.NewError(jsonrpc2.ParseError, err.Error())
			}
			if bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
				we = jsonrpc2.NewError(jsonrpc2.InvalidRequest, "batches are not supported: send one message per frame")
			}
			s.log.Info("bad message from client", "err", we.Message)
			s.reject(ctx, we)
			continue
		}
		if _, ok := msg.(*jsonrpc2.Call); ok {
			s.mu.Lock()
			s.pending++
			s.setDeadlineLocked() // a call in flight: not idle
			s.mu.Unlock()
		}
		return body, n, nil
	}
}

// readFrame reads one header block and its body.
func (s *frameStream) readFrame() ([]byte, int64, error) {
	if err := s.beginFrame(); err != nil {
		return nil, 0, err
	}
	length, seen, header := -1, false, 0
	for {
		line, err := s.in.ReadSlice('\n')
		header += len(line)
		if err == bufio.ErrBufferFull || header > maxHeader {
			return nil, 0, &frameError{jsonrpc2.Errorf(jsonrpc2.ParseError, "message header longer than %d bytes", maxHeader), true}
		}
		if err != nil {
			if err == io.EOF && header > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, 0, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if !seen {
				return nil, 0, &frameError{jsonrpc2.NewError(jsonrpc2.ParseError, "message header without Content-Length"), true}
			}
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return nil, 0, &frameError{jsonrpc2.Errorf(jsonrpc2.ParseError, "malformed message header line %q", line), true}
		}
		if bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
			if err != nil || n <= 0 {
				return nil, 0, &frameError{jsonrpc2.Errorf(jsonrpc2.ParseError, "bad Content-Length %q", value), true}
			}
			length, seen = int(min(n, 1<<62)), true
		}
	}
	if length > s.max {
		if _, err := io.CopyN(io.Discard, s.in, int64(length)); err != nil {
			return nil, 0, err
		}
		return nil, 0, &frameError{jsonrpc2.Errorf(jsonrpc2.InvalidRequest,
			"message of %d bytes is larger than the daemon's limit of %d bytes", length, s.max), false}
	}
	if cap(s.rbuf) < length {
		s.rbuf = make([]byte, length)
	}
	body := s.rbuf[:length]
	if _, err := io.ReadFull(s.in, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, 0, err
	}
	return body, int64(header + length), nil
}

// reject answers a bad frame with err (the id is unknown: null).
func (s *frameStream) reject(ctx context.Context, err *jsonrpc2.Error) {
	s.Write(ctx, jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, err))
}

// Read implements jsonrpc2.Stream (jsonrpc2 uses ReadFrame).
func (s *frameStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	body, n, err := s.ReadFrame(ctx)
	if err != nil {
		return nil, 0, err
	}
	msg, err := jsonrpc2.DecodeMessage(body)
	return msg, n, err
}

var responsePrefix = []byte(`{"jsonrpc":"2.0","id":`)

// Write implements jsonrpc2.Stream: one write per message.
func (s *frameStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.wbuf = jsonrpc2.AppendMessage(s.wbuf[:0], msg)
	body := s.wbuf
	// A response with an id answers a call read by ReadFrame.
	answer := bytes.HasPrefix(body, responsePrefix) && !bytes.HasPrefix(body[len(responsePrefix):], []byte("null"))
	n, err := s.writeLocked(body)
	if answer || err != nil {
		s.mu.Lock()
		if answer {
			s.pending--
			s.setDeadlineLocked() // idle from now on, if that was the last call
		}
		if err != nil {
			s.broken = true
		}
		s.cond.Broadcast()
		s.mu.Unlock()
	}
	return n, err
}

// WriteFrame implements jsonrpc2's raw frame writing (for batch replies,
// which this stream never reads).
func (s *frameStream) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.writeLocked(data)
}

func (s *frameStream) writeLocked(body []byte) (int64, error) {
	header := make([]byte, 0, 32)
	header = append(header, "Content-Length: "...)
	header = strconv.AppendInt(header, int64(len(body)), 10)
	header = append(header, "\r\n\r\n"...)
	s.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	bufs := net.Buffers{header, body} // one writev
	n, err := bufs.WriteTo(s.nc)
	if cap(s.wbuf) > 1<<20 {
		s.wbuf = nil // do not keep a large message's buffer for the connection's life
	}
	return n, err
}

func (s *frameStream) Close() error { return s.nc.Close() }
