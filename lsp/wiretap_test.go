package lsp

import (
	"bytes"
	"net"
	"strconv"
)

// wireTap is the client's end of the connection, handing frame the body
// of each message read from the server, in order.
type wireTap struct {
	net.Conn
	frame func(body []byte)
	buf   []byte
}

func (w *wireTap) Read(p []byte) (int, error) {
	n, err := w.Conn.Read(p)
	w.buf = append(w.buf, p[:n]...)
	for {
		head, rest, ok := bytes.Cut(w.buf, []byte("\r\n\r\n"))
		if !ok {
			break
		}
		size := -1
		for _, line := range bytes.Split(head, []byte("\r\n")) {
			if v, ok := bytes.CutPrefix(line, []byte("Content-Length: ")); ok {
				size, _ = strconv.Atoi(string(v))
			}
		}
		if size < 0 || len(rest) < size {
			break
		}
		w.frame(bytes.Clone(rest[:size]))
		w.buf = rest[size:]
	}
	return n, err
}
