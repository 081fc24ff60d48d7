package treesitter

import (
	"cmp"
	"path"
	"slices"
	"sort"
	"strings"
)

// Entry is one artifact as the graph sees it: its identity and what Parse
// extracted from its current content. Links are the IDs of artifacts it
// links to explicitly (the store's links); they scope bare names.
type Entry struct {
	ID, Path, Title string
	Links           []string
	File            *File
	// Package is the name of the package a root-level manifest
	// (package.json, Cargo.toml, pyproject.toml, go.mod) declares, or "".
	Package string

	// Set inside a graph only (packedgraph.go): the artifact's number
	// (what the name indexes file it under), its references packed, and
	// for Go the package names it imports.
	num    uint32
	packed *PackedFile
	goPkgs []string
}

// Resolution states of a reference (see Resolve).
const (
	Resolved   = "resolved"   // exactly one target in another artifact
	Local      = "local"      // the name is defined in the referencing artifact itself
	Ambiguous  = "ambiguous"  // several definitions and no scoping rule picks one
	Broken     = "broken"     // a qualified target (path, path#symbol, [[title]]) that does not exist
	Unresolved = "unresolved" // a bare name defined nowhere in the workspace (library, builtin, prose)
	// Unverified: a link only a site generator resolves (page.html for
	// page.md, a heading matched ignoring punctuation, a directory without
	// a README, a Sphinx label); Via says which rule, Target what it found.
	Unverified = "unverified"
)

// Target is what a reference points at: an artifact, and within it a
// symbol (Name, Container, Kind) or a line, or neither for the whole artifact.
type Target struct {
	ID        string `json:"id"`
	Path      string `json:"path"`
	Name      string `json:"symbol,omitempty"`
	Container string `json:"container,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Line      int    `json:"line,omitempty"` // 1-based, for file#L10 links
	Span      Span   `json:"-"`
}

// IsSymbol reports whether t names a symbol rather than an artifact or a line.
func (t Target) IsSymbol() bool { return t.Name != "" }

// Resolution is one reference of an artifact and what it resolves to.
type Resolution struct {
	From       string    // the referencing artifact's ID
	Ref        Reference // the reference as parsed
	State      string    // Resolved, Local, Ambiguous, Broken or Unresolved
	Target     Target    // for Resolved and Local (and Broken: the artifact, if any)
	Candidates []Target  // for Ambiguous
	Reason     string    // for Broken: what is missing; for Unverified: why it is not checked
	Via        string    // for Unverified: ViaPage, ViaSlug, ViaDir or ViaLabel
}

// defLoc is one code definition: an artifact (its number) and an index
// into its Symbols.
type defLoc struct{ n, i uint32 }

// Graph is the reference graph of a workspace: which artifact defines
// which symbol, and what each reference resolves to. Resolution is done on
// demand from name indexes, so Put and Remove cost O(size of one file) and
// a change of one artifact is seen by every reference at once.
//
// Resolution rules, in order (docs/references.md has examples):
//   - A link with a path (Markdown "config.py", "config.py#parse_config",
//     "config.py#L10", "guide.md#usage") resolves the path against the
//     referencing artifact's directory, then the workspace root; the
//     fragment names a symbol (Name or Container.Name), a heading (its text
//     or GitHub slug) or a line. A missing path or fragment is Broken.
//     Links to images and other non-text files are ignored.
//   - A link with only "#fragment" names a heading of the artifact itself.
//   - A [[wiki]] link names an artifact by ID, title (case-insensitive),
//     path or file name; several matches are Ambiguous, none Broken.
//   - An import resolves to the artifact of the imported module when it is
//     in the workspace (relative JS/TS paths, Python modules, C includes);
//     otherwise it is treated as a name, like a call.
//   - A bare or qualified name (a call, an identifier, a Markdown code span
//     like `parse_config` or `Parser.Parse`) is Local when the referencing
//     artifact defines it. Otherwise the candidates are the code definitions
//     with that name (in the same language family for code; any language
//     from Markdown), narrowed by the qualifier when there is one
//     (container, file stem or directory). Several candidates are narrowed
//     by scope — the same Go package, then the artifacts the referencing one
//     imports or links to — and, if still several, reported Ambiguous: never
//     guessed. No candidate is Unresolved.
//
// A Graph is not safe for concurrent use.
type Graph struct {
	next *PackedFile // the packed form of the File PutPacked is putting

	entries map[string]*Entry    // ID -> entry (with its references packed: packedgraph.go)
	nodes   []*Entry             // by number (Entry.num); nil for a number free for reuse
	free    []uint32             // numbers of removed artifacts
	byPath  map[string]string    // path -> ID
	byName  map[string][]defLoc  // code symbol name -> definitions
	byKey   map[string][]string  // lower(title), lower(file name), path stem -> IDs
	users   map[userKey][]uint32 // what references may point at -> numbers of the artifacts with such references (a slice: maps cost 3x)
	dirs    map[string]int       // directory -> how many artifacts are under it (links to directories)
	scoped  struct {             // the last scope computed (resolve.go), until Put or Remove
		e     *Entry
		scope map[string]bool
	}
	roots map[string]int // lower-case top-level directory and package names -> artifacts that make them one
}

// NewGraph returns an empty graph.
func NewGraph() *Graph {
	return &Graph{entries: map[string]*Entry{}, byPath: map[string]string{},
		byName: map[string][]defLoc{}, byKey: map[string][]string{}, users: map[userKey][]uint32{}, dirs: map[string]int{}, roots: map[string]int{}}
}

// Len is the number of artifacts in the graph.
func (g *Graph) Len() int { return len(g.entries) }

// Entry returns the artifact id as last Put.
func (g *Graph) Entry(id string) (Entry, bool) {
	e, ok := g.entries[id]
	if !ok {
		return Entry{}, false
	}
	out := *e
	out.File = e.packed.File()
	out.num, out.packed, out.goPkgs = 0, nil, nil
	return out, true
}

// IDs lists the artifacts in the graph, sorted.
func (g *Graph) IDs() []string {
	ids := make([]string, 0, len(g.entries))
	for id := range g.entries {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Put adds an artifact or replaces its previous entry.
func (g *Graph) Put(e Entry) {
	g.Remove(e.ID)
	g.scoped.e, g.scoped.scope = nil, nil
	if e.File == nil {
		e.File = &File{Language: LangText}
	}
	n := &node{Entry: e} // the entry and what it keeps of its File, one allocation
	ent := &n.Entry
	g.pack(ent, &n.file)
	g.entries[e.ID] = ent
	g.byPath[e.Path] = e.ID
	g.countDirs(e.Path, 1)
	for _, r := range rootNames(ent) {
		g.roots[r]++
	}
	for _, k := range artifactKeys(ent) {
		g.byKey[k] = append(g.byKey[k], e.ID)
	}
	for i, s := range ent.defs() {
		if s.Kind != "heading" {
			g.byName[s.Name] = append(g.byName[s.Name], defLoc{ent.num, uint32(i)})
		}
	}
	for _, sf := range ent.File.ShortFlags { // "-n" is filed under its own key, at the long flag
		for i, s := range ent.defs() {
			if s.Kind == "flag" && s.Name == sf.Long {
				g.byName[sf.Short] = append(g.byName[sf.Short], defLoc{ent.num, uint32(i)})
				break
			}
		}
	}
	for _, k := range g.userKeys(ent) { // keys are deduplicated: the artifact is added once
		g.users[k] = append(g.users[k], ent.num)
	}
}

// Remove drops an artifact; references to it become Broken or Unresolved.
func (g *Graph) Remove(id string) {
	e := g.entries[id]
	if e == nil {
		return
	}
	g.scoped.e, g.scoped.scope = nil, nil
	delete(g.entries, id)
	g.nodes[e.num] = nil
	g.free = append(g.free, e.num)
	if g.byPath[e.Path] == id {
		delete(g.byPath, e.Path)
	}
	g.countDirs(e.Path, -1)
	for _, r := range rootNames(e) {
		if g.roots[r]--; g.roots[r] <= 0 {
			delete(g.roots, r)
		}
	}
	for _, k := range artifactKeys(e) {
		g.byKey[k] = without(g.byKey[k], id)
		if len(g.byKey[k]) == 0 {
			delete(g.byKey, k)
		}
	}
	unfile := func(name string) {
		locs := g.byName[name][:0:0]
		for _, l := range g.byName[name] {
			if l.n != e.num {
				locs = append(locs, l)
			}
		}
		if len(locs) == 0 {
			delete(g.byName, name)
		} else {
			g.byName[name] = locs
		}
	}
	for _, s := range e.defs() {
		if s.Kind != "heading" {
			unfile(s.Name)
		}
	}
	for _, sf := range e.File.ShortFlags {
		unfile(sf.Short)
	}
	// The keys Put filed id under, recomputed rather than kept (they depend
	// on the entry and its packed references alone, both still here).
	for _, k := range g.userKeys(e) {
		g.users[k] = slices.DeleteFunc(g.users[k], func(n uint32) bool { return n == e.num })
		if len(g.users[k]) == 0 {
			delete(g.users, k)
		}
	}
}

// Resolve resolves every reference of artifact id, in file order.
// Snippet references (quoted code blocks) are not resolved here: whether a
// quote matches its source is a question about content, not names.
func (g *Graph) Resolve(id string) []Resolution {
	e := g.entries[id]
	if e == nil {
		return nil
	}
	var out []Resolution
	m := newMemo(focus{})
	rd := e.packed.reader()
	for range e.packed.Len() {
		r := rd.next()
		if r.Kind == "snippet" {
			continue
		}
		out = append(out, m.resolve(g, e, r, rd.shape()))
	}
	return out
}

// memo resolves the references of one artifact with the same name and
// shape once: what a reference resolves to depends on its name, kind,
// target and other fields, never on its position, and a file names the
// same few things many times (a library call on every other line).
type memo struct {
	done  map[refShape]Resolution
	focus focus
}

func newMemo(f focus) memo { return memo{done: map[refShape]Resolution{}, focus: f} }

// focus is what a caller of resolve asks about, so that resolving a name
// defined in thousands of files (get, items, __init__) need not gather
// thousands of candidates in every file that uses it. With id set
// (Incoming), a name none of whose definitions is in artifact id is left
// unresolved; with resolved set too (IncomingResolved), so is a name that
// stays ambiguous once narrowed (Graph.narrowLocs); with name set too
// (IncomingResolvedTo), only references that can name that definition are
// resolved. The zero focus resolves everything.
type focus struct {
	id       string
	resolved bool
	// name and container, when name is set (IncomingResolvedTo): the one
	// definition of id asked about.
	name, container string
}

// resolve is g.resolve(e, r) for r of shape sh.
func (m memo) resolve(g *Graph, e *Entry, r Reference, sh refShape) Resolution {
	res, ok := m.done[sh]
	if !ok {
		res = g.resolve(e, r, m.focus)
		m.done[sh] = res
		return res
	}
	res.Ref = r
	res.Candidates = slices.Clone(res.Candidates) // each Resolution its own, as resolve makes them
	return res
}

// Incoming returns the references of other artifacts that resolve to id,
// or are ambiguous with id among the candidates, sorted by referencing
// artifact and position.
func (g *Graph) Incoming(id string) []Resolution { return g.incoming(focus{id: id}) }

// IncomingResolved returns the references of other artifacts that resolve
// to id (Resolved, Broken or Unverified), without the ambiguous ones, sorted
// by referencing artifact and position: what the language server and the
// staleness of quotes need. It is Incoming without gathering the candidates
// of names defined in many artifacts, which made a references request on a
// definition of such a name allocate gigabytes.
func (g *Graph) IncomingResolved(id string) []Resolution {
	return g.incoming(focus{id: id, resolved: true})
}

// IncomingResolvedTo is IncomingResolved for one definition of id, the
// one named name in container: the references resolved to it
// (Target.Name and Target.Container), what a references request on a
// definition asks. Only the artifacts that use the name or name id itself
// (a link, an import, a [[wiki]] link) are read, and of them only the
// references that can point at it: a request on one function of a file
// defining hundreds no longer resolves what points at the other ones.
func (g *Graph) IncomingResolvedTo(id, name, container string) []Resolution {
	if name == "" {
		return nil
	}
	return g.incoming(focus{id: id, resolved: true, name: name, container: container})
}

func (g *Graph) incoming(f focus) []Resolution {
	id := f.id
	e := g.entries[id]
	if e == nil {
		return nil
	}
	keys := targetKeys(e)
	if f.name != "" { // one definition: the other names' keys dropped
		keys = slices.DeleteFunc(keys, func(k userKey) bool { return k.kind == keyName && k.s != f.name })
	}
	from := map[uint32]struct{}{}
	for _, k := range keys {
		for _, n := range g.users[k] {
			if n != e.num {
				from[n] = struct{}{}
			}
		}
	}
	users := make([]*Entry, 0, len(from))
	for n := range from {
		users = append(users, g.nodes[n])
	}
	sort.Slice(users, func(i, j int) bool { return users[i].ID < users[j].ID })
	want := map[userKey]bool{}
	for _, k := range keys {
		want[k] = true
	}
	var out []Resolution
	for _, u := range users {
		can := map[refShape]bool{} // whether references of a name and shape can point at id
		m := newMemo(f)
		rd := u.packed.reader()
		for range u.packed.Len() {
			ref := rd.next()
			sh := rd.shape()
			ok, seen := can[sh]
			if !seen {
				ok = anyKey(appendRefKeys(nil, ref), want)
				can[sh] = ok
			}
			if !ok {
				continue // cannot point at id: not resolved at all
			}
			r := m.resolve(g, u, ref, sh)
			if f.name != "" && (r.Target.Name != f.name || r.Target.Container != f.container) {
				continue
			}
			if r.Target.ID == id && (r.State == Resolved || r.State == Broken || r.State == Unverified) || !f.resolved && r.State == Ambiguous && hasCandidate(r.Candidates, id) {
				out = append(out, r)
			}
		}
	}
	return out
}

func anyKey(keys []userKey, want map[userKey]bool) bool {
	for _, k := range keys {
		if want[k] {
			return true
		}
	}
	return false
}

func hasCandidate(ts []Target, id string) bool {
	for _, t := range ts {
		if t.ID == id {
			return true
		}
	}
	return false
}

func without(ids []string, id string) []string {
	out := ids[:0:0]
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}

// artifactKeys are the names an artifact answers to in [[wiki]] links and
// qualifiers: its title, file name and file stem, lowercased.
func artifactKeys(e *Entry) []string {
	base := path.Base(e.Path)
	keys := []string{"t:" + strings.ToLower(e.Title), "f:" + strings.ToLower(base),
		"s:" + strings.ToLower(strings.TrimSuffix(base, path.Ext(base)))}
	return dedupe(keys)
}

// userKey is what a reference may point at, as the graph files it
// (users): a definition's name (keyName), a file name (keyFile), a
// [[wiki]] name or page stem (keyWiki), a module's stem (keyModule), an
// explicitly linked artifact (keyID). A name key shares the name's string
// with the packed file: filing and looking up names allocates nothing.
type userKey struct {
	kind byte
	s    string
}

// Kinds of userKey.
const (
	keyName   = 'n'
	keyFile   = 'f'
	keyWiki   = 'w'
	keyModule = 'm'
	keyID     = 'i'
)

func (k userKey) String() string { return string(k.kind) + ":" + k.s }

// userKeys index the references of e by what they could point at, so
// Incoming only resolves the artifacts that may refer to a given one.
func (g *Graph) userKeys(e *Entry) []userKey {
	var keys []userKey
	seen := map[refShape]bool{} // names repeat: their keys are made once
	rd := e.packed.reader()
	for range e.packed.Len() {
		r := rd.next()
		if sh := rd.shape(); !seen[sh] {
			seen[sh] = true
			keys = appendRefKeys(keys, r)
		}
	}
	for _, l := range e.Links {
		keys = append(keys, userKey{keyID, l})
	}
	return dedupeKeys(keys)
}

// appendRefKeys appends the keys one reference is filed under (see
// userKeys).
func appendRefKeys(keys []userKey, r Reference) []userKey {
	switch r.Kind {
	case "snippet", "ref":
		return keys
	case "link":
		p, _ := splitFragment(r.Target)
		if p == "" {
			return keys
		}
		return appendPageKeys(keys, p)
	case "wiki":
		return append(keys, userKey{keyWiki, strings.ToLower(r.Target)})
	case "include", "doc":
		p, _ := splitFragment(r.Target)
		return appendPageKeys(keys, p)
	}
	keys = append(keys, userKey{keyName, lastQualified(r.Name)})
	if r.Kind == "import" {
		keys = append(keys, userKey{keyModule, strings.ToLower(moduleStem(r.Name))})
	}
	return keys
}

// targetKeys are the userKeys under which references to e are filed.
func targetKeys(e *Entry) []userKey {
	base := strings.ToLower(path.Base(e.Path))
	stem := strings.TrimSuffix(base, path.Ext(base))
	keys := []userKey{{keyFile, base}, {keyWiki, strings.ToLower(e.Title)}, {keyWiki, strings.ToLower(e.ID)},
		{keyWiki, strings.ToLower(e.Path)}, {keyWiki, base}, {keyWiki, stem}, {keyModule, stem}, {keyID, e.ID}}
	if stem == "index" || stem == "__init__" || stem == "mod" {
		keys = append(keys, userKey{keyModule, strings.ToLower(path.Base(path.Dir(e.Path)))})
	}
	if stem == "readme" || stem == "index" || stem == "_index" { // a directory's page (sitelinks.go)
		keys = append(keys, userKey{keyWiki, strings.ToLower(path.Base(path.Dir(e.Path)))}, userKey{keyWiki, "index"})
	}
	for _, s := range e.defs() {
		if s.Kind != "heading" {
			keys = append(keys, userKey{keyName, s.Name})
		}
	}
	return dedupeKeys(keys)
}

func dedupe(keys []string) []string {
	slices.Sort(keys)
	return slices.Compact(keys)
}

func dedupeKeys(keys []userKey) []userKey {
	slices.SortFunc(keys, func(a, b userKey) int { return cmp.Or(cmp.Compare(a.kind, b.kind), strings.Compare(a.s, b.s)) })
	return slices.Compact(keys)
}
