package sandbox

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCapture(t *testing.T) {
	tests := []struct {
		name   string
		limit  int
		writes []string
		want   Output
	}{
		{"empty", 8, nil, Output{}},
		{"fits", 8, []string{"abc", "def"}, Output{Text: "abcdef", Total: 6}},
		{"exactly the cap", 8, []string{"abcdefgh"}, Output{Text: "abcdefgh", Total: 8}},
		{"one byte over", 8, []string{"abcdefghi"}, Output{Text: "abcd" + cutLine(1) + "fghi", Total: 9, Cut: 1}},
		{"head and tail in small writes", 4, []string{"a", "b", "c", "d", "e", "f", "g"}, Output{Text: "ab" + cutLine(3) + "fg", Total: 7, Cut: 3}},
		{"a write longer than the tail", 4, []string{"ab", "0123456789"}, Output{Text: "ab" + cutLine(8) + "89", Total: 12, Cut: 8}},
		{"the ring wraps", 6, []string{"abc", "12", "34", "56", "7"}, Output{Text: "abc" + cutLine(4) + "567", Total: 10, Cut: 4}},
		{"a cut character is cut whole", 4, []string{"aé", "xxxxxxx", "€b"}, Output{Text: "a" + cutLine(12) + "b", Total: 14, Cut: 12}},
		{"bytes that are not UTF-8 are kept", 8, []string{"\xff\xfe\xfd\xfc", "xxxx", "\x80\x81\x82\x83"}, Output{Text: "\xff\xfe\xfd\xfc" + cutLine(4) + "\x80\x81\x82\x83", Total: 12, Cut: 4}},
		{"continuation bytes after the cut are a cut character's", 4, []string{"ab", "xxxx", "\x80\x81"}, Output{Text: "ab" + cutLine(6), Total: 8, Cut: 6}},
		{"a zero cap keeps nothing", 0, []string{"abc"}, Output{Text: cutLine(3), Total: 3, Cut: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCapture(tt.limit)
			for _, w := range tt.writes {
				if n, err := c.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if got := c.Output(); got != tt.want {
				t.Errorf("Output() = %+v\nwant       %+v", got, tt.want)
			}
		})
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 12345678: "12,345,678", -1234: "-1,234", 1 << 30: "1,073,741,824"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
	if got := cutLine(12345678); got != "\n[… 12,345,678 bytes cut …]\n" {
		t.Errorf("cutLine = %q", got)
	}
}

// FuzzCapture checks the capture against the stream itself: the text is
// the whole stream when it fits, else a prefix and a suffix of it around
// the cut line, which says how many bytes are missing; a valid UTF-8
// stream gives valid UTF-8.
func FuzzCapture(f *testing.F) {
	f.Add(8, []byte("hello, world"), uint8(3))
	f.Add(5, []byte("aé€😀b"), uint8(1))
	f.Add(0, []byte("x"), uint8(1))
	f.Add(64, bytes.Repeat([]byte("0123456789"), 30), uint8(7))
	f.Fuzz(func(t *testing.T, limit int, data []byte, chunk uint8) {
		if limit < 0 || limit > 1<<16 {
			return
		}
		c := newCapture(limit)
		step := max(int(chunk), 1)
		for i := 0; i < len(data); i += step {
			c.Write(data[i:min(i+step, len(data))])
		}
		out := c.Output()
		if out.Total != int64(len(data)) {
			t.Fatalf("Total %d, wrote %d", out.Total, len(data))
		}
		if len(data) <= limit {
			if out.Text != string(data) || out.Cut != 0 {
				t.Fatalf("a stream that fits: %+v", out)
			}
			return
		}
		line := cutLine(out.Cut)
		i := strings.Index(out.Text, line)
		if i < 0 {
			t.Fatalf("no cut line %q in %q", line, out.Text)
		}
		head, tail := out.Text[:i], out.Text[i+len(line):]
		if !bytes.HasPrefix(data, []byte(head)) || !bytes.HasSuffix(data, []byte(tail)) {
			t.Fatalf("head %q or tail %q is not the stream's", head, tail)
		}
		if int64(len(head)+len(tail))+out.Cut != out.Total || len(head)+len(tail) > limit {
			t.Fatalf("head %d + tail %d + cut %d != total %d (limit %d)", len(head), len(tail), out.Cut, out.Total, limit)
		}
		if utf8.Valid(data) && !utf8.ValidString(out.Text) {
			t.Fatalf("valid UTF-8 in, invalid out: %q", out.Text)
		}
	})
}
