package treesitter

import (
	"bytes"
	"strings"

	"github.com/lunad/lunad/internal/lazyregexp"
)

// LangRST is reStructuredText: there is no grammar for it in lunad, so it
// is read by a line scanner (parseRST): section titles are headings, and
// roles, hyperlinks and include directives are references.
const LangRST = "rst"

// rstRole matches an interpreted-text role: :func:`name`, :py:meth:`~a.b`.
var rstRole = lazyregexp.New("(?:^|[^\\w`:]):([A-Za-z][A-Za-z0-9_.+-]*(?::[A-Za-z][A-Za-z0-9_.+-]*)*):`([^`\\n]+)`")

// rstLink matches an embedded-URI hyperlink: `text <url>`_ or `text <url>`__.
var rstLink = lazyregexp.New("`([^`<\\n]*)<([^`>\\n]+)>`__?")

// rstTarget matches an external hyperlink target: .. _label: url.
var rstTarget = lazyregexp.New(`(?m)^[ \t]*\.\. _[^:\n]+:[ \t]+(\S+)[ \t]*$`)

// rstInclude matches the include directives: .. include:: path and
// .. literalinclude:: path.
var rstInclude = lazyregexp.New(`(?m)^[ \t]*\.\. (?:literal)?include::[ \t]+(\S+)[ \t]*$`)

// rstObject matches a directive documenting a named object:
// .. autofunction:: httpx.get, .. py:method:: Client.get(url).
var rstObject = lazyregexp.New(`(?m)^[ \t]*\.\. ((?:auto|py:)[a-z]+)::[ \t]+([^\s(]+)`)

// rstRefs returns the references of reStructuredText: roles (kind "code",
// "doc" or "ref", see roleRef), hyperlinks with an embedded URI and
// external hyperlink targets (kind "link", relative ones only), the
// objects autodoc and Python-domain directives document (kind "code"),
// and include directives (kind "include").
func rstRefs(text []byte) []ref {
	var out []ref
	for _, m := range rstRole().FindAllSubmatchIndex(text, -1) {
		start := m[2] - 1 // the leading ':' of the role
		if r, ok := roleRef(string(text[m[2]:m[3]]), string(text[m[4]:m[5]])); ok {
			out = append(out, ref{Reference: r, start: start, end: m[1]})
		}
	}
	add := func(r *ref) { out = append(out, *r) }
	for _, m := range rstLink().FindAllSubmatchIndex(text, -1) {
		if m[0] > 0 && text[m[0]-1] == ':' {
			continue // a role's content, not a link
		}
		addLink(add, string(text[m[4]:m[5]]), m[0], m[1])
	}
	for _, m := range rstTarget().FindAllSubmatchIndex(text, -1) {
		addLink(add, string(text[m[2]:m[3]]), m[2], m[3])
	}
	for _, m := range rstObject().FindAllSubmatchIndex(text, -1) {
		if r, ok := directiveArgRef(string(text[m[2]:m[3]]), string(text[m[4]:m[5]])); ok {
			out = append(out, ref{Reference: r, start: m[4], end: m[5]})
		}
	}
	for _, m := range rstInclude().FindAllSubmatchIndex(text, -1) {
		if r, ok := includeRef(string(text[m[2]:m[3]])); ok {
			out = append(out, ref{Reference: r, start: m[2], end: m[3]})
		}
	}
	return out
}

// rstAdornment reports whether a line is a section adornment: one
// punctuation character repeated, at least twice.
func rstAdornment(line []byte) bool {
	line = bytes.TrimRight(line, " \t\r")
	if len(line) < 2 {
		return false
	}
	c := line[0]
	if !strings.ContainsRune("=-`:'\"~^_*+#<>.", rune(c)) {
		return false
	}
	for _, b := range line {
		if b != c {
			return false
		}
	}
	return true
}

// parseRST extracts a reStructuredText artifact: every section title (a
// line of text underlined, optionally also overlined, by an adornment at
// least as long) is a definition of kind "heading" spanning the title and
// its adornments; references are those of rstRefs.
func (p *Parser) parseRST(src []byte, lines *Lines) (*File, error) {
	col := newCollector()
	for _, b := range rstCodeBlocks(src) {
		col.addRef(&ref{Reference: Reference{Kind: "snippet", Name: b.lang}, start: b.start, end: b.end})
		lang := fenceLanguages[strings.ToLower(b.lang)]
		if lang == "" {
			continue
		}
		refs, err := p.exampleRefs(lang, src[b.start:b.end])
		if err != nil {
			return nil, err
		}
		for _, r := range refs {
			r.start, r.end = r.start+b.start, r.end+b.start
			col.addRef(&r)
		}
	}
	var starts []int // line start offsets
	for i := 0; i <= len(src); {
		starts = append(starts, i)
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	line := func(k int) []byte {
		end := len(src)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		return bytes.TrimRight(src[starts[k]:end], "\r\n")
	}
	for k := 0; k+1 < len(starts); k++ {
		title, under := line(k), line(k+1)
		text := bytes.TrimSpace(title)
		if len(text) == 0 || rstAdornment(title) || title[0] == ' ' || title[0] == '\t' || !rstAdornment(under) ||
			len(bytes.TrimRight(under, " \t")) < len(bytes.TrimRight(title, " \t")) {
			continue
		}
		start := starts[k]
		if k > 0 && rstAdornment(line(k-1)) {
			start = starts[k-1]
		}
		end := starts[k+1] + len(under)
		col.addDef(&def{Symbol: Symbol{Name: string(text), Kind: "heading"}, start: start, end: end,
			nameStart: starts[k], nameEnd: starts[k] + len(bytes.TrimRight(title, " \t"))})
		k++
	}
	for _, r := range rstRefs(src) {
		col.addRef(&r)
	}
	return col.finish(&File{Language: LangRST}, src, lines), nil
}

// rstCodeDirective matches the directives whose content is code:
// ".. code-block:: python", ".. code:: go", ".. sourcecode:: rust".
var rstCodeDirective = lazyregexp.New(`^([ \t]*)\.\. (?:code-block|code|sourcecode)::[ \t]*(\S*)`)

// rstBlock is the content of a code directive.
type rstBlock struct {
	lang       string
	start, end int
}

// rstCodeBlocks finds the content of the code directives of src: the
// lines after the directive (its ":option:" lines skipped) indented more
// than it, up to the first line that is not.
func rstCodeBlocks(src []byte) []rstBlock {
	if !bytes.Contains(src, []byte("::")) {
		return nil
	}
	var out []rstBlock
	var cur *rstBlock
	indent, inOptions := 0, false
	for off := 0; off < len(src); {
		end := len(src)
		if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		line := src[off:end]
		text := bytes.TrimSpace(line)
		lead := len(line) - len(bytes.TrimLeft(line, " \t"))
		switch {
		case cur != nil && len(text) == 0:
			inOptions = false
		case cur != nil && lead > indent:
			if inOptions && text[0] == ':' {
				break
			}
			inOptions = false
			if cur.start < 0 {
				cur.start = off
			}
			cur.end = end
		default:
			if cur != nil && cur.start >= 0 {
				out = append(out, *cur)
			}
			cur = nil
			if m := rstCodeDirective().FindSubmatch(line); m != nil {
				cur = &rstBlock{lang: string(m[2]), start: -1}
				if cur.lang == "" {
					cur.lang = "code"
				}
				indent, inOptions = len(m[1]), true
			}
		}
		off = end
	}
	if cur != nil && cur.start >= 0 {
		out = append(out, *cur)
	}
	return out
}
