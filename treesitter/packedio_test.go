package treesitter

import (
	"errors"
	"os"
	"reflect"
	"testing"
)

func internCopy(b []byte) string { return string(b) }

// binaryFixture is a File with every field set (fill), positions of
// every shape, and a parsed Markdown file's anchors.
func binaryFixture(t testing.TB) *File {
	f := &File{Language: LangMarkdown, Skipped: "skipped", Partial: "partly", Anchors: []string{"x", "y"},
		ShortFlags: []ShortFlag{{Short: "-n", Long: "name"}}}
	for i := range 6 {
		var r Reference
		fill(t.(*testing.T), reflect.ValueOf(&r).Elem(), i%4)
		f.References = append(f.References, r)
		var s Symbol
		fill(t.(*testing.T), reflect.ValueOf(&s).Elem(), i)
		f.Symbols = append(f.Symbols, s)
	}
	f.Symbols[0].Fingerprint = "0123456789abcdef"
	return f
}

// TestPackedBinaryRoundTrip: the binary form reads back to the same
// File, for every field of Reference and Symbol (a field added to either
// fails here until the binary form carries it) and for every snippet.
func TestPackedBinaryRoundTrip(t *testing.T) {
	files := map[string]*File{"every field": binaryFixture(t), "empty": {Language: LangText}}
	p := NewParser()
	defer p.Close()
	for _, tc := range languageCases {
		b, err := os.ReadFile("testdata/snippets/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if files[tc.file], err = p.Parse(tc.typ, b); err != nil {
			t.Fatal(err)
		}
	}
	for name, f := range files {
		t.Run(name, func(t *testing.T) {
			b, err := Pack(f).AppendBinary(nil)
			if err != nil {
				t.Fatal(err)
			}
			var interned int
			got, err := DecodePacked(b, func(b []byte) string { interned++; return string(b) })
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.File(), f) {
				t.Fatalf("round trip changed the file:\n got %+v\nwant %+v", got.File(), f)
			}
			if want := 3 + len(f.Anchors) + 2*len(f.ShortFlags) + len(got.strs) + len(got.rest) - 1; interned != want {
				t.Errorf("intern called %d times, want %d (every string once)", interned, want)
			}
		})
	}
}

// TestDecodePackedDamaged: every prefix of a binary form, and the form
// with any one byte changed, is an error wrapping ErrDamagedPacked or
// decodes to a file that reads without a panic — never a panic.
func TestDecodePackedDamaged(t *testing.T) {
	b, err := Pack(binaryFixture(t)).AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	read := func(p *PackedFile) {
		p.File()
		for i := range p.NumSymbols() {
			p.symbolName(i)
		}
	}
	t.Run("cut short", func(t *testing.T) {
		for n := range len(b) {
			if _, err := DecodePacked(b[:n], internCopy); !errors.Is(err, ErrDamagedPacked) {
				t.Fatalf("%d of %d bytes: err = %v, want ErrDamagedPacked", n, len(b), err)
			}
		}
	})
	t.Run("trailing bytes", func(t *testing.T) {
		if _, err := DecodePacked(append(b[:len(b):len(b)], 0), internCopy); !errors.Is(err, ErrDamagedPacked) {
			t.Fatalf("err = %v, want ErrDamagedPacked", err)
		}
	})
	t.Run("one byte changed", func(t *testing.T) {
		var rejected int
		for i := range b {
			for _, x := range []byte{0x01, 0x80, 0xff} {
				c := append([]byte(nil), b...)
				c[i] ^= x
				p, err := DecodePacked(c, internCopy)
				if err != nil {
					if !errors.Is(err, ErrDamagedPacked) {
						t.Fatalf("byte %d ^ %#x: err = %v, want ErrDamagedPacked", i, x, err)
					}
					rejected++
					continue
				}
				read(p)
			}
		}
		if rejected == 0 {
			t.Error("no change was rejected")
		}
	})
	t.Run("counts the arena cannot hold", func(t *testing.T) {
		p := Pack(binaryFixture(t))
		p.nrefs = 1 << 31
		c, _ := p.AppendBinary(nil)
		if _, err := DecodePacked(c, internCopy); !errors.Is(err, ErrDamagedPacked) {
			t.Fatalf("err = %v, want ErrDamagedPacked", err)
		}
	})
}

// FuzzDecodePacked: any bytes decode to an error or to a file that reads
// without a panic and reads the same once encoded again.
func FuzzDecodePacked(f *testing.F) {
	p := NewParser()
	defer p.Close()
	for _, src := range []string{"# T\n\nCall `f` and [x](y.md#z) [[W]].\n\n```go\nfmt.Println()\n```\n", "package p\n\nimport \"fmt\"\n\nfunc F() { fmt.Println(G()) }\n"} {
		typ := "text/markdown"
		if src[0] == 'p' {
			typ = "code/go"
		}
		file, err := p.Parse(typ, []byte(src))
		if err != nil {
			f.Fatal(err)
		}
		b, _ := Pack(file).AppendBinary(nil)
		f.Add(b)
	}
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodePacked(b, internCopy)
		if err != nil {
			if !errors.Is(err, ErrDamagedPacked) {
				t.Fatalf("err = %v, want ErrDamagedPacked", err)
			}
			return
		}
		again, err := p.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		q, err := DecodePacked(again, internCopy)
		if err != nil {
			t.Fatalf("what decoded does not decode once encoded again: %v", err)
		}
		if !reflect.DeepEqual(q.File(), p.File()) {
			t.Fatalf("decoded, encoded and decoded again: %+v, was %+v", q.File(), p.File())
		}
	})
}

// TestPackedBinarySmallestRecords: a file of the smallest records (names
// as long as their spans, on one line: 4 bytes each) reads back; a bound
// on the counts that assumed larger records would call it damaged.
func TestPackedBinarySmallestRecords(t *testing.T) {
	f := &File{Language: LangGo}
	for i := range 30 { // columns below 64: one byte each
		f.References = append(f.References, Reference{Name: "x", Kind: "call",
			Span: Span{Start: Position{Byte: 2 * i, Column: 2 * i}, End: Position{Byte: 2*i + 1, Column: 2*i + 1}}})
	}
	p := Pack(f)
	if n := len(p.data) - int(p.refsAt); n != minRefRecord*len(f.References) {
		t.Fatalf("%d bytes of records for %d references, want %d each", n, len(f.References), minRefRecord)
	}
	b, err := p.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodePacked(b, internCopy)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.File(), f) {
		t.Fatal("round trip changed the file")
	}
}
