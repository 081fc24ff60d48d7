package sandbox

import (
	"errors"
	"io"
	"os"
	"strconv"
	"unicode/utf8"
)

// capture keeps the head and the tail of a stream in a fixed amount of
// memory however much is written: the first head bytes, and a ring of the
// last tail bytes of what came after them.
type capture struct {
	head  []byte // up to cap(head) bytes
	ring  []byte // len(ring) == tail size; the last bytes after head
	pos   int    // next write position in ring
	full  bool   // ring has wrapped
	total int64
}

func newCapture(limit int) *capture {
	h := limit / 2
	return &capture{head: make([]byte, 0, h), ring: make([]byte, limit-h)}
}

// Write never fails: what does not fit is counted and dropped.
func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	if room := cap(c.head) - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(c.ring) == 0 || len(p) == 0 {
		return n, nil
	}
	if len(p) >= len(c.ring) {
		copy(c.ring, p[len(p)-len(c.ring):])
		c.pos, c.full = 0, true
		return n, nil
	}
	k := copy(c.ring[c.pos:], p)
	if k < len(p) {
		copy(c.ring, p[k:])
		c.full = true
	}
	c.pos = (c.pos + len(p)) % len(c.ring)
	if c.pos == 0 && len(p) > 0 {
		c.full = true
	}
	return n, nil
}

// tail is what the ring holds, oldest byte first.
func (c *capture) tail() []byte {
	if !c.full {
		return c.ring[:c.pos]
	}
	out := make([]byte, 0, len(c.ring))
	out = append(out, c.ring[c.pos:]...)
	return append(out, c.ring[:c.pos]...)
}

// Output is the captured stream: all of it when it fit, else its head and
// tail around a line saying how many bytes were cut between them. The cut
// falls on character boundaries: a character split by it is cut whole.
func (c *capture) Output() Output {
	head, tail := c.head, c.tail()
	kept := int64(len(head) + len(tail))
	if kept == c.total {
		return Output{Text: string(head) + string(tail), Total: c.total}
	}
	head = head[:len(head)-partialRuneSuffix(head)]
	tail = tail[partialRunePrefix(tail):]
	cut := c.total - int64(len(head)) - int64(len(tail))
	text := string(head) + cutLine(cut) + string(tail)
	return Output{Text: text, Total: c.total, Cut: cut}
}

// cutLine is the line put where bytes were cut: "[… 12,345,678 bytes cut …]".
func cutLine(n int64) string {
	return "\n[… " + thousands(n) + " bytes cut …]\n"
}

// thousands writes n with a comma between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	if neg {
		out = append(out, '-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// partialRuneSuffix is the length of an incomplete UTF-8 sequence at the
// end of b (0 when b ends on a boundary or in bytes that are not UTF-8).
func partialRuneSuffix(b []byte) int {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if utf8.RuneStart(c) {
			if c >= 0xC0 && !utf8.FullRune(b[len(b)-i:]) {
				return i
			}
			return 0
		}
	}
	return 0
}

// partialRunePrefix is the length of the continuation bytes at the start
// of b that belong to a character cut before it (at most 3).
func partialRunePrefix(b []byte) int {
	n := 0
	for n < len(b) && !utf8.RuneStart(b[n]) {
		if n++; n == utf8.UTFMax {
			return 0 // too many to be the end of one character: not UTF-8
		}
	}
	return n
}

// drain copies r into c until EOF or a read error (a closed pipe or a
// passed deadline), reading in chunks so that memory stays bounded.
func drain(r *os.File, c *capture) error {
	buf := make([]byte, 1<<20)
	for {
		n, err := r.Read(buf)
		c.Write(buf[:n])
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
