package treesitter

import (
	"slices"
	"strings"
	"testing"
)

// TestSiteMarkup: the markup documentation sites add to Markdown and
// reStructuredText, one rule per subtest ("kind name line target").
func TestSiteMarkup(t *testing.T) {
	p := NewParser()
	defer p.Close()
	tests := []struct {
		name, typ, src string
		refs           []string
	}{
		{"python example names are example references", "text/markdown",
			"```python\nimport httpx\nr = httpx.get(url)\nprint(r.aread())\n```\n",
			[]string{"snippet python 1 ", "example get 2 python", "example url 2 python", "example print 3 python", "example aread 3 python"}},
		{"an example's own definitions are not references", "text/markdown",
			"```go\nfunc handler(s ssh.Session) {}\n\nfunc main() { ssh.Handle(handler) }\n```\n",
			[]string{"snippet go 1 ", "example ssh.Session 1 go", "example ssh.Handle 3 go"}},
		{"mdBook rust,ignore is rust", "text/markdown", "```rust,ignore\nlet b = MDBook::load(dir)?;\n```\n",
			[]string{"snippet rust 1 ", "example load 1 rust"}},
		{"a language lunad does not parse is only a snippet", "text/markdown", "```console\n$ ls(x)\n```\n",
			[]string{"snippet console 1 "}},
		{"MyST directive fence is not a snippet", "text/markdown", "```{contents}\n:local:\n:depth: 2\n```\n", nil},
		{"MyST admonition content is Markdown", "text/markdown", "```{note}\nCall `parse_config` first.\n```\n",
			[]string{"code parse_config 1 "}},
		{"MyST code-block is a snippet and an example", "text/markdown", "```{code-block} python\nclick.echo(x)\n```\n",
			[]string{"snippet python 1 ", "example echo 1 python", "example x 1 python"}},
		{"MyST literalinclude names a file", "text/markdown", "```{literalinclude} ../src/app.py\n:lines: 1-3\n```\n",
			[]string{"include ../src/app.py 0 ../src/app.py"}},
		{"MyST toctree entries are documents", "text/markdown", "```{toctree}\n:maxdepth: 2\n\nintro\nAPI <api/index>\n*\n```\n",
			[]string{"doc intro 3 intro", "doc api/index 4 api/index"}},
		{"MyST code roles", "text/markdown", "See {meth}`~Group.get_command`, {py:func}`click.echo` and {class}`Click <click.Command>`.\n",
			[]string{"code Group.get_command 0 ", "code click.echo 0 ", "code click.Command 0 "}},
		{"MyST doc and ref roles", "text/markdown", "See {doc}`../api` and {ref}`my-label`, not {math}`x+1`.\n",
			[]string{"doc ../api 0 ../api", "ref my-label 0 my-label"}},
		{"a role's content is not a plain code span", "text/markdown", "{abbr}`CLI (command line)` and {term}`parse_config`\n", nil},
		{"mkdocstrings autodoc lines", "text/markdown", "# API\n\n::: httpx.get\n\n::: httpx.Client\n    options:\n      show_source: false\n",
			[]string{"code httpx.get 2 ", "code httpx.Client 4 "}},
		{"mdBook include in a fence", "text/markdown", "```rust\n{{#include ../listings/ch01/main.rs}}\n```\n",
			[]string{"include ../listings/ch01/main.rs 1 ../listings/ch01/main.rs"}},
		{"mdBook rustdoc_include with an anchor and lines", "text/markdown",
			"```rust\n{{#rustdoc_include ../src/lib.rs:setup}}\n{{#include ../src/lib.rs:3:9}}\n```\n",
			[]string{"include setup 1 ../src/lib.rs", "include L3-L9 2 ../src/lib.rs#L3-L9"}},
		{"footnotes are not links", "text/markdown", "Text[^1] and [a](b.md).\n\n[^1]: notes.md\n\n[ref]: c.md\n",
			[]string{"link b.md 0 b.md", "link c.md 4 c.md"}},
		{"mdx is Markdown", "guide.mdx", "import X from './x'\n\n# Guide\n\nCall `create()` and see [api](api.mdx).\n",
			[]string{"code create 4 ", "link api.mdx 4 api.mdx"}},
		{"rst roles", "text/x-rst", "Use :func:`click.echo` and :py:meth:`~Group.get_command`, not :math:`x`.\n",
			[]string{"code click.echo 0 ", "code Group.get_command 0 "}},
		{"rst links, targets and includes", "text/x-rst",
			"See `the guide <guide.rst#usage>`_ and `web <https://x.org>`__.\n\n.. _api: api/index.rst\n.. literalinclude:: ../src/app.py\n",
			[]string{"link usage 0 guide.rst#usage", "link api/index.rst 2 api/index.rst", "include ../src/app.py 3 ../src/app.py"}},
		{"rst code-block is a snippet and an example", "text/x-rst",
			"Use it:\n\n.. code-block:: python\n   :caption: demo\n\n   if ok:\n       click.echo(x)\n\nDone.\n",
			[]string{"snippet python 5 ", "example echo 6 python", "example x 6 python"}},
		{"an example in a list item (indented)", "text/markdown",
			"- step:\n\n  ```python\n  if ok:\n      run(cfg)\n  ```\n",
			[]string{"snippet python 3 ", "example run 4 python", "example cfg 4 python"}},
		{"MyST literalinclude without options", "text/markdown", "```{literalinclude} ../src/app.py\n```\n",
			[]string{"include ../src/app.py 0 ../src/app.py"}},
		{"MyST autodoc directives name the object", "text/markdown",
			"```{autofunction} httpx.get\n```\n\n```{py:method} Client.send(request)\n:noindex:\n```\n",
			[]string{"code httpx.get 0 ", "code Client.send 3 "}},
		{"rst autodoc and Python-domain directives", "text/x-rst",
			".. autoclass:: httpx.Client\n   :members:\n\n.. py:function:: httpx.get(url)\n.. note:: x\n",
			[]string{"code httpx.Client 0 ", "code httpx.get 3 "}},
		{"rst by file name", "docs/index.rst", "Title\n=====\n\n:doc:`install`\n", []string{"doc install 3 install"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := p.Parse(tc.typ, []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := refLines(f); !slices.Equal(got, tc.refs) {
				t.Errorf("refs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.refs, "\n"))
			}
		})
	}
}

// TestRSTHeadings: section titles, under- and overlined, are headings;
// an adornment shorter than its title or a transition is not.
func TestRSTHeadings(t *testing.T) {
	p := NewParser()
	defer p.Close()
	src := "=====\nTitle\n=====\n\nIntro.\n\nUsage\n-----\n\nShort\n--\n\n----------\n\nAPI `x`\n~~~~~~~\n"
	f, err := p.Parse("text/x-rst", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range f.Symbols {
		got = append(got, s.Kind+" "+s.Name)
	}
	want := []string{"heading Title", "heading Usage", "heading API `x`"}
	if !slices.Equal(got, want) {
		t.Errorf("symbols = %q, want %q", got, want)
	}
	if f.Symbols[0].Span.Start.Line != 0 || f.Symbols[0].Span.End.Line != 2 {
		t.Errorf("overlined title spans %+v, want lines 0-2", f.Symbols[0].Span)
	}
}

// FuzzSiteMarkup: the scanners of roles (MyST and reStructuredText),
// mdBook includes and mkdocstrings lines never panic on any text, keep
// their spans inside it, and a reStructuredText artifact parses the same
// fresh and after an incremental update.
func FuzzSiteMarkup(f *testing.F) {
	for _, s := range []string{
		"{meth}`~Group.get_command` {doc}`../api` {ref}`x <y>`",
		":py:func:`a.b` `t <u.rst>`_ .. _l: x.md\n.. include:: a.rst\n",
		"{{#include a.rs:1:2}} {{#rustdoc_include b.rs:anchor}} {{#include ::}} {{#playground c.rs}}",
		"::: a.b.c\n:::\n::: x y\n",
		"Title\n=====\n\n===\nT\n===\n`a <b>`__:c:`d`",
		"{}`x` {:}`y` {a}``",
		".. autofunction:: a.b\n.. py:method:: C.d(x)\n.. auto::\n",
		".. code-block:: python\n   :caption: x\n\n   run(1)\n.. code::\n\n  y()\n",
	} {
		f.Add([]byte(s))
	}
	p := NewParser()
	defer p.Close()
	f.Fuzz(func(t *testing.T, data []byte) {
		inside := func(what string, refs []ref) {
			for _, r := range refs {
				if r.start < 0 || r.end > len(data) || r.start > r.end {
					t.Fatalf("%s span [%d,%d) outside %d bytes", what, r.start, r.end, len(data))
				}
			}
		}
		inside("rst", rstRefs(data))
		inside("include", scanIncludes(data))
		inside("autodoc", scanAutodoc(data))
		for end := range len(data) + 1 {
			if s, role := mystRoleBefore(data, end); s >= 0 && (s >= end || role == "") {
				t.Fatalf("role %q at %d before %d", role, s, end)
			}
		}
		file, err := p.Parse("text/x-rst", data)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range file.References {
			if r.Span.Start.Byte < 0 || r.Span.End.Byte > len(data) || r.Span.Start.Byte > r.Span.End.Byte {
				t.Fatalf("reference %+v outside %d bytes", r, len(data))
			}
		}
		doc, err := p.Open("text/x-rst", data[:len(data)/2])
		if err != nil {
			t.Fatal(err)
		}
		defer doc.Close()
		if got, err := doc.Update(data); err != nil || !slices.EqualFunc(got.References, file.References, func(a, b Reference) bool { return a == b }) {
			t.Fatalf("Update differs from Parse (%v)", err)
		}
	})
}
