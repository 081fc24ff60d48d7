package treesitter

import (
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/lunad/lunad/internal/lazyregexp"
)

// Links as a documentation site sees them. GitHub renders a repository's
// Markdown as is; a site generator (MkDocs, Sphinx, mdBook, Docusaurus)
// renders page.md as page.html and README.md or index.md as a directory's
// index.html, and may make its own heading anchors. A link that GitHub
// resolves is Resolved; one that only a site generator could resolve is
// Unverified, with Via saying which rule found its target.
const (
	ViaPage  = "page"  // page.html for page.md, index.html for README.md or index.md, a page without extension, a directory's index.md
	ViaSlug  = "slug"  // a heading matched only ignoring punctuation
	ViaDir   = "dir"   // a directory with no README or index page
	ViaLabel = "label" // a Sphinx/MyST label ({ref}`label`), which lunad does not index
)

// readmes are the pages GitHub shows for a directory, in its order.
var readmes = []string{"README.md", "readme.md", "Readme.md", "README.mdx", "README.rst", "README.markdown", "README.txt", "README"}

// indexPages are the pages a site generator renders as a directory's
// index.html.
var indexPages = []string{"index.md", "index.mdx", "index.rst", "_index.md"}

// pageExts are the sources a site generator renders as page.html.
var pageExts = []string{".md", ".mdx", ".rst", ".markdown"}

// countDirs adds delta to the count of artifacts under every directory
// containing p.
func (g *Graph) countDirs(p string, delta int) {
	for d := path.Dir(p); d != "." && d != "/" && d != ""; d = path.Dir(d) {
		if g.dirs[d] += delta; g.dirs[d] <= 0 {
			delete(g.dirs, d)
		}
	}
}

// candidates are the workspace paths a relative link p from an artifact at
// from can name: relative to from's directory, then to the root.
func candidates(from, p string) []string {
	if strings.HasPrefix(p, "/") {
		return []string{path.Clean(strings.TrimPrefix(p, "/"))}
	}
	rel, root := path.Join(path.Dir(from), p), path.Clean(p)
	if rel == root {
		return []string{rel}
	}
	return []string{rel, root}
}

// sitePath resolves a link path that names no artifact the way a site
// generator or GitHub would: a directory is its README (Resolved, as on
// GitHub), else its index page (Unverified, ViaPage), else itself
// (Unverified, ViaDir); page.html, index.html and a path without extension
// name the page's source (Unverified, ViaPage). It reports whether it
// found anything; res then holds the state and the artifact.
func (g *Graph) sitePath(e *Entry, p string, res *Resolution) bool {
	if u, err := url.PathUnescape(p); err == nil {
		p = u
	}
	for _, c := range candidates(e.Path, p) {
		if c == "." || g.dirs[c] > 0 {
			join := func(name string) string { return path.Join(c, name) }
			if id := g.firstPath(readmes, join); id != "" {
				res.State, res.Target = Resolved, g.artifactTarget(id)
				return true
			}
			if id := g.firstPath(indexPages, join); id != "" {
				g.unverifiedPage(res, id, p)
				return true
			}
			res.State, res.Via, res.Target = Unverified, ViaDir, Target{Path: c}
			res.Reason = c + " is a directory with no README or index page: GitHub lists it, there is nothing to check"
			return true
		}
	}
	page := strings.TrimSuffix(p, "/") // MkDocs' directory URLs: guide/ is guide.md
	ext := path.Ext(page)
	if ext != ".html" && ext != ".htm" && ext != "" || page == "" {
		return false
	}
	stem := strings.TrimSuffix(page, ext)
	var tries []string
	if path.Base(stem) == "index" {
		dir := path.Dir(stem)
		for _, n := range append(append([]string{}, readmes...), indexPages...) {
			tries = append(tries, path.Join(dir, n))
		}
	}
	for _, x := range pageExts {
		tries = append(tries, stem+x)
	}
	for _, t := range tries {
		if id, _ := g.lookupPath(e.Path, t); id != "" {
			g.unverifiedPage(res, id, p)
			return true
		}
	}
	return false
}

// firstPath is the artifact at the first of names (joined by join) that
// has one, or "".
func (g *Graph) firstPath(names []string, join func(string) string) string {
	for _, n := range names {
		if id := g.byPath[join(n)]; id != "" {
			return id
		}
	}
	return ""
}

func (g *Graph) unverifiedPage(res *Resolution, id, p string) {
	res.State, res.Via, res.Target = Unverified, ViaPage, g.artifactTarget(id)
	res.Reason = p + " is the page a site generator makes of " + g.entries[id].Path + "; GitHub has no such file"
}

func unverifiedSlug(res *Resolution, frag string) {
	res.State, res.Via = Unverified, ViaSlug
	res.Reason = "#" + frag + " matches heading " + strconv.Quote(res.Target.Name) + " only ignoring punctuation; GitHub's anchor is #" +
		Slug(res.Target.Name) + " (set [refs] slugs = \"loose\" in .luna/config.toml if your site makes this one)"
}

// numbered matches GitHub's anchor of a repeated heading: "usage-1" is the
// second heading whose slug is "usage".
var numbered = lazyregexp.New(`^(.+)-([0-9]+)$`)

// siteFragment finds the symbols or headings of e a link fragment names:
// by findFragment; else as GitHub does, without its "user-content-"
// prefix and with the "-1", "-2" of repeated headings; else ignoring
// punctuation and case (loose is then true: only some site generators
// make such anchors).
func siteFragment(e *Entry, frag string) (t []Target, n int, loose bool) {
	if t, n = findFragment(e, frag); n > 0 {
		return t, n, false
	}
	if f, ok := strings.CutPrefix(strings.ToLower(frag), "user-content-"); ok && f != "" {
		if t, n = findFragment(e, f); n > 0 {
			return t, n, false
		}
		frag = f
	}
	if m := numbered().FindStringSubmatch(strings.ToLower(frag)); m != nil {
		k, err := strconv.Atoi(m[2])
		for _, s := range e.defs() {
			if err != nil || s.Kind != "heading" || Slug(s.Name) != m[1] {
				continue
			}
			if k == 0 {
				return []Target{symbolTarget(e, s)}, 1, false
			}
			k--
		}
	}
	want := foldSlug(frag)
	if want == "" {
		return nil, 0, false
	}
	for _, s := range e.defs() {
		if s.Kind == "heading" && foldSlug(s.Name) == want {
			t = appendTarget(t, symbolTarget(e, s))
		}
	}
	return t, len(t), len(t) > 0
}

// foldSlug keeps only the letters and digits of s, lowercased: anchors
// that differ only in punctuation, spaces or case fold the same.
func foldSlug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// resolveSite resolves the references documentation sites add: an
// include (mdBook, MyST, reStructuredText) like a link; a {doc} by its
// document name; a {ref} label as Unverified; an example's name like a
// code span, but only to definitions in the example's language family,
// and never ambiguous (unresolved instead).
func (g *Graph) resolveSite(e *Entry, res *Resolution, f focus) {
	switch res.Ref.Kind {
	case "include":
		g.resolveLink(e, res)
	case "doc":
		g.resolveDoc(e, res)
	case "ref":
		res.State, res.Via = Unverified, ViaLabel
		res.Reason = "a label (" + res.Ref.Name + ") that Sphinx resolves; lunad does not index labels"
	case "example":
		g.resolveName(e, res, f)
		g.keepFamily(res, res.Ref.Target)
		if res.State == Ambiguous {
			// An example cannot be qualified (client.get() is recorded as
			// get): several definitions say nothing about it.
			res.State, res.Candidates = Unresolved, nil
		}
	}
}

// keepFamily drops the targets of res outside the language family of
// lang: an example in Python names Python definitions only.
func (g *Graph) keepFamily(res *Resolution, lang string) {
	ok := func(t Target) bool {
		b := g.entries[t.ID]
		return b != nil && family(b.File.Language) == family(lang)
	}
	switch res.State {
	case Resolved:
		if !ok(res.Target) {
			res.State, res.Target = Unresolved, Target{}
		}
	case Ambiguous:
		// In place: the candidates are res's own (settle made them).
		keep := slices.DeleteFunc(res.Candidates, func(t Target) bool { return !ok(t) })
		switch len(keep) {
		case 0:
			res.State, res.Candidates = Unresolved, nil
		case 1:
			res.State, res.Target, res.Candidates = Resolved, keep[0], nil
		default:
			res.Candidates = keep
		}
	}
}

// resolveDoc resolves a Sphinx/MyST document name ({doc}`../api`, a
// toctree entry): relative to the referencing artifact's directory, or,
// with a leading "/", to any of its ancestors (Sphinx's source directory
// is one of them), with or without a source extension.
func (g *Graph) resolveDoc(e *Entry, res *Resolution) {
	name := res.Ref.Target
	var dirs []string
	if strings.HasPrefix(name, "/") {
		for d := path.Dir(e.Path); ; d = path.Dir(d) {
			dirs = append(dirs, d)
			if d == "." || d == "/" {
				break
			}
		}
	} else {
		dirs = []string{path.Dir(e.Path)}
	}
	for _, d := range dirs {
		base := path.Join(d, strings.TrimPrefix(name, "/"))
		for _, x := range append([]string{""}, pageExts...) {
			if id := g.byPath[base+x]; id != "" && id != e.ID {
				res.State, res.Target = Resolved, g.artifactTarget(id)
				return
			}
		}
	}
	want := path.Join(dirs[0], strings.TrimPrefix(name, "/"))
	res.State, res.Target = Broken, Target{Path: want}
	res.Reason = "no document " + want + " (.md, .mdx, .rst or .markdown)"
}

// appendPageKeys appends the keys a link to path p is filed under: its
// file name, and its stem, which a page it may be the site's rendering
// of has.
func appendPageKeys(keys []userKey, p string) []userKey {
	base := strings.ToLower(path.Base(p))
	keys = append(keys, userKey{keyFile, base}, userKey{keyWiki, strings.TrimSuffix(base, path.Ext(base))})
	if base == "." || base == ".." || base == "/" || strings.HasSuffix(p, "/") {
		keys = append(keys, userKey{keyWiki, "index"}) // a directory: its README or index page
	}
	return keys
}
