package treesitter

import (
	"os"
	"reflect"
	"strings"
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
	f.Add(uint8(7), []byte("| a | `b` |\n|---|:-:|\n| `c | [d](e) \\| |\n- | x | `y` |\n  |-|-|\n"))
	f.Add(uint8(7), []byte("```python\nhttp = pkg.Client()\nwith A() as a:\n```\n\nThen `http.get(url)` and `a.b`.\n"))
	f.Add(uint8(4), []byte("#[derive(Subcommand)]\nenum C { /// a \"x\n Serve, #[clap(name = \"b\")] B { x: Vec<u8> }, #[arg(\n"))
	f.Add(uint8(4), []byte("#[derive(Parser)]\npub enum Cmd { Init(Init), #[clap(name = \"z.lua\")] ZLua, }\nstruct I { #[clap(long, visible_aliases = [\"x\", \"y\")] a: u8 }\n"))
	f.Add(uint8(8), []byte("[project.scripts]\ndotenv = \"dotenv.__main__:cli\"\n\"q\" = 1\n[x]\n"))
	f.Add(uint8(4), []byte("#[derive(Subcommand)]\nenum C { A(X<Y>), ) ] > B, C }\nuse clap::Command;\nfn m() { Command::new(\"x\").arg(Arg::new(\"y\").long(\"yy\")); }\n"))
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

// FuzzMarkdownNesting: Markdown built from a unit repeated up to 700 times
// (the grammar's scanner aborts the process at 256 open containers) never
// ends the process; its spans stay inside the input, and only content
// guardNesting changed is flagged Partial.
func FuzzMarkdownNesting(f *testing.F) {
	for _, unit := range []string{">", "> ", "- ", "* ", "1. ", "> - ", "  - x\n", "\t- x\n", "- a\n  ", ">\t", "+\t"} {
		f.Add(unit, uint16(300), []byte(" x\n"))
	}
	p := NewParser()
	defer p.Close()
	f.Fuzz(func(t *testing.T, unit string, n uint16, tail []byte) {
		if len(unit) > 16 {
			return
		}
		src := append([]byte(strings.Repeat(unit, int(n%700))), tail...)
		file, err := p.Parse("text/markdown", src)
		if err != nil {
			t.Fatal(err)
		}
		if file.Skipped != "" {
			return
		}
		for _, r := range file.References {
			if r.Span.Start.Byte < 0 || r.Span.End.Byte > len(src) || r.Span.Start.Byte > r.Span.End.Byte {
				t.Fatalf("reference span %+v outside %d bytes", r.Span, len(src))
			}
		}
		if _, lines := guardNesting(src); (len(lines) > 0) != (file.Partial != "") {
			t.Fatalf("Partial %q for %d guarded lines", file.Partial, len(lines))
		}
	})
}

// FuzzLastQualified: the name key of any reference name is the last part
// splitQualified gives.
func FuzzLastQualified(f *testing.F) {
	for _, s := range []string{"fmt.Println", "a::b", "x#y", "p->q", "a.b-c", "...", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		parts := splitQualified(name)
		if got, want := lastQualified(name), parts[len(parts)-1]; got != want {
			t.Fatalf("lastQualified(%q) = %q, want %q", name, got, want)
		}
	})
}
