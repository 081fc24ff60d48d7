package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.lsp.dev/jsonrpc2"
)

// MaxFrame caps the size of one message body: a Content-Length above it
// ends the connection before the body is read or any memory for it is
// allocated. It is larger than any artifact lunad accepts (8 MiB by
// default) even with JSON escaping.
const MaxFrame = 64 << 20

// guard wraps the client's stream and watches the LSP headers going by:
// a Content-Length over max (or unparsable) fails the read, so the framer
// never sees the header that would make it allocate the body.
type guard struct {
	io.ReadWriteCloser
	max    int64
	line   []byte // the header line read so far
	body   int64  // body bytes still to pass through
	length int64  // Content-Length of the current header block
}

func guarded(rwc io.ReadWriteCloser, max int64) *guard { return &guard{ReadWriteCloser: rwc, max: max} }

func (g *guard) Read(p []byte) (int, error) {
	n, err := g.ReadWriteCloser.Read(p)
	for i := 0; i < n; {
		if g.body > 0 {
			k := int64(n - i)
			if k > g.body {
				k = g.body
			}
			g.body -= k
			i += int(k)
			continue
		}
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			g.line = append(g.line, p[i:n]...)
			if len(g.line) > 4096 {
				return 0, fmt.Errorf("lsp: header line longer than 4096 bytes")
			}
			break
		}
		g.line = append(g.line, p[i:i+j]...)
		i += j + 1
		line := strings.TrimSpace(string(g.line))
		g.line = g.line[:0]
		if line == "" { // end of headers: the body follows
			g.body, g.length = g.length, 0
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			v, perr := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if perr != nil || v < 0 {
				return 0, fmt.Errorf("lsp: bad Content-Length %q", value)
			}
			if v > g.max {
				return 0, fmt.Errorf("lsp: message of %d bytes is over the %d-byte cap (MaxFrame); refusing it", v, g.max)
			}
			g.length = v
		}
	}
	return n, err
}

// tolerant keeps a session alive across a message that is not valid JSON
// or not a JSON-RPC message: it answers it with a parse or invalid-request
// error (id null, as JSON-RPC asks) and reads on — the header framing has
// already moved past the bad body. jsonrpc2's connection would otherwise
// end on it.
type tolerant struct{ jsonrpc2.Stream }

func (t tolerant) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		msg, n, err := t.Stream.Read(ctx)
		if err == nil || !errors.Is(err, jsonrpc2.ErrParse) && !errors.Is(err, jsonrpc2.ErrInvalidRequest) {
			return msg, n, err
		}
		if _, werr := t.Stream.Write(ctx, jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, err)); werr != nil {
			return nil, 0, werr
		}
	}
}
