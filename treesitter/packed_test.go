package treesitter

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fill sets every field of the struct v points to, recursively, to a value
// derived from seed, so that a field the packed form forgets shows up.
func fill(t *testing.T, v reflect.Value, seed int) {
	t.Helper()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(v.Type().Field(i).Name + string(rune('a'+seed%26)))
		case reflect.Int:
			f.SetInt(int64(seed*7 + i + 1))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Struct:
			fill(t, f, seed+i)
		default:
			t.Fatalf("%s.%s: fill does not know kind %s; teach it, and Pack", v.Type(), v.Type().Field(i).Name, f.Kind())
		}
	}
}

// TestPackRoundTrip: a File packed and materialised again is the same File,
// for every field of Reference and Symbol (a field added to Reference
// fails here until Pack carries it).
func TestPackRoundTrip(t *testing.T) {
	f := &File{Language: LangGo, Partial: "partly"}
	for i := range 5 {
		var r Reference
		fill(t, reflect.ValueOf(&r).Elem(), i%3) // names repeat: the string table is shared
		// Positions as a text has them: line i%3 starts at byte 100*(i%3).
		r.Span = Span{Start: Position{Byte: 100*(i%3) + 4, Line: i % 3, Column: 4}, End: Position{Byte: 100*(i%3) + 9 + i, Line: i % 3, Column: 9 + i}}
		f.References = append(f.References, r)
		var s Symbol
		fill(t, reflect.ValueOf(&s).Elem(), i)
		f.Symbols = append(f.Symbols, s)
	}
	p := Pack(f)
	got := p.File()
	if !reflect.DeepEqual(got, f) {
		t.Fatalf("round trip changed the file:\n got %+v\nwant %+v", got, f)
	}
	distinct := map[string]bool{}
	for _, r := range f.References {
		distinct[r.Name], distinct[r.Kind], distinct[r.Target] = true, true, true
	}
	for _, s := range f.Symbols {
		distinct[s.Name], distinct[s.Kind], distinct[s.Container], distinct[s.Fingerprint] = true, true, true, true
	}
	if len(p.strs) != len(distinct) {
		t.Errorf("string table has %d entries, want %d (each distinct string once)", len(p.strs), len(distinct))
	}
	if got := int(p.symAt) / shapeSize; got != 3 {
		t.Errorf("%d shapes, want 3 (3 distinct kind, target and role)", got)
	}
	got.References[0].Name, got.Symbols[0].Name = "changed", "changed"
	if again := p.File(); !reflect.DeepEqual(again, f) {
		t.Fatal("changing a materialised File changed the packed one")
	}
}

// TestPackPositionsRoundTrip: any positions come back exactly as they
// went in — whether or not they agree with each other (line 1 starting
// before line 0, a column past its byte offset, an end before its start,
// spans over several lines, offsets past 32 bits, negative values): the
// packed form derives nothing it was not given.
func TestPackPositionsRoundTrip(t *testing.T) {
	pos := func(b, l, c int) Position { return Position{Byte: b, Line: l, Column: c} }
	sp := func(s, e Position) Span { return Span{Start: s, End: e} }
	tests := []struct {
		name  string
		spans []Span
	}{
		{"one line, in order", []Span{sp(pos(4, 0, 4), pos(9, 0, 9)), sp(pos(12, 0, 12), pos(13, 0, 13)), sp(pos(30, 1, 2), pos(35, 1, 7))}},
		{"lines that go backwards", []Span{sp(pos(50, 0, 50), pos(51, 0, 51)), sp(pos(10, 1, 0), pos(11, 1, 1))}},
		{"references out of file order", []Span{sp(pos(300, 9, 3), pos(310, 9, 13)), sp(pos(20, 1, 5), pos(25, 1, 10)), sp(pos(300, 9, 3), pos(301, 9, 4))}},
		{"spans over several lines", []Span{sp(pos(10, 1, 2), pos(95, 7, 0)), sp(pos(96, 7, 1), pos(200, 12, 30))}},
		{"an end before its start", []Span{sp(pos(10, 1, 2), pos(8, 1, 0))}},
		{"a column past its byte offset", []Span{sp(pos(3, 0, 4), pos(3, 0, 4))}},
		{"offsets past 32 bits", []Span{sp(pos(math.MaxUint32+10, 1<<33, 5), pos(math.MaxUint32+20, 1<<33, 15))}},
		{"negative values", []Span{sp(pos(-1, -2, -3), pos(-1, 0, 7))}},
		{"extremes", []Span{sp(pos(math.MaxInt, math.MinInt, math.MaxInt), pos(math.MinInt, math.MaxInt, math.MinInt))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &File{Language: LangGo}
			for i, sp := range tt.spans {
				f.References = append(f.References, Reference{Name: "n" + string(rune('a'+i%2)), Kind: "call", Span: sp})
			}
			if got := Pack(f).File(); !reflect.DeepEqual(got, f) {
				t.Fatalf("got  %+v\nwant %+v", got.References, f.References)
			}
		})
	}
}

// TestPackSymbols: definitions come back exactly, whatever their
// fingerprint (16 hex digits as made, stored as 8 bytes; anything else as
// a string) and positions; Symbol reads one by index.
func TestPackSymbols(t *testing.T) {
	sym := func(name, fp string, start, end Position) Symbol {
		return Symbol{Name: name, Kind: "function", Container: "T", Fingerprint: fp, Span: Span{Start: start, End: end}}
	}
	pos := func(b, l, c int) Position { return Position{Byte: b, Line: l, Column: c} }
	tests := []struct {
		name string
		sym  Symbol
	}{
		{"hex fingerprint", sym("f", "0123456789abcdef", pos(10, 1, 0), pos(90, 5, 1))},
		{"upper-case hex", sym("f", "0123456789ABCDEF", pos(10, 1, 0), pos(90, 5, 1))},
		{"short fingerprint", sym("f", "abc", pos(10, 1, 0), pos(90, 5, 1))},
		{"not hex", sym("f", "0123456789abcdeg", pos(10, 1, 0), pos(90, 5, 1))},
		{"no fingerprint", sym("f", "", pos(10, 1, 0), pos(90, 5, 1))},
		{"hidden, no container", Symbol{Name: "g", Kind: "type", Hidden: true, Fingerprint: "ffffffffffffffff"}},
		{"inconsistent positions", sym("f", "0000000000000000", pos(3, 7, 9), pos(-4, 2, math.MaxInt))},
	}
	f := &File{Language: LangGo}
	for _, tt := range tests {
		f.Symbols = append(f.Symbols, tt.sym)
	}
	p := Pack(f)
	if p.NumSymbols() != len(tests) {
		t.Fatalf("NumSymbols = %d, want %d", p.NumSymbols(), len(tests))
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Symbol(i); got != tt.sym {
				t.Errorf("Symbol(%d) = %+v, want %+v", i, got, tt.sym)
			}
			if got := p.symbolName(i); got != tt.sym.Name {
				t.Errorf("symbolName(%d) = %q", i, got)
			}
		})
	}
	if !reflect.DeepEqual(p.File(), f) {
		t.Errorf("round trip changed the file")
	}
	want := *f
	want.References = nil
	if got := p.Definitions(); !reflect.DeepEqual(got, &want) {
		t.Errorf("Definitions() = %+v, want %+v", got, &want)
	}
}

// TestPackIsSmall: on a parsed file, a packed reference costs about 5
// bytes of arena (a fifth of the 24 bytes of fixed-size records, a
// twentieth of the 96 of a Reference), a definition about 20 (a sixth
// of a Symbol's 120 and its fingerprint's 32).
func TestPackIsSmall(t *testing.T) {
	p := NewParser()
	defer p.Close()
	var b strings.Builder
	b.WriteString("package p\n\nimport \"fmt\"\n\n")
	for i := range 200 {
		fmt.Fprintf(&b, "func F%d(x int) int {\n\tfmt.Println(x, len(\"a\"))\n\treturn F%d(x) + strconv.Itoa(x)\n}\n\n", i, (i+1)%200)
	}
	f, err := p.Parse("code/go", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	pf := Pack(f)
	refs := int(binary.LittleEndian.Uint32(pf.data[pf.symAt:])) - int(pf.refsAt) // the first definition follows the references
	syms := len(pf.data) - int(pf.refsAt) - refs
	per, perSym := float64(refs)/float64(len(f.References)), float64(syms)/float64(len(f.Symbols))
	t.Logf("%d references, %.1f bytes each; %d definitions, %.1f bytes each (and 4 for the index)", len(f.References), per, len(f.Symbols), perSym)
	if len(f.References) < 800 || per > 6 {
		t.Errorf("%d references at %.1f bytes each, want ≥ 800 at ≤ 6", len(f.References), per)
	}
	if len(f.Symbols) != 200 || perSym > 24 {
		t.Errorf("%d definitions at %.1f bytes each, want 200 at ≤ 24", len(f.Symbols), perSym)
	}
}

func TestPackEmptyAndNil(t *testing.T) {
	if p := Pack(nil); p != nil {
		t.Fatalf("Pack(nil) = %v", p)
	}
	p := Pack(&File{Language: LangText, Skipped: "too large"})
	if p.Len() != 0 {
		t.Fatalf("Len = %d", p.Len())
	}
	if got := p.File(); !reflect.DeepEqual(got, &File{Language: LangText, Skipped: "too large"}) {
		t.Fatalf("got %+v", got)
	}
}

// TestGraphKeepsReferencesPacked: the graph's answers are the same as
// from the parsed File, and its entries hold neither references nor
// definitions unpacked.
func TestGraphKeepsReferencesPacked(t *testing.T) {
	p := NewParser()
	defer p.Close()
	lib, err := p.Parse("code/python", []byte("import os\n\ndef parse_config(path):\n    return os.path.join(path)\n"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := p.Parse("text/markdown", []byte("# Guide\n\nCall `parse_config`, see [lib](lib.py#parse_config).\n"))
	if err != nil {
		t.Fatal(err)
	}
	g := NewGraph()
	g.Put(Entry{ID: "lib", Path: "lib.py", Title: "lib.py", File: lib})
	g.PutPacked(Entry{ID: "doc", Path: "doc.md", Title: "Guide"}, Pack(doc))
	for id, want := range map[string]*File{"lib": lib, "doc": doc} {
		e, ok := g.Entry(id)
		if !ok || !reflect.DeepEqual(e.File, want) {
			t.Errorf("Entry(%s).File = %+v, want %+v", id, e.File, want)
		}
		if f := g.entries[id].File; len(f.References)+len(f.Symbols) != 0 {
			t.Errorf("%s: graph entry keeps %d references and %d definitions unpacked", id, len(f.References), len(f.Symbols))
		}
	}
	in := g.Incoming("lib")
	if len(in) != 2 || in[0].Ref.Span != doc.References[0].Span || in[1].Ref.Span != doc.References[1].Span {
		t.Fatalf("Incoming(lib) = %+v, want the code span and the link of doc", in)
	}
	res := g.Resolve("doc")
	if len(res) != 2 || res[0].State != Resolved || res[1].State != Resolved {
		t.Fatalf("Resolve(doc) = %+v", res)
	}
	g.Remove("doc")
	if len(g.entries) != 1 || len(g.free) != 1 || g.nodes[len(g.nodes)-1] != nil || len(g.Incoming("lib")) != 0 {
		t.Fatalf("Remove left %d entries, %d free numbers, incoming %v", len(g.entries), len(g.free), g.Incoming("lib"))
	}
}

// TestPackParsedFiles: every snippet of every language, as Parse returns
// it, comes back equal.
func TestPackParsedFiles(t *testing.T) {
	p := NewParser()
	defer p.Close()
	for _, tc := range languageCases {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile("testdata/snippets/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			f, err := p.Parse(tc.typ, b)
			if err != nil {
				t.Fatal(err)
			}
			if got := Pack(f).File(); !reflect.DeepEqual(got, f) {
				t.Errorf("round trip changed the file")
			}
		})
	}
}

// TestPackKeepsAnchorsAndShortFlags: the packed form (graph, parse cache)
// keeps a Markdown file's HTML anchors and a code file's short flags.
func TestPackKeepsAnchorsAndShortFlags(t *testing.T) {
	p := NewParser()
	defer p.Close()
	for _, tc := range []struct{ path, src string }{
		{"a.md", "<a name=\"x\"></a>\n\n# T\n\n[l](#x)\n"},
		{"main.go", "package main\n\nfunc init() {\n\tc.Flags().UintVarP(&width, \"width\", \"w\", 0, \"\")\n}\n"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			f, err := p.Parse(tc.path, []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Anchors)+len(f.ShortFlags) == 0 {
				t.Fatal("parsed no anchor or short flag")
			}
			if got := Pack(f).File(); !reflect.DeepEqual(got, f) {
				t.Errorf("round trip: anchors %q short flags %v, want %q %v", got.Anchors, got.ShortFlags, f.Anchors, f.ShortFlags)
			}
			g := NewGraph()
			g.Put(Entry{ID: "A", Path: tc.path, File: f})
			if e, _ := g.Entry("A"); !reflect.DeepEqual(e.File.Anchors, f.Anchors) || !reflect.DeepEqual(e.File.ShortFlags, f.ShortFlags) {
				t.Errorf("graph entry: anchors %q short flags %v, want %q %v", e.File.Anchors, e.File.ShortFlags, f.Anchors, f.ShortFlags)
			}
		})
	}
}

// TestGraphSymbolsAndHasReference: what Symbols, HasReference and Links
// answer from the packed form is what Entry materialises.
func TestGraphSymbolsAndHasReference(t *testing.T) {
	p := NewParser()
	defer p.Close()
	g := NewGraph()
	for _, a := range []struct{ id, path, src string }{
		{"lib", "lib.py", "def parse_config(path):\n    return path\n\nclass C:\n    def m(self):\n        pass\n"},
		{"doc", "doc.md", "# Guide\n\nCall `parse_config`.\n\n```python\nprint(parse_config('x'))\n```\n"},
	} {
		f, err := p.Parse(a.path, []byte(a.src))
		if err != nil {
			t.Fatal(err)
		}
		g.Put(Entry{ID: a.id, Path: a.path, File: f, Links: []string{"x" + a.id}})
	}
	for _, id := range []string{"lib", "doc"} {
		e, _ := g.Entry(id)
		path, syms, ok := g.Symbols(id)
		if !ok || path != e.Path || !reflect.DeepEqual(syms, e.File.Symbols) {
			t.Errorf("Symbols(%s) = %s %+v, want %s %+v", id, path, syms, e.Path, e.File.Symbols)
		}
		if got := g.Links(id); !reflect.DeepEqual(got, e.Links) {
			t.Errorf("Links(%s) = %v, want %v", id, got, e.Links)
		}
		for _, kind := range []string{"snippet", "code", "call", "link"} {
			want := slices.ContainsFunc(e.File.References, func(r Reference) bool { return r.Kind == kind })
			if got := g.HasReference(id, kind); got != want {
				t.Errorf("HasReference(%s, %s) = %v, want %v", id, kind, got, want)
			}
		}
	}
	if _, _, ok := g.Symbols("none"); ok || g.HasReference("none", "call") || g.Links("none") != nil {
		t.Error("an unknown artifact has symbols or references")
	}
	if !g.HasReference("doc", "snippet") || g.HasReference("lib", "snippet") {
		t.Error("the fixture lost its snippet")
	}
}

// TestShortFlagResolvesPutOrPacked: a code span naming a short flag
// ("-w") resolves to the flag's definition whether the code file was Put
// as parsed or handed packed (PutPacked, as the reference index does).
func TestShortFlagResolvesPutOrPacked(t *testing.T) {
	p := NewParser()
	defer p.Close()
	code, err := p.Parse("main.go", []byte("package main\n\nfunc init() {\n\tc.Flags().UintVarP(&width, \"width\", \"w\", 0, \"\")\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := p.Parse("doc.md", []byte("# Doc\n\nPass `-w` to set the width.\n"))
	if err != nil {
		t.Fatal(err)
	}
	for name, put := range map[string]func(g *Graph){
		"Put":       func(g *Graph) { g.Put(Entry{ID: "A", Path: "main.go", File: code}) },
		"PutPacked": func(g *Graph) { g.PutPacked(Entry{ID: "A", Path: "main.go"}, Pack(code)) },
	} {
		t.Run(name, func(t *testing.T) {
			g := NewGraph()
			put(g)
			g.Put(Entry{ID: "D", Path: "doc.md", Title: "Doc", File: doc})
			var got []string
			for _, r := range g.Resolve("D") {
				if r.Ref.Name == "-w" {
					got = append(got, r.State+" "+r.Target.ID+"#"+r.Target.Name)
				}
			}
			if want := []string{"resolved A#width"}; !reflect.DeepEqual(got, want) {
				t.Errorf("-w: %v, want %v", got, want)
			}
		})
	}
}
