package treesitter

import (
	"bytes"
	"strings"
	"testing"
)

func TestLanguageFor(t *testing.T) {
	for in, want := range map[string]string{
		"code/go": LangGo, "code/python": LangPython, "code/javascript": LangJavaScript,
		"code/typescript": LangTypeScript, "code/rust": LangRust, "code/java": LangJava,
		"code/c": LangC, "text/markdown": LangMarkdown, "text/plain": LangText, "code/cobol": LangText,
		"": LangText, "main.go": LangGo, ".py": LangPython, "dir/x.TS": LangTypeScript,
		"lib.h": LangC, "README.md": LangMarkdown, "notes.txt": LangText, "Makefile": LangText,
	} {
		if got := LanguageFor(in); got != want {
			t.Errorf("LanguageFor(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBadInput(t *testing.T) {
	p := NewParser()
	defer p.Close()
	tests := []struct {
		name, typ string
		content   []byte
		skipped   string // prefix of File.Skipped; "" = parsed
		symbols   []string
	}{
		{name: "plain text", typ: "text/plain", content: []byte("def f(): pass\n")},
		{name: "unknown type", typ: "code/cobol", content: []byte("IDENTIFICATION DIVISION.")},
		{name: "empty go", typ: "code/go", content: nil},
		{name: "too large", typ: "code/go", content: bytes.Repeat([]byte("// x\n"), MaxFileSize/5+1), skipped: "too large"},
		{name: "NUL byte", typ: "code/python", content: []byte("x = 1\x00\x01"), skipped: "binary"},
		{name: "invalid UTF-8", typ: "text/markdown", content: []byte("# h\xff\xfe\n"), skipped: "binary"},
		{
			name: "python syntax error keeps the good function", typ: "code/python",
			content: []byte("def broken(:\n    pass\n\ndef good(x):\n    return x\n"),
			symbols: []string{"function good 3-4 "},
		},
		{
			name: "go unterminated func keeps earlier type", typ: "code/go",
			content: []byte("package p\n\ntype T struct{}\n\nfunc F() {\n\tif x {\n"),
			symbols: []string{"type T 2-2 "},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := p.Parse(tc.typ, tc.content)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(f.Skipped, tc.skipped) || (tc.skipped == "") != (f.Skipped == "") {
				t.Fatalf("Skipped = %q, want prefix %q", f.Skipped, tc.skipped)
			}
			got := symLines(f)
			for _, want := range tc.symbols {
				found := false
				for _, g := range got {
					found = found || g == want
				}
				if !found {
					t.Errorf("symbol %q not in %q", want, got)
				}
			}
			if tc.symbols == nil && len(got) > 0 && tc.typ != "code/go" {
				t.Errorf("unexpected symbols %q", got)
			}
		})
	}
}

func TestClosedParser(t *testing.T) {
	p := NewParser()
	p.Close()
	p.Close()
	if _, err := p.Parse("code/go", []byte("package p")); err != ErrClosed {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
}

// TestMarkdownDigitBeforeWideCharacter: the Markdown block scanner reads
// out of bounds (isdigit on a code point) after a digit; guardDigits keeps
// such content from crashing the process, and offsets and text unchanged.
func TestMarkdownDigitBeforeWideCharacter(t *testing.T) {
	p := NewParser()
	defer p.Close()
	for _, src := range []string{"0\U000e3e80", "1\u20ac is not a list\n", "# 2\U0010FFFF `parse_config`\n", "> 3\U000E0001 [[Wiki]]\n"} {
		f, err := p.Parse("text/markdown", []byte(src))
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		for _, r := range f.References {
			if got := src[r.Span.Start.Byte:r.Span.End.Byte]; !strings.Contains(got, r.Name) {
				t.Errorf("%q: reference %q spans %q", src, r.Name, got)
			}
		}
		for _, s := range f.Symbols {
			if !strings.Contains(src, s.Name) {
				t.Errorf("%q: heading %q is not the original text", src, s.Name)
			}
		}
	}
}
