package treesitter

import (
	"bytes"
	"hash/maphash"
	"regexp"
	"strings"
	"unicode"

	sitter "github.com/smacker/go-tree-sitter"
)

// symbolLike is the shape of an inline code span that names a symbol:
// parse_config, Parser.Parse, std::fs::read, Foo#bar, optionally with "()".
var symbolLike = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*((\.|::|#)[A-Za-z_$][A-Za-z0-9_$]*)*(\(\))?$`)

// hasScheme matches absolute URLs (https:, mailto:, ...), which are not
// references to artifacts.
var hasScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// extractMarkdown runs markdown.scm on the block tree and, for the inline
// spans that can hold a code span or link, markdown_inline.scm on a parse
// of just that span. Results per inline span are cached by its text: cache
// is the previous map (nil for none), the returned map the current one.
func (p *Parser) extractMarkdown(root *sitter.Node, src []byte, lines *Lines, cache map[uint64][]ref) (*File, map[uint64][]ref, error) {
	col := newCollector()
	g := grammars[LangMarkdown]
	var inlines [][2]int
	matches(g.query, p.queryCursor(), root, src, func(c capture) {
		if n := c.other["inline"]; n != nil {
			inlines = append(inlines, [2]int{int(n.StartByte()), int(n.EndByte())})
		}
		switch c.tag {
		case "definition.heading":
			col.addDef(&def{
				Symbol: Symbol{Name: headingText(c.name.Content(src)), Kind: "heading"},
				start:  int(c.tagged.StartByte()), end: int(c.tagged.EndByte()),
				nameStart: int(c.name.StartByte()), nameEnd: int(c.name.EndByte()),
			})
		case "reference.link":
			addLink(col.addRef, c.tagged.Content(src), int(c.tagged.StartByte()), int(c.tagged.EndByte()))
		case "reference.snippet":
			r := &ref{Reference: Reference{Kind: "snippet", Name: "code"}, start: int(c.tagged.StartByte()), end: int(c.tagged.EndByte())}
			if l := c.other["lang"]; l != nil {
				r.Name = l.Content(src)
			}
			col.addRef(r)
		}
	})
	next := make(map[uint64][]ref, len(inlines))
	for _, in := range inlines {
		text := src[in[0]:in[1]]
		key := maphash.Bytes(chunkSeed, text)
		refs, ok := cache[key]
		if !ok {
			refs, ok = next[key]
		}
		if !ok {
			var err error
			if refs, err = p.inlineRefs(text); err != nil {
				return nil, nil, err
			}
		}
		next[key] = refs
		for _, r := range refs {
			r.start, r.end = r.start+in[0], r.end+in[0]
			col.addRef(&r)
		}
	}
	return col.finish(&File{Language: LangMarkdown}, src, lines), next, nil
}

// inlineRefs finds the references in one inline span; offsets are
// relative to text.
func (p *Parser) inlineRefs(text []byte) ([]ref, error) {
	var out []ref
	add := func(r *ref) { out = append(out, *r) }
	wikis := scanWiki(text)
	for _, w := range wikis {
		name := string(bytes.TrimSpace(text[w[0]+2 : w[1]-2]))
		if i := strings.IndexByte(name, '|'); i >= 0 {
			name = strings.TrimSpace(name[:i])
		}
		if name != "" {
			add(&ref{Reference: Reference{Name: name, Kind: "wiki", Target: name}, start: w[0], end: w[1]})
		}
	}
	if !bytes.ContainsAny(text, "`[") {
		return out, nil
	}
	tree, _, err := p.parseTree(markdownInline, nil, text)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	inWiki := func(s, e int) bool {
		for _, w := range wikis {
			if s >= w[0] && e <= w[1] {
				return true
			}
		}
		return false
	}
	if len(wikis) > 0 {
		var spans [][2]int // code spans: a [[...]] inside one is code, not a link
		matches(markdownInline.query, p.queryCursor(), tree.RootNode(), text, func(c capture) {
			if c.tag == "reference.code" {
				spans = append(spans, [2]int{int(c.tagged.StartByte()), int(c.tagged.EndByte())})
			}
		})
		kept := out[:0]
		for _, r := range out {
			inSpan := false
			for _, sp := range spans {
				inSpan = inSpan || r.start >= sp[0] && r.end <= sp[1]
			}
			if !inSpan {
				kept = append(kept, r)
			}
		}
		out = kept
		wikis = wikis[:0]
		for _, r := range out {
			wikis = append(wikis, [2]int{r.start, r.end})
		}
	}
	matches(markdownInline.query, p.queryCursor(), tree.RootNode(), text, func(c capture) {
		s, e := int(c.tagged.StartByte()), int(c.tagged.EndByte())
		if inWiki(s, e) {
			return
		}
		switch c.tag {
		case "reference.code":
			code := strings.TrimSpace(strings.Trim(c.tagged.Content(text), "`"))
			if !symbolLike.MatchString(code) {
				return
			}
			add(&ref{Reference: Reference{Name: strings.TrimSuffix(code, "()"), Kind: "code"}, start: s, end: e})
		case "reference.link":
			addLink(add, c.tagged.Content(text), s, e)
		}
	})
	return out, nil
}

// addLink records a relative link destination. Name is the fragment
// ("parse_config" in "config.py#parse_config", "L10", "usage") or, without
// one, the path; Target is the destination as written (minus <>).
func addLink(add func(*ref), dest string, start, end int) {
	dest = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(dest, "<"), ">"))
	if dest == "" || hasScheme.MatchString(dest) || strings.HasPrefix(dest, "//") {
		return
	}
	name := dest
	if i := strings.IndexByte(dest, '#'); i >= 0 && i+1 < len(dest) {
		name = dest[i+1:]
	}
	add(&ref{Reference: Reference{Name: name, Kind: "link", Target: dest}, start: start, end: end})
}

// headingText is a heading's text without the optional closing #s.
func headingText(s string) string {
	s = strings.TrimSpace(s)
	if t := strings.TrimRight(s, "#"); t != s && (t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t")) {
		s = strings.TrimSpace(t)
	}
	return s
}

// scanWiki returns the [start, end) offsets of [[...]] links in text: no
// newline, no nested brackets, non-empty.
func scanWiki(text []byte) [][2]int {
	var out [][2]int
	for i := 0; i+4 <= len(text); {
		j := bytes.Index(text[i:], []byte("[["))
		if j < 0 {
			break
		}
		open := i + j
		k := bytes.Index(text[open+2:], []byte("]]"))
		if k <= 0 {
			break
		}
		inner := text[open+2 : open+2+k]
		if bytes.ContainsAny(inner, "[]\n") || len(bytes.TrimSpace(inner)) == 0 {
			i = open + 1
			continue
		}
		out = append(out, [2]int{open, open + 2 + k + 2})
		i = open + 2 + k + 2
	}
	return out
}

// Slug is the GitHub-style anchor of a heading ("Parse config!" ->
// "parse-config"), to match links like "README.md#parse-config".
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ' || r == '-':
			b.WriteByte('-')
		case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
