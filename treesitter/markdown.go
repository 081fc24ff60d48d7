package treesitter

import (
	"bytes"
	"hash/maphash"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/lunad/lunad/internal/lazyregexp"
)

// hasScheme matches absolute URLs (https:, mailto:, ...), which are not
// references to artifacts.
var hasScheme = lazyregexp.New(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// extractMarkdown runs markdown.scm on the block tree and, for the inline
// spans that can hold a code span or link, markdown_inline.scm on a parse
// of just that span. Results per inline span are cached by its text: cache
// is the previous map (nil for none), the returned map the current one.
func (p *Parser) extractMarkdown(root *sitter.Node, src []byte, lines *Lines, cache map[uint64][]ref) (*File, map[uint64][]ref, error) {
	col := newCollector()
	g := grammars[LangMarkdown]
	var inlines [][2]int
	var fences []fenceBlock
	var fenceLangs []string
	var anchors []string
	walkBlocks(g.ts, root, func(kind string, n *sitter.Node) {
		switch kind {
		case mdInline:
			inlines = append(inlines, [2]int{int(n.StartByte()), int(n.EndByte())})
		case mdSection: // a heading's definition is the whole section it opens
			if h := namedChild(n, mdATXHeading); h != nil {
				if name := h.ChildByFieldName("heading_content"); name != nil && name.Type() == mdInline {
					addHeading(col, src, n, name)
				}
			}
		case mdSetext: // no section in this grammar: the span is the heading
			if p := n.ChildByFieldName("heading_content"); p != nil && p.Type() == mdParagraph {
				if name := namedChild(p, mdInline); name != nil {
					addHeading(col, src, n, name)
				}
			}
		case mdHTMLBlock:
			for _, a := range scanAnchors(src[n.StartByte():n.EndByte()]) {
				anchors = addAnchor(anchors, a.Name)
			}
		case mdLinkRefDef:
			if l := namedChild(n, mdLinkLabel); l != nil && strings.HasPrefix(l.Content(src), "[^") {
				return // a footnote ("[^1]: text"), not a link
			}
			if d := namedChild(n, mdLinkDest); d != nil {
				addLink(col.addRef, d.Content(src), int(d.StartByte()), int(d.EndByte()))
			}
		case mdFenced:
			info, body := namedChild(n, mdInfoString), namedChild(n, mdFenceContent)
			var b fenceBlock
			lang := ""
			switch {
			case body != nil:
				b.start, b.end = int(body.StartByte()), int(body.EndByte())
			case info != nil: // no content: it would start after the fence line
				b.start = int(info.EndByte())
				if i := bytes.IndexByte(src[b.start:], '\n'); i >= 0 {
					b.start += i + 1
				}
				b.end = b.start
			default:
				return
			}
			if info != nil {
				b.info = info.Content(src)
				if l := namedChild(info, mdLanguage); l != nil {
					lang = l.Content(src)
				}
			}
			fences = append(fences, b)
			fenceLangs = append(fenceLangs, lang)
		}
	})
	next := make(map[uint64][]ref, len(inlines)+len(fences))
	for i, b := range fences {
		if err := p.addFence(col, src, b, fenceLangs[i], cache, next); err != nil {
			return nil, nil, err
		}
	}
	for i, in := range splitInlines(src, inlines) {
		if i%256 == 255 && p.overBudget() {
			return nil, nil, errBudget
		}
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
			if r.Kind == "code" && r.Role == "" {
				r.Role = intern(listRole(src, r.start))
			}
			if r.Kind == kindAnchor {
				anchors = addAnchor(anchors, r.Name)
				continue
			}
			col.addRef(&r)
		}
	}
	instanceTargets(col, src, fences)
	return col.finish(&File{Language: LangMarkdown, Anchors: anchors}, src, lines), next, nil
}

// maxInline is the longest inline span given to the inline grammar at
// once. Its parse and query time grow faster than the span's length (a
// 1.7 MB paragraph took 3.7 s, four times shorter ones 0.6 s), so longer
// spans — never a paragraph people write — are parsed in pieces, cut at a
// line break or a space: a code span or link across a cut is not found.
const maxInline = 4 << 10

// splitInlines cuts the inline spans longer than maxInline into pieces.
func splitInlines(src []byte, inlines [][2]int) [][2]int {
	var out [][2]int
	for i, in := range inlines {
		if in[1]-in[0] <= maxInline {
			if out != nil {
				out = append(out, in)
			}
			continue
		}
		if out == nil {
			out = append(make([][2]int, 0, len(inlines)+(in[1]-in[0])/maxInline), inlines[:i]...)
		}
		for s := in[0]; s < in[1]; {
			e := min(s+maxInline, in[1])
			if e < in[1] {
				piece := src[s:e]
				switch {
				case bytes.LastIndexByte(piece[maxInline/2:], '\n') >= 0:
					e = s + maxInline/2 + bytes.LastIndexByte(piece[maxInline/2:], '\n') + 1
				case bytes.LastIndexByte(piece[maxInline/2:], ' ') >= 0:
					e = s + maxInline/2 + bytes.LastIndexByte(piece[maxInline/2:], ' ') + 1
				default:
					for e > s && !utf8.RuneStart(src[e]) {
						e--
					}
				}
			}
			out = append(out, [2]int{s, e})
			s = e
		}
	}
	if out == nil {
		return inlines
	}
	return out
}

func addHeading(col *collector, src []byte, tagged, name *sitter.Node) {
	col.addDef(&def{
		Symbol: Symbol{Name: headingText(name.Content(src)), Kind: "heading"},
		start:  int(tagged.StartByte()), end: int(tagged.EndByte()),
		nameStart: int(name.StartByte()), nameEnd: int(name.EndByte()),
	})
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
	out = append(out, scanAutodoc(text)...)
	out = append(out, scanIncludes(text)...)
	var anchors []ref
	if bytes.IndexByte(text, '<') >= 0 {
		anchors = scanAnchors(text)
	}
	if !bytes.ContainsRune(text, '`') && !bytes.Contains(text, []byte("](")) {
		// no code span, and no inline link or image ("](" is how every one
		// is written); a [[wiki]] link needs no grammar
		return append(out, anchors...), nil
	}
	if codes, links, ok := plainInline(text); ok {
		// plain enough for a scan to read as the grammar would: no grammar
		// either (most paragraphs of documentation)
		for _, sp := range codes {
			codeSpanRef(text, sp[0], sp[1], add)
		}
		for _, l := range links {
			addLink(add, string(text[l[0]:l[1]]), l[0], l[1])
		}
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
		matches(markdownInline, p.queryCursor(), tree.RootNode(), text, func(c capture) {
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
	var codeSpans [][2]int
	matches(markdownInline, p.queryCursor(), tree.RootNode(), text, func(c capture) {
		s, e := int(c.tagged.StartByte()), int(c.tagged.EndByte())
		if c.tag == "reference.code" {
			codeSpans = append(codeSpans, [2]int{s, e})
		}
		if inWiki(s, e) {
			return
		}
		switch c.tag {
		case "reference.code":
			codeSpanRef(text, s, e, add)
		case "reference.link":
			addLink(add, c.tagged.Content(text), s, e)
		}
	})
	for _, a := range anchors { // <a name="x"> written in a code span is shown, not rendered
		if !slices.ContainsFunc(codeSpans, func(sp [2]int) bool { return a.start >= sp[0] && a.end <= sp[1] }) {
			out = append(out, a)
		}
	}
	return out, nil
}

// codeSpanRef adds the reference the code span text[s:e] (with its
// backticks) makes, if any: a MyST role's target, or a name with the role
// the words around it give.
func codeSpanRef(text []byte, s, e int, add func(*ref)) {
	raw := strings.Trim(string(text[s:e]), "`")
	if rs, role := mystRoleBefore(text, s); rs >= 0 {
		if r, ok := roleRef(role, strings.TrimSpace(raw)); ok {
			add(&ref{Reference: r, start: rs, end: e})
		}
		return // a role's content is what the role says, never a plain code span
	}
	name, role, ok := spanName(raw)
	if !ok {
		return
	}
	if role == "" {
		before := text[max(0, s-maxRoleWords):s]
		role = spanRole(before, text[e:min(len(text), e+maxRoleWords)])
		if role == "" && plainWord(name) && copulaBefore().Match(before) {
			role = RoleVariable // "classes should be `frozen`": a state, not the function frozen()
		}
	}
	add(&ref{Reference: Reference{Name: name, Kind: "code", Role: intern(role)}, start: s, end: e})
}

// plainInline reads the code spans and inline link destinations of an
// inline span without the inline grammar, when the span is plain enough
// that a scan reads it as the grammar does:
//   - no '<' (autolinks, HTML), '\' (escapes) or '$' (the grammar's LaTeX
//     spans);
//   - backtick runs all of one length (the grammar closes a span of one
//     backtick inside a longer run, where CommonMark does not), which pair
//     in order into code spans (a last one without a partner is text), no
//     bracket inside a code span;
//   - outside code spans, every '[' opens a link or image [text](dest) —
//     text without '[', code spans in it whole; dest up to the first ')',
//     without spaces, quotes, brackets, parentheses, backticks — or a
//     [[wiki]] link (not followed by '(' or '['), and every ']' closes one
//     of those.
//
// Emphasis and strikethrough bind less tightly than code spans and links.
// ok is false when the span is not such. codes include their backticks;
// links are the destinations. TestPlainInline and FuzzPlainInline compare
// it with the grammar.
func plainInline(text []byte) (codes, links [][2]int, ok bool) {
	if bytes.ContainsAny(text, "<\\$") {
		return nil, nil, false
	}
	open, width := -1, 0
	for i := 0; i < len(text); {
		j := bytes.IndexByte(text[i:], '`')
		if j < 0 {
			break
		}
		at := i + j
		n := 1
		for at+n < len(text) && text[at+n] == '`' {
			n++
		}
		if width == 0 {
			width = n
		}
		if n != width {
			return nil, nil, false
		}
		if open < 0 {
			open = at
		} else {
			if bytes.ContainsAny(text[open:at], "[]") {
				return nil, nil, false
			}
			codes = append(codes, [2]int{open, at + n})
			open = -1
		}
		i = at + n
	}
	// next returns the first '[' or ']' at or after i outside code spans
	// (c: the first code span not ending before i), or len(text).
	c := 0
	next := func(i int) int {
		for i < len(text) {
			for c < len(codes) && codes[c][1] <= i {
				c++
			}
			k := bytes.IndexAny(text[i:], "[]")
			if k < 0 {
				return len(text)
			}
			i += k
			if c < len(codes) && codes[c][0] <= i && i < codes[c][1] {
				i = codes[c][1]
				continue
			}
			return i
		}
		return len(text)
	}
	for i := next(0); i < len(text); i = next(i) {
		if text[i] == ']' {
			return nil, nil, false
		}
		if i+1 < len(text) && text[i+1] == '[' { // [[wiki]]
			k := bytes.Index(text[i+2:], []byte("]]"))
			if k < 0 {
				return nil, nil, false
			}
			inner := text[i+2 : i+2+k]
			end := i + 2 + k + 2
			if len(bytes.TrimSpace(inner)) == 0 || bytes.ContainsAny(inner, "[]`\n") || end < len(text) && (text[end] == '(' || text[end] == '[') {
				return nil, nil, false
			}
			i = end
			continue
		}
		k := next(i + 1)
		if k+1 >= len(text) || text[k] != ']' || text[k+1] != '(' {
			return nil, nil, false
		}
		e := bytes.IndexByte(text[k+2:], ')')
		if e < 0 {
			return nil, nil, false
		}
		dest := text[k+2 : k+2+e]
		if bytes.ContainsAny(dest, " \t\r\n\f\v()[]`\"'") {
			return nil, nil, false
		}
		if e > 0 {
			links = append(links, [2]int{k + 2, k + 2 + e})
		}
		i = k + 2 + e + 1
	}
	return codes, links, true
}

// addLink records a relative link destination. Name is the fragment
// ("parse_config" in "config.py#parse_config", "L10", "usage") or, without
// one, the path; Target is the destination as written (minus <>).
func addLink(add func(*ref), dest string, start, end int) {
	dest = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(dest, "<"), ">"))
	if dest == "" || hasScheme().MatchString(dest) || strings.HasPrefix(dest, "//") {
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
