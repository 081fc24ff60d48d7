package treesitter

import (
	"errors"
	"math"
	"os"
	"reflect"
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
	p, err := Pack(f)
	if err != nil {
		t.Fatal(err)
	}
	got := p.File()
	if !reflect.DeepEqual(got, f) {
		t.Fatalf("round trip changed the file:\n got %+v\nwant %+v", got, f)
	}
	if p.plain != nil {
		t.Fatal("consistent positions kept as parsed")
	}
	if len(p.strs) != 3*3 {
		t.Errorf("string table has %d entries, want 9 (3 distinct references × name, kind, target)", len(p.strs))
	}
	got.References[0].Name, got.Symbols[0].Name = "changed", "changed"
	if again := p.File(); !reflect.DeepEqual(again, f) {
		t.Fatal("changing a materialised File changed the packed one")
	}
}

// TestPackKeepsInconsistentPositions: positions no line table can give
// (line 1 starting before line 0) are kept as they are, not bent.
func TestPackKeepsInconsistentPositions(t *testing.T) {
	f := &File{Language: LangGo, References: []Reference{
		{Name: "a", Kind: "call", Span: Span{Start: Position{Byte: 50, Line: 0, Column: 50}, End: Position{Byte: 51, Line: 0, Column: 51}}},
		{Name: "b", Kind: "call", Span: Span{Start: Position{Byte: 10, Line: 1, Column: 0}, End: Position{Byte: 11, Line: 1, Column: 1}}},
	}}
	p, err := Pack(f)
	if err != nil {
		t.Fatal(err)
	}
	if p.plain == nil {
		t.Fatal("inconsistent positions were packed")
	}
	if got := p.File(); !reflect.DeepEqual(got, f) {
		t.Fatalf("got %+v, want %+v", got, f)
	}
}

func TestPackEmptyAndNil(t *testing.T) {
	if p, err := Pack(nil); p != nil || err != nil {
		t.Fatalf("Pack(nil) = %v, %v", p, err)
	}
	f := &File{Language: LangText, Skipped: "too large"}
	p, err := Pack(f)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.File(); !reflect.DeepEqual(got, &File{Language: LangText, Skipped: "too large"}) {
		t.Fatalf("got %+v", got)
	}
}

func TestPackRejectsOffsetsPast32Bits(t *testing.T) {
	for name, pos := range map[string]Position{
		"byte":     {Byte: math.MaxUint32 + 1},
		"negative": {Byte: -1},
		"column":   {Byte: 3, Column: 4},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Pack(&File{References: []Reference{{Name: "x", Kind: "call", Span: Span{Start: pos}}}})
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("err = %v, want ErrTooLarge", err)
			}
		})
	}
}

// TestGraphKeepsReferencesPacked: the graph's answers are the same as
// from the parsed File, and its entries hold only the references the
// scoping rules read (imports) unpacked.
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
	pd, err := Pack(doc)
	if err != nil {
		t.Fatal(err)
	}
	g.PutPacked(Entry{ID: "doc", Path: "doc.md", Title: "Guide"}, pd)
	for id, want := range map[string]*File{"lib": lib, "doc": doc} {
		e, ok := g.Entry(id)
		if !ok || !reflect.DeepEqual(e.File, want) {
			t.Errorf("Entry(%s).File = %+v, want %+v", id, e.File, want)
		}
		for _, r := range g.entries[id].File.References {
			if r.Kind != "import" {
				t.Errorf("%s: graph entry keeps a %s reference unpacked", id, r.Kind)
			}
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
	if len(g.packed) != 1 || len(g.Incoming("lib")) != 0 {
		t.Fatalf("Remove left %d packed files, incoming %v", len(g.packed), g.Incoming("lib"))
	}
}

// TestPackParsedFiles: every snippet of every language, as Parse returns
// it, packs with line tables (not kept as parsed) and comes back equal.
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
			pf, err := Pack(f)
			if err != nil {
				t.Fatal(err)
			}
			if pf.plain != nil {
				t.Error("kept as parsed: its positions do not fit one line table")
			}
			if got := pf.File(); !reflect.DeepEqual(got, f) {
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
			pf, err := Pack(f)
			if err != nil {
				t.Fatal(err)
			}
			if got := pf.File(); !reflect.DeepEqual(got, f) {
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
