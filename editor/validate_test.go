package editor

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	cases := []struct {
		name         string
		in           string
		err          error
		offset, line int
	}{
		{"empty", "", nil, 0, 0},
		{"text", "héllo\nwörld 😀\r\n", nil, 0, 0},
		{"replacement character is valid", "a\uFFFDb", nil, 0, 0},
		{"NUL", "ab\ncd\x00", ErrBinary, 5, 2},
		{"NUL before bad UTF-8", "\xff\x00", ErrBinary, 1, 1},
		{"bad byte", "ok\nok\n\xffno", ErrInvalidUTF8, 6, 3},
		{"truncated sequence", "abc\xe6\x97", ErrInvalidUTF8, 3, 1},
		{"overlong encoding", "\xc0\xaf", ErrInvalidUTF8, 0, 1},
		{"surrogate", "x\xed\xa0\x80", ErrInvalidUTF8, 1, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Validate([]byte(c.in))
			if c.err == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var e *TextError
			if !errors.Is(err, c.err) || !errors.As(err, &e) || e.Offset != c.offset || e.Line != c.line || e.What != "" {
				t.Fatalf("got %#v (%v), want %v at %d line %d", err, err, c.err, c.offset, c.line)
			}
		})
	}
	if got := Validate([]byte("a\n\xff")).Error(); got != "invalid UTF-8 at byte offset 2 (line 2); text must be UTF-8" {
		t.Errorf("message %q", got)
	}
}

func TestRewrite(t *testing.T) {
	cases := []struct {
		name     string
		old, new string
		lines    int
	}{
		{"replace", "a\nb\n", "c\n", 2},
		{"CRLF old, LF new: taken literally", "a\r\nb\r\n", "a\nb\n", 2},
		{"final newline not added", "a\n", "b", 1},
		{"identical", "same\n", "same\n", 1},
		{"from empty", "", "x\n", 0},
		{"to empty", "a\nb", "", 2},
		{"old may be binary", "\x00\xff", "text\n", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Rewrite([]byte(c.old), []byte(c.new))
			if err != nil {
				t.Fatal(err)
			}
			want := []Match{{Block: 0, Tier: TierRewrite, StartLine: 1, EndLine: c.lines}}
			if string(r.Content) != c.new || r.Content == nil || !reflect.DeepEqual(r.Matches, want) {
				t.Errorf("got %q %+v", r.Content, r.Matches)
			}
		})
	}
	for _, bad := range []struct {
		in  string
		err error
	}{{"a\x00", ErrBinary}, {"\xfe", ErrInvalidUTF8}} {
		r, err := Rewrite([]byte("x"), []byte(bad.in))
		var e *TextError
		if !errors.Is(err, bad.err) || !errors.As(err, &e) || e.What != "new content" || r.Content != nil {
			t.Errorf("Rewrite(%q) = %q, %v", bad.in, r.Content, err)
		}
	}
	// The result does not share memory with the input.
	in := []byte("abc")
	r, _ := Rewrite(nil, in)
	in[0] = 'X'
	if string(r.Content) != "abc" {
		t.Error("result aliases the input")
	}
}

// TestErrorMessages pins the text of each kind of error (testdata/errors.golden;
// go test -update rewrites it) and checks that the typed errors marshal to JSON.
func TestErrorMessages(t *testing.T) {
	content := "package main\n\nfunc main() {\n\tfmt.Println(\"hello world\")\n\treturn\n}\n"
	cases := []struct {
		name string
		err  func() error
	}{
		{"no match", func() error {
			_, err := ApplyBlocks([]byte(content), []Block{blk("package main\n", "package app\n"), blk("func main() {\n\tfmt.Println(\"hello, my world\")\n", "z\n")})
			return err
		}},
		{"no match, empty content", func() error {
			_, err := ApplyBlocks(nil, []Block{blk("x\n", "y\n")})
			return err
		}},
		{"ambiguous", func() error {
			_, err := ApplyBlocks([]byte("}\n}\n}\n"), []Block{blk("}\n", "]\n")})
			return err
		}},
		{"already applied", func() error {
			_, err := ApplyBlocks([]byte(content), []Block{blk("\treturn 1\n", "\treturn\n")})
			return err
		}},
		{"already applied, insertion", func() error {
			_, err := ApplyBlocks([]byte(content), []Block{blk("\treturn\n", "\tfmt.Println(\"hello world\")\n\treturn\n")})
			return err
		}},
		{"no-op", func() error {
			_, err := ApplyBlocks([]byte(content), []Block{blk("\treturn\n", "\treturn\n")})
			return err
		}},
		{"empty search", func() error {
			_, err := ApplyBlocks([]byte(content), []Block{blk("", "x\n")})
			return err
		}},
		{"bad blocks", func() error {
			_, err := ParseBlocks("<<<<<<< SEARCH\nx\n")
			return err
		}},
		{"hunk no match", func() error {
			_, err := ApplyPatch([]byte(content), "@@ -3,2 +3,2 @@\n func main() {\n-\tfmt.Println(\"hello\")\n+\tfmt.Println(\"bye\")\n")
			return err
		}},
		{"hunk ambiguous", func() error {
			_, err := ApplyPatch([]byte("}\n}\n"), "@@ @@\n-}\n+]\n")
			return err
		}},
		{"bad patch", func() error {
			_, err := ApplyPatch([]byte(content), "not a patch\n")
			return err
		}},
		{"binary", func() error {
			_, err := ApplyBlocks([]byte("a\x00"), []Block{blk("a", "b")})
			return err
		}},
		{"invalid UTF-8 in REPLACE", func() error {
			_, err := ApplyBlocks([]byte("a\n"), []Block{blk("a\n", "ok\n\xff")})
			return err
		}},
	}
	var out strings.Builder
	for _, c := range cases {
		err := c.err()
		if err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		js, jerr := json.Marshal(err)
		if jerr != nil {
			t.Fatalf("%s: %v", c.name, jerr)
		}
		fmt.Fprintf(&out, "== %s (%T)\n%s\n%s\n\n", c.name, err, err, js)
	}
	golden(t, "errors.golden", out.String())
}
