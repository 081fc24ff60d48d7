package treesitter

import (
	"slices"
	"sync"
	"testing"
)

func TestMarkdownInline(t *testing.T) {
	p := NewParser()
	defer p.Close()
	tests := []struct {
		name, src string
		refs      []string
	}{
		{"code spans naming symbols", "Use `Parser.Parse()` and `std::fs::read`, not `a + b` or `--flag`.\n",
			[]string{"code Parser.Parse 0 ", "code std::fs::read 0 ", "code flag 0 "}},
		{"links", "[a](config.py#parse_config) [b](<docs/x y.md>) [c](#L10) [d](https://x.org/a.md) [e](mailto:a@b)\n",
			[]string{"link parse_config 0 config.py#parse_config", "link docs/x y.md 0 docs/x y.md", "link L10 0 #L10"}},
		{"wiki links, alias and not across lines", "See [[Design]] and [[id-42 | the spec]] but [[not\nthis]] or [[]].\n",
			[]string{"wiki Design 0 Design", "wiki id-42 0 id-42"}},
		{"heading inline code and list item", "# The `load` function\n\n- call `load()` in [cfg](cfg.go#Load)\n",
			[]string{"code load 0 ", "code load 2 ", "link Load 2 cfg.go#Load"}},
		{"fenced code is a snippet, nothing inside it is a reference", "```text\n`x` [a](b.md) [[w]]\n```\n", []string{"snippet text 1 "}},
		{"no wiki link inside a code span", "use `[[x]]` or [[y]]\n", []string{"wiki y 0 y"}},
		{"code spans and links in table cells, also in a list item", "| a | b |\n| - | - |\n| x | `tool sub` and [c](c.md) |\n\n1. Import:\n\n   | P | C |\n   | - | - |\n   | y | `load()` |\n",
			[]string{"code tool sub 2 ", "link c.md 2 c.md", "code load 8 "}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := p.Parse("text/markdown", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := refLines(f); !slices.Equal(got, tc.refs) {
				t.Errorf("refs = %q, want %q", got, tc.refs)
			}
		})
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Parse config!": "parse-config", "The `load` function": "the-load-function",
		"Über straße 2": "über-straße-2", "a_b-c": "a_b-c",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestParallelParsers: one Parser per goroutine, shared compiled queries.
func TestParallelParsers(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := NewParser()
			defer p.Close()
			for i := range 20 {
				tc := languageCases[(g+i)%len(languageCases)]
				src := []byte("def f():\n    pass\n# h\n")
				if _, err := p.Parse(tc.typ, src); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
}
