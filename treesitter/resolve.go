package treesitter

import (
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/lunad/lunad/internal/lazyregexp"
)

// resolve applies the rules documented on Graph to one reference of e.
// f says what the caller asks about (memo): what it does not ask about may
// be left unresolved.
func (g *Graph) resolve(e *Entry, r Reference, f focus) Resolution {
	res := Resolution{From: e.ID, Ref: r, State: Unresolved}
	switch r.Kind {
	case "link":
		g.resolveLink(e, &res)
		return res
	case "wiki":
		g.resolveWiki(&res)
		return res
	case "include", "doc", "ref", "example": // sitelinks.go
		g.resolveSite(e, &res, f)
		return res
	case "import":
		if id, ok := g.resolveModule(e, r.Name); ok {
			res.State, res.Target = Resolved, g.artifactTarget(id)
			return res
		}
		if e.File.Language == LangGo {
			return res // a Go import path names a package, not a symbol
		}
	}
	g.resolveName(e, &res, f)
	return res
}

func (g *Graph) artifactTarget(id string) Target {
	return Target{ID: id, Path: g.entries[id].Path}
}

// lineFragment matches "L10", "L10-L20" and "L10-20".
var lineFragment = lazyregexp.New(`^L([0-9]+)(?:-L?([0-9]+))?$`)

// ignoredLink matches destinations that are not text artifacts.
var ignoredLink = lazyregexp.New(`(?i)\.(png|jpe?g|gif|svg|webp|ico|bmp|pdf|zip|gz|tgz|mp4|mp3|woff2?)$`)

func (g *Graph) resolveLink(e *Entry, res *Resolution) {
	p, frag := splitFragment(res.Ref.Target)
	if p == "" {
		if frag == "" {
			return
		}
		if t, n, loose := siteFragment(e, frag); n == 1 {
			res.State, res.Target = Local, t[0]
			if loose {
				unverifiedSlug(res, frag)
			}
		} else if n == 0 {
			res.State, res.Target = Broken, g.artifactTarget(e.ID)
			res.Reason = "no heading #" + frag + " in " + e.Path
		} else {
			res.State, res.Candidates = Ambiguous, t
		}
		return
	}
	if ignoredLink().MatchString(p) {
		return
	}
	id, want := g.lookupPath(e.Path, p)
	if id == "" && g.sitePath(e, p, res) {
		id = res.Target.ID
	}
	if id == "" && res.State == Unverified {
		return // a directory without a page: nothing to check a fragment in
	}
	if id == "" {
		res.State, res.Reason = Broken, "no artifact at "+want
		res.Target = Target{Path: want}
		return
	}
	b := g.entries[id]
	if res.State != Unverified {
		res.State = Resolved
	}
	res.Target = g.artifactTarget(id)
	if frag == "" {
		return
	}
	if m := lineFragment().FindStringSubmatch(frag); m != nil {
		res.Target.Line, _ = strconv.Atoi(m[1])
		return
	}
	switch t, n, loose := siteFragment(b, frag); {
	case n == 1:
		res.Target = t[0]
		if loose && res.State != Unverified {
			unverifiedSlug(res, frag)
		}
	case n == 0:
		res.State, res.Reason, res.Via = Broken, "no symbol or heading "+strconv.Quote(frag)+" in "+b.Path, ""
	default:
		res.State, res.Candidates, res.Target = Ambiguous, t, Target{}
	}
}

// lookupPath finds the artifact a relative link from an artifact at from
// names: relative to from's directory, else to the workspace root. want is
// the path it was looked for at (for messages).
func (g *Graph) lookupPath(from, p string) (id, want string) {
	if u, err := url.PathUnescape(p); err == nil {
		p = u
	}
	if strings.HasPrefix(p, "/") {
		want = path.Clean(strings.TrimPrefix(p, "/"))
		return g.byPath[want], want
	}
	want = path.Join(path.Dir(from), p)
	if id := g.byPath[want]; id != "" {
		return id, want
	}
	if id := g.byPath[path.Clean(p)]; id != "" {
		return id, path.Clean(p)
	}
	return "", want
}

// findFragment finds the symbols of e a link fragment names: by name,
// Container.Name, heading text or heading slug; else an HTML anchor of
// e (<a name="x">, id="x"), which names the whole artifact: an anchor is
// a place, not a definition that could go stale.
func findFragment(e *Entry, frag string) ([]Target, int) {
	var out []Target
	for _, s := range e.defs() {
		ok := s.Name == frag || s.Container != "" && s.Container+"."+s.Name == frag
		if s.Kind == "heading" {
			ok = ok || Slug(s.Name) == strings.ToLower(frag)
		}
		if ok {
			out = appendTarget(out, symbolTarget(e, s))
		}
	}
	if len(out) == 0 && hasAnchor(e, frag) {
		out = append(out, Target{ID: e.ID, Path: e.Path})
	}
	return out, len(out)
}

func symbolTarget(e *Entry, s Symbol) Target {
	return Target{ID: e.ID, Path: e.Path, Name: s.Name, Container: s.Container, Kind: s.Kind, Span: s.Span}
}

// appendTarget adds t unless a target with the same identity (artifact,
// name, container, heading or not) is there: overloads are one target.
// Callers add an artifact's targets one after another (one artifact's
// definitions, or a name's definitions in the graph, filed per artifact),
// so only the targets of t's artifact at the end are compared: a name
// defined in thousands of artifacts (__init__, constructor) costs one
// comparison per candidate, not one per pair.
func appendTarget(ts []Target, t Target) []Target {
	for i := len(ts) - 1; i >= 0 && ts[i].ID == t.ID; i-- {
		if o := ts[i]; o.Name == t.Name && o.Container == t.Container && (o.Kind == "heading") == (t.Kind == "heading") {
			return ts
		}
	}
	return append(ts, t)
}

func (g *Graph) resolveWiki(res *Resolution) {
	key := res.Ref.Target
	lower := strings.ToLower(key)
	var ids []string
	switch {
	case g.entries[key] != nil:
		ids = []string{key}
	case len(g.byKey["t:"+lower]) > 0:
		ids = g.byKey["t:"+lower]
	case g.byPath[key] != "":
		ids = []string{g.byPath[key]}
	case len(g.byKey["f:"+lower]) > 0:
		ids = g.byKey["f:"+lower]
	default:
		ids = g.byKey["s:"+lower]
	}
	switch len(ids) {
	case 0:
		res.State, res.Reason = Broken, "no artifact with ID, title or file name "+strconv.Quote(key)
	case 1:
		res.State, res.Target = Resolved, g.artifactTarget(ids[0])
	default:
		res.State = Ambiguous
		for _, id := range ids {
			res.Candidates = append(res.Candidates, g.artifactTarget(id))
		}
		sortTargets(res.Candidates)
	}
}

// resolveModule finds the artifact an import names, when it is a file of
// the workspace: a relative JS/TS module, a Python module or a C include.
func (g *Graph) resolveModule(e *Entry, name string) (string, bool) {
	dir := path.Dir(e.Path)
	var tries []string
	switch lang := e.File.Language; {
	case lang == LangJavaScript || lang == LangTypeScript:
		if !strings.HasPrefix(name, ".") {
			return "", false
		}
		base := path.Join(dir, name)
		for _, ext := range []string{"", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".d.ts", "/index.ts", "/index.js"} {
			tries = append(tries, base+ext)
		}
	case lang == LangPython:
		d := dir
		rel := strings.TrimLeft(name, ".")
		if up := len(name) - len(rel); up > 0 {
			for i := 1; i < up; i++ {
				d = path.Dir(d)
			}
		}
		mod := strings.ReplaceAll(rel, ".", "/")
		if mod == "" {
			return "", false
		}
		tries = append(tries, path.Join(d, mod+".py"), path.Join(d, mod, "__init__.py"))
		if d == dir && name == rel {
			tries = append(tries, path.Clean(mod+".py"), path.Join(mod, "__init__.py"))
			// an absolute import from inside its own package (src/pkg/x.py
			// importing pkg.models): from the directory holding the package
			top, _, _ := strings.Cut(mod, "/")
			if segs := strings.Split(dir, "/"); slices.Contains(segs, top) {
				root := path.Join(segs[:slices.Index(segs, top)]...)
				tries = append(tries, path.Join(root, mod+".py"), path.Join(root, mod, "__init__.py"))
			}
		}
	case lang == LangC:
		tries = append(tries, path.Join(dir, name), path.Clean(name))
	}
	for _, t := range tries {
		if id := g.byPath[t]; id != "" && id != e.ID {
			return id, true
		}
	}
	return "", false
}

// family groups languages whose code can call each other.
func family(lang string) string {
	switch lang {
	case LangJavaScript, LangTypeScript:
		return "js"
	}
	return lang
}

func (g *Graph) resolveName(e *Entry, res *Resolution, f focus) {
	if res.Ref.Kind == "code" && (e.File.Language == LangMarkdown || e.File.Language == LangText) {
		g.resolveProse(e, res)
		return
	}
	parts := splitQualified(res.Ref.Name)
	name, quals := parts[len(parts)-1], parts[:len(parts)-1]
	goPkg := "" // Go: the only directory the name can be defined in
	if e.File.Language == LangGo {
		switch {
		case len(quals) == 0:
			goPkg = path.Dir(e.Path) // an unqualified Go name is in its own package
		case !e.imports(quals[0]):
			quals = nil // x.Method() on a value: resolved by name
		}
	}
	for i := range e.numDefs() {
		if e.defName(i) != name {
			continue
		}
		if s := e.def(i); s.Kind != "heading" && (len(quals) == 0 || qualifies(e, s, quals)) {
			res.State, res.Target = Local, symbolTarget(e, s)
			return
		}
	}
	fromCode, lang := !IsProse(e.File.Language), e.File.Language
	if res.Ref.Kind == "example" { // names code of its own language only (resolveSite)
		fromCode, lang = true, res.Ref.Target
	}
	// Asked only whether the name resolves to f.id (IncomingResolved),
	// and no rule of narrowLocs can pick f.id's definition for e: then a
	// definition elsewhere settles it (ambiguous, or another artifact's).
	outside := f.resolved && f.id != "" && !g.canPick(e, f.id)
	var locs []defLoc
	for _, l := range g.byName[name] {
		b := g.nodes[l.n]
		if b == e || fromCode && family(b.File.Language) != family(lang) {
			continue
		}
		if goPkg != "" && path.Dir(b.Path) != goPkg {
			continue
		}
		if len(quals) > 0 && !qualifies(b, b.def(int(l.i)), quals) {
			continue
		}
		if outside && b.ID != f.id {
			return
		}
		locs = append(locs, l)
	}
	locs = g.narrowLocs(e, locs)
	if f.id != "" && !slices.ContainsFunc(locs, func(l defLoc) bool { return g.nodes[l.n].ID == f.id }) {
		return // none of the candidates is in the artifact the caller asks about
	}
	if (res.Ref.Kind == "example" || f.resolved) && g.targets(locs) > 1 {
		// An example is never ambiguous (resolveSite), and the caller
		// does not ask for ambiguous names: unresolved, candidates unread.
		return
	}
	var cands []Target
	for _, l := range locs {
		b := g.nodes[l.n]
		cands = appendTarget(cands, symbolTarget(b, b.def(int(l.i))))
	}
	g.settle(e, res, cands)
}

// narrowLocs is narrow applied to the definitions at locs before their
// targets are built: a name defined in thousands of files (get, String,
// items) then costs one target where a rule picks one, and none where the
// caller does not ask for ambiguous names (focus) — not thousands. Like
// narrow it returns locs unchanged when no rule picks exactly one target.
func (g *Graph) narrowLocs(e *Entry, locs []defLoc) []defLoc {
	if g.targets(locs) < 2 {
		return locs
	}
	pick := func(keep func(b *Entry) bool) []defLoc {
		var out []defLoc
		for _, l := range locs {
			if keep(g.nodes[l.n]) {
				out = append(out, l)
			}
		}
		return out
	}
	if e.File.Language == LangGo {
		dir := path.Dir(e.Path)
		if same := pick(func(b *Entry) bool { return path.Dir(b.Path) == dir }); g.targets(same) == 1 {
			return same
		}
	}
	scope := g.scope(e)
	if in := pick(func(b *Entry) bool { return scope[b.ID] }); g.targets(in) == 1 {
		return in
	}
	return locs
}

// canPick reports whether a rule of narrowLocs can pick artifact id's
// definitions for a reference of e: id is in e's Go package, or in its
// scope.
func (g *Graph) canPick(e *Entry, id string) bool {
	b := g.entries[id]
	if b == nil {
		return false
	}
	return e.File.Language == LangGo && path.Dir(b.Path) == path.Dir(e.Path) || g.scope(e)[id]
}

// targets is how many targets the definitions at locs make once
// appendTarget has merged overloads: 0, 1, or 2 for two or more.
// Definitions are filed per artifact, so one target means one artifact and
// one identity (name, container, heading or not).
func (g *Graph) targets(locs []defLoc) int {
	if len(locs) == 0 {
		return 0
	}
	b := g.nodes[locs[0].n]
	first := b.def(int(locs[0].i))
	for _, l := range locs[1:] {
		if l.n != locs[0].n {
			return 2
		}
		if s := b.def(int(l.i)); s.Container != first.Container || (s.Kind == "heading") != (first.Kind == "heading") {
			return 2
		}
	}
	return 1
}

// narrow applies the scoping rules to several candidates: the same Go
// package (directory), then the artifacts e imports or links to. It
// returns cands unchanged when a rule does not pick exactly one artifact.
func (g *Graph) narrow(e *Entry, cands []Target) []Target {
	pick := func(keep func(Target) bool) []Target {
		var out []Target
		for _, c := range cands {
			if keep(c) {
				out = append(out, c)
			}
		}
		return out
	}
	if e.File.Language == LangGo {
		if same := pick(func(c Target) bool { return path.Dir(c.Path) == path.Dir(e.Path) }); len(same) == 1 {
			return same
		}
	}
	scope := g.scope(e)
	if in := pick(func(c Target) bool { return scope[c.ID] }); len(in) == 1 {
		return in
	}
	return cands
}

// scope is the set of artifacts e imports or links to. The last one
// computed is kept until the graph changes (a file's ambiguous names each
// ask for it).
func (g *Graph) scope(e *Entry) map[string]bool {
	if g.scoped.e == e && e != nil {
		return g.scoped.scope
	}
	out := map[string]bool{}
	defer func() { g.scoped.e, g.scoped.scope = e, out }()
	for _, l := range e.Links {
		out[l] = true
	}
	for _, r := range e.references() {
		switch r.Kind {
		case "import":
			if id, ok := g.resolveModule(e, r.Name); ok {
				out[id] = true
			}
		case "link":
			if p, _ := splitFragment(r.Target); p != "" {
				if id, _ := g.lookupPath(e.Path, p); id != "" {
					out[id] = true
				}
			}
		}
	}
	return out
}

// qualifies reports whether the qualifier of a name ("Parser" in
// Parser.Parse, "config" in config.parse_config) fits symbol s of b: its
// container, its file's stem or its directory.
func qualifies(b *Entry, s Symbol, quals []string) bool {
	return qualifiesBy(b, s, quals, func(x, y string) bool { return x == y })
}

// qualifiesBy is qualifies with the names compared by eq.
func qualifiesBy(b *Entry, s Symbol, quals []string, eq func(x, y string) bool) bool {
	q := quals[len(quals)-1]
	base := path.Base(b.Path)
	return eq(s.Container, q) || eq(strings.TrimSuffix(base, path.Ext(base)), q) || eq(path.Base(path.Dir(b.Path)), q)
}

// qualifierSeps turns every qualifier separator into a dot (shared: a
// Replacer is safe for concurrent use and costly to build).
var qualifierSeps = strings.NewReplacer("::", ".", "#", ".", "->", ".")

// splitQualified splits "a.b::c#d" into its parts (never empty).
func splitQualified(name string) []string {
	if strings.ContainsAny(name, ":#->") {
		name = qualifierSeps.Replace(name)
	}
	var parts []string
	for _, p := range strings.Split(name, ".") {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return []string{name}
	}
	return parts
}

// lastQualified is the last part splitQualified gives for name, without
// allocating when name has no separator but dots (most names).
func lastQualified(name string) string {
	if strings.ContainsAny(name, ":#-") {
		parts := splitQualified(name)
		return parts[len(parts)-1]
	}
	end := len(name)
	for end > 0 && name[end-1] == '.' {
		end--
	}
	if end == 0 {
		return name // only dots: splitQualified keeps it whole
	}
	return name[strings.LastIndexByte(name[:end], '.')+1 : end]
}

// splitFragment splits a link destination into path and fragment,
// dropping a query string.
func splitFragment(dest string) (p, frag string) {
	p, frag, _ = strings.Cut(dest, "#")
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	return p, frag
}

// moduleStem is the last component of an import, without extension:
// "./lib/config.js" -> "config", "pkg.mod" -> "mod".
func moduleStem(name string) string {
	name = strings.Trim(name, "./")
	if i := strings.LastIndexAny(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	for _, ext := range []string{".d.ts", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".py", ".h", ".c", ".go", ".rs", ".java"} {
		if strings.HasSuffix(name, ext) {
			name = strings.TrimSuffix(name, ext)
			break
		}
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

func sortTargets(ts []Target) {
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].Path != ts[j].Path {
			return ts[i].Path < ts[j].Path
		}
		return ts[i].Span.Start.Byte < ts[j].Span.Start.Byte
	})
}

// Defines returns the code definitions of e that a bare or qualified name
// ("parse_config", "Settings.get") names, by the rules of Graph, one
// Target per identity. It answers "did this artifact define the name" for
// an earlier version of it.
func Defines(e Entry, name string) []Target {
	if e.File == nil {
		return nil
	}
	parts := splitQualified(name)
	last, quals := parts[len(parts)-1], parts[:len(parts)-1]
	var out []Target
	for _, s := range e.defs() {
		if s.Kind != "heading" && s.Name == last && (len(quals) == 0 || qualifies(&e, s, quals)) {
			out = appendTarget(out, symbolTarget(&e, s))
		}
	}
	return out
}

// Fragment returns the symbols of e a link fragment ("parse_config",
// "Settings.get", "usage" for a heading "Usage") names, by the rules of
// Graph.
func Fragment(e Entry, frag string) []Target {
	if e.File == nil {
		return nil
	}
	t, _, _ := siteFragment(&e, frag)
	return t
}

// SameFamily reports whether code in languages a and b can refer to each
// other's definitions (JavaScript and TypeScript are one family).
func SameFamily(a, b string) bool { return family(a) == family(b) }

// settle records on res what cands come to once narrowed to e's scope:
// none leaves it unresolved, one resolves it, several are ambiguous.
func (g *Graph) settle(e *Entry, res *Resolution, cands []Target) {
	if len(cands) > 1 {
		cands = g.narrow(e, cands)
	}
	switch len(cands) {
	case 0:
	case 1:
		res.State, res.Target = Resolved, cands[0]
	default:
		sortTargets(cands)
		res.State, res.Candidates = Ambiguous, cands
	}
}
