package treesitter

import (
	"os"
	"reflect"
	"testing"
)

// FuzzParse: any bytes in any language never panic, Parse and an
// incremental Update from the seed agree, and spans stay inside the input.
func FuzzParse(f *testing.F) {
	for _, tc := range languageCases {
		src, err := os.ReadFile("testdata/snippets/" + tc.file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(0), src)
	}
	f.Add(uint8(7), []byte("# [[a]] `b` [c](d#e)\n\n```go\nfunc x() {}\n```\n"))
	f.Add(uint8(3), []byte("def f(:\n\x00\xff"))
	types := []string{"code/go", "code/python", "code/javascript", "code/typescript", "code/rust", "code/java", "code/c", "text/markdown", "text/plain"}
	p := NewParser()
	defer p.Close()
	f.Fuzz(func(t *testing.T, lang uint8, data []byte) {
		typ := types[int(lang)%len(types)]
		file, err := p.Parse(typ, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range file.Symbols {
			if s.Span.Start.Byte < 0 || s.Span.End.Byte > len(data) || s.Span.Start.Byte > s.Span.End.Byte {
				t.Fatalf("symbol span %+v outside %d bytes", s.Span, len(data))
			}
		}
		for _, r := range file.References {
			if r.Span.Start.Byte < 0 || r.Span.End.Byte > len(data) || r.Span.Start.Byte > r.Span.End.Byte {
				t.Fatalf("reference span %+v outside %d bytes", r.Span, len(data))
			}
		}
		seed := data[:len(data)/2] // a prefix, so the update reuses part of the tree
		doc, err := p.Open(typ, seed)
		if err != nil {
			t.Fatal(err)
		}
		defer doc.Close()
		got, err := doc.Update(data)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, file) {
			t.Fatalf("Update differs from Parse:\n%+v\n%+v", got, file)
		}
	})
}
