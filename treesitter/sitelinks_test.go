package treesitter

import (
	"fmt"
	"testing"
)

// siteFixture is a small documentation tree: a README at the root, pages
// and a directory index under docs, code without a README under src.
var siteFixture = []siteDoc{
	{"README", "README.md", "# Project\n\n## Usage\n\nOne.\n\n## Usage\n\nTwo.\n\n## Don't panic!\n"},
	{"GUIDE", "docs/guide.md", "# Guide\n\n## API: get()\n"},
	{"APIIDX", "docs/api/index.md", "# API\n"},
	{"INST", "docs/install.rst", "Install\n=======\n"},
	{"APP", "src/app.py", "def run():\n    pass\n\nclass Group:\n    def get_command(self):\n        pass\n"},
	{"MAIN", "cmd/main.go", "package main\n\nfunc Run() {}\n"},
	{"UTIL", "src/util.py", "def get_command():\n    pass\n"},
	{"LIB", "listings/lib.rs", "// ANCHOR: setup\nfn setup() {}\n"},
}

type siteDoc = struct{ id, path, content string }

// siteGraphOf parses docs into a new graph.
func siteGraphOf(t *testing.T, docs ...siteDoc) *Graph {
	t.Helper()
	p := NewParser()
	defer p.Close()
	g := NewGraph()
	for _, a := range docs {
		f, err := p.Parse(a.path, []byte(a.content))
		if err != nil {
			t.Fatal(err)
		}
		g.Put(Entry{ID: a.id, Path: a.path, Title: a.id, File: f})
	}
	return g
}

// siteGraph resolves doc, at docs/page.md next to siteFixture.
func siteGraph(t *testing.T, doc string) []Resolution {
	t.Helper()
	return siteGraphOf(t, append(siteFixture, siteDoc{"DOC", "docs/page.md", doc})...).Resolve("DOC")
}

func siteDescribe(r Resolution) string {
	s := fmt.Sprintf("%s %s", r.Ref.Kind, r.State)
	if r.Target.ID != "" || r.Target.Path != "" {
		s += " " + r.Target.ID
		if r.Target.ID == "" {
			s += r.Target.Path
		}
	}
	if r.Target.Name != "" {
		s += "#" + r.Target.Name
	}
	if r.Target.Line > 0 {
		s += fmt.Sprintf(":L%d", r.Target.Line)
	}
	if r.Via != "" {
		s += " via " + r.Via
	}
	return s
}

// TestSiteLinks: links and references as a site generator (or GitHub)
// resolves them; what only a site generator could resolve is unverified,
// and what is truly missing is still broken.
func TestSiteLinks(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"a directory with a README works", "[d](..)", "link resolved README"},
		{"a directory with a README, trailing slash", "[d](../)", "link resolved README"},
		{"a directory with only an index page is unverified", "[d](api/)", "link unverified APIIDX via page"},
		{"a directory with no page is unverified", "[d](../src)", "link unverified src via dir"},
		{"page.html is page.md", "[g](guide.html)", "link unverified GUIDE via page"},
		{"page.html with a heading", "[g](guide.html#guide)", "link unverified GUIDE#Guide via page"},
		{"page.html with a missing heading is broken", "[g](guide.html#nope)", "link broken GUIDE"},
		{"index.html is README.md", "[r](../index.html)", "link unverified README via page"},
		{"index.html is index.md", "[a](api/index.html)", "link unverified APIIDX via page"},
		{"a page without extension", "[i](install)", "link unverified INST via page"},
		{"a page as a directory URL", "[g](../docs/guide/)", "link unverified GUIDE via page"},
		{"a missing page is broken", "[x](nothing.html)", "link broken docs/nothing.html"},
		{"GitHub's user-content anchors", "[u](../README.md#user-content-usage)", "link resolved README#Usage"},
		{"GitHub's numbered anchors of repeated headings", "[u](../README.md#usage-1)", "link resolved README#Usage"},
		{"a number past the repeats is broken", "[u](../README.md#usage-2)", "link broken README"},
		{"GitHub's slug of punctuation", "[p](../README.md#dont-panic)", "link resolved README#Don't panic!"},
		{"a slug differing in punctuation is unverified", "[p](guide.md#apiget)", "link unverified GUIDE#API: get() via slug"},
		{"a local heading differing in punctuation is unverified", "# A.B\n\n[l](#a-b)", "link unverified DOC#A.B via slug"},
		{"a missing local heading is broken", "# A\n\n[l](#zzz)", "link broken DOC"},
		{"a missing file is broken", "[x](missing.md)", "link broken docs/missing.md"},
		{"doc role by document name", "{doc}`install`", "doc resolved INST"},
		{"doc role from the source root", "{doc}`/guide`", "doc resolved GUIDE"},
		{"a missing doc is broken", "{doc}`nothing`", "doc broken docs/nothing"},
		{"ref role is unverified", "{ref}`my-label`", "ref unverified via label"},
		{"mdBook include names a file", "```rust\n{{#include ../listings/lib.rs}}\n```", "include resolved LIB"},
		{"mdBook include of lines", "```rust\n{{#include ../listings/lib.rs:2:2}}\n```", "include resolved LIB:L2"},
		{"a missing include is broken", "```rust\n{{#include ../listings/gone.rs}}\n```", "include broken listings/gone.rs"},
		{"a python example resolves to python", "```python\nrun()\n```", "example resolved APP#run"},
		{"a go example does not bind to python", "```go\nfunc main() { run() }\n```", "example unresolved"},
		{"an example name with several definitions is unresolved, not ambiguous", "```python\ncli.get_command()\n```", "example unresolved"},
		{"the same name in a code span is ambiguous", "`get_command`", "code ambiguous"},
		{"a MyST method role", "{meth}`~Group.get_command`", "code resolved APP#get_command"},
		{"mkdocstrings autodoc line", "::: app.run", "code resolved APP#run"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := siteGraph(t, tc.doc)
			if len(res) != 1 {
				var all []string
				for _, r := range res {
					all = append(all, siteDescribe(r))
				}
				t.Fatalf("%d resolutions %q, want 1", len(res), all)
			}
			if got := siteDescribe(res[0]); got != tc.want {
				t.Errorf("got %q, want %q (%s)", got, tc.want, res[0].Reason)
			}
		})
	}
}

// TestRSTResolves: a reStructuredText artifact's roles name code in any
// language, as Markdown's code spans do, and its links follow the link rules.
func TestRSTResolves(t *testing.T) {
	g := siteGraphOf(t, append(siteFixture,
		siteDoc{"RST", "docs/api.rst", "API\n===\n\n:py:func:`app.run` and :func:`Run`, see `the guide <guide.html>`_.\n"})...)
	var got []string
	for _, r := range g.Resolve("RST") {
		got = append(got, siteDescribe(r))
	}
	want := []string{"code resolved APP#run", "code resolved MAIN#Run", "link unverified GUIDE via page"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestSiteLinksIncoming: the page a site link reaches lists it among its
// incoming references, unverified ones included.
func TestSiteLinksIncoming(t *testing.T) {
	g := siteGraphOf(t, append(siteFixture,
		siteDoc{"A", "docs/a.md", "[home](../index.html) and [docs](./) and {doc}`guide` and [g](guide.html)\n"},
		siteDoc{"B", "docs/b.md", "```python\nrun()\n```\n"},
		siteDoc{"DOCS", "docs/README.md", "# Docs\n"})...)
	for _, tc := range []struct {
		id   string
		want []string
	}{
		{"README", []string{"link unverified README via page"}},
		{"GUIDE", []string{"doc resolved GUIDE", "link unverified GUIDE via page"}},
		{"APP", []string{"example resolved APP#run"}},
		{"DOCS", []string{"link resolved DOCS"}},
	} {
		t.Run(tc.id, func(t *testing.T) {
			var got []string
			for _, r := range g.Incoming(tc.id) {
				got = append(got, siteDescribe(r))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("incoming %q, want %q", got, tc.want)
			}
		})
	}
}
