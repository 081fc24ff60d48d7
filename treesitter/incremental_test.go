package treesitter

import (
	"math/rand/v2"
	"os"
	"reflect"
	"testing"
)

// randomEdit replaces a random range of src by a random fragment (often a
// piece of the source itself, so edits stay mostly syntactic).
func randomEdit(r *rand.Rand, src []byte) []byte {
	frags := []string{"", "\n", "    ", "x", "(", ")", "{", "}", "def f():\n    pass\n", "func g() {}\n",
		"# Title\n", "`code`", "[l](a.md#b)", "[[W]]", "😀", "𝄞\r\n", "class C:\n  pass\n", "\t"}
	start := r.IntN(len(src) + 1)
	end := min(len(src), start+r.IntN(12))
	var frag []byte
	if r.IntN(2) == 0 && len(src) > 0 {
		a := r.IntN(len(src))
		frag = src[a:min(len(src), a+r.IntN(40))]
	} else {
		frag = []byte(frags[r.IntN(len(frags))])
	}
	out := append([]byte(nil), src[:start]...)
	out = append(out, frag...)
	return append(out, src[end:]...)
}

func TestIncrementalEqualsFresh(t *testing.T) {
	p := NewParser()
	defer p.Close()
	fresh := NewParser()
	defer fresh.Close()
	for _, tc := range languageCases {
		t.Run(tc.name, func(t *testing.T) {
			src, err := os.ReadFile("testdata/snippets/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := p.Open(tc.typ, src)
			if err != nil {
				t.Fatal(err)
			}
			defer doc.Close()
			r := rand.New(rand.NewPCG(1, uint64(len(tc.name))))
			for i := range 300 {
				src = randomEdit(r, src)
				got, err := doc.Update(src)
				if err != nil {
					t.Fatal(err)
				}
				want, err := fresh.Parse(tc.typ, src)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("edit %d: incremental result differs from fresh parse of\n%q\ngot  %+v\nwant %+v", i, src, got, want)
				}
			}
		})
	}
}

func TestDocSkippedAndBack(t *testing.T) {
	p := NewParser()
	defer p.Close()
	doc, err := p.Open("code/python", []byte("def a():\n    pass\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	if f, _ := doc.Update([]byte("def a():\x00")); f.Skipped == "" {
		t.Fatal("NUL content not skipped")
	}
	f, err := doc.Update([]byte("def b():\n    pass\n"))
	if err != nil || len(f.Symbols) != 1 || f.Symbols[0].Name != "b" {
		t.Fatalf("after skip: %+v, %v", f, err)
	}
	if doc.File() != f {
		t.Fatal("File() is not the latest result")
	}
}

func TestComputeEdit(t *testing.T) {
	e := computeEdit([]byte("ab\ncd\nef"), []byte("ab\nXYZ\nd\nef"))
	if e.StartIndex != 3 || e.OldEndIndex != 4 || e.NewEndIndex != 7 {
		t.Fatalf("bytes: %+v", e)
	}
	if e.StartPoint.Row != 1 || e.StartPoint.Column != 0 || e.NewEndPoint.Row != 2 || e.NewEndPoint.Column != 0 || e.OldEndPoint.Row != 1 || e.OldEndPoint.Column != 1 {
		t.Fatalf("points: %+v", e)
	}
}
