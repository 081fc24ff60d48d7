package treesitter

import (
	"slices"
	"testing"
)

// TestHTMLAnchors: an HTML anchor in Markdown (<a name>, <a id>, any
// element's id) is a target of link fragments, in the page itself and
// from other pages; one shown in code, a data-id or a meta name is not.
func TestHTMLAnchors(t *testing.T) {
	other := siteDoc{"FAQ", "docs/faq.md", "# FAQ\n\n<a name=\"baseurl-vs-prefix\"></a>\n### The difference between `baseUrl` and `prefix`\n\nText with <span id='inline-id'>x</span>.\n"}
	tests := []struct{ name, doc, want string }{
		{"a name in an HTML block", "<a name=\"x\"></a>\n\n## Y\n\n[l](#x)\n", "link local DOC"},
		{"a id inline in a paragraph", "Text <a id=\"here\"></a> more.\n\n[l](#here)\n", "link local DOC"},
		{"any element's id", "<div id=\"box\">\n\nx\n\n</div>\n\n[l](#box)\n", "link local DOC"},
		{"single quotes", "<a name='sq'></a>\n\n[l](#sq)\n", "link local DOC"},
		{"GitHub's user-content prefix", "<a name=\"x\"></a>\n\n[l](#user-content-x)\n", "link local DOC"},
		{"another page's a name", "[l](faq.md#baseurl-vs-prefix)\n", "link resolved FAQ"},
		{"another page's inline id", "[l](faq.md#inline-id)\n", "link resolved FAQ"},
		{"a heading still wins", "[l](faq.md#faq)\n", "link resolved FAQ#FAQ"},
		{"an anchor in a code span is shown, not rendered", "Write `<a name=\"q\"></a>`.\n\n[l](#q)\n", "link broken DOC"},
		{"an anchor in a fence is shown, not rendered", "```html\n<a name=\"f\"></a>\n```\n\n[l](#f)\n", "link broken DOC"},
		{"data-id is not an id", "<div data-id=\"d\"></div>\n\n[l](#d)\n", "link broken DOC"},
		{"meta name is not an anchor", "<meta name=\"m\">\n\n[l](#m)\n", "link broken DOC"},
		{"a missing anchor is broken", "[l](faq.md#nope)\n", "link broken FAQ"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := siteGraphOf(t, other, siteDoc{"DOC", "docs/page.md", tc.doc})
			var links []string
			for _, r := range g.Resolve("DOC") {
				if r.Ref.Kind == "link" {
					links = append(links, siteDescribe(r))
				}
			}
			if !slices.Equal(links, []string{tc.want}) {
				t.Errorf("links %q, want [%q]", links, tc.want)
			}
		})
	}
}

// TestAnchorsParsed: the anchors a Markdown file declares, each once.
func TestAnchorsParsed(t *testing.T) {
	p := NewParser()
	defer p.Close()
	f, err := p.Parse("a.md", []byte("<a name=\"one\"></a>\n\nText <a id=\"two\"></a> and <a id=\"one\"></a> `<a id=\"no\">`.\n\n<p id=\"three\">x</p>\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(slices.Values(f.Anchors))
	if want := []string{"one", "three", "two"}; !slices.Equal(got, want) {
		t.Errorf("anchors %q, want %q", got, want)
	}
}
