package treesitter

import (
	"slices"

	"github.com/lunad/lunad/internal/lazyregexp"
)

// HTML anchors in Markdown: GitHub and every site generator render
// <a name="x"></a>, <a id="x"> and any element's id="x" as a target of
// the link fragment #x, so a fragment that names one is not broken.

// kindAnchor marks an anchor among the references an inline span yields;
// extractMarkdown moves it to File.Anchors.
const kindAnchor = "anchor"

// htmlAnchor matches an element's id="x" and an <a>'s name="x" (single or
// double quotes); data-id= and <meta name=> are not anchors.
var htmlAnchor = lazyregexp.New(`(?i)<(?:a\s[^<>]*?\bname|[a-z][a-z0-9-]*\s(?:[^<>]*?\s)?id)\s*=\s*(?:"([^"<>]+)"|'([^'<>]+)')`)

// scanAnchors returns the anchors of the HTML in text as references of
// kind kindAnchor (Name: the id), with offsets relative to text.
func scanAnchors(text []byte) []ref {
	var out []ref
	for _, m := range htmlAnchor().FindAllSubmatchIndex(text, -1) {
		s, e := m[2], m[3]
		if s < 0 {
			s, e = m[4], m[5]
		}
		out = append(out, ref{Reference: Reference{Name: string(text[s:e]), Kind: kindAnchor}, start: m[0], end: m[1]})
	}
	return out
}

// addAnchor records an anchor id once, in document order.
func addAnchor(anchors []string, id string) []string {
	if slices.Contains(anchors, id) {
		return anchors
	}
	return append(anchors, id)
}

// hasAnchor reports whether e's Markdown declares the HTML anchor id
// (compared as written: HTML ids are case-sensitive).
func hasAnchor(e *Entry, id string) bool {
	return e.File != nil && slices.Contains(e.File.Anchors, id)
}
