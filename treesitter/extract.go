package treesitter

import (
	"bytes"
	"sort"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// def is a definition being collected, with the span of its name.
type def struct {
	Symbol
	start, end         int
	nameStart, nameEnd int
	explicitContainer  bool
}

type ref struct {
	Reference
	start, end int
}

// collector gathers definitions and references, deduplicating nodes that
// several patterns tag, and turns them into a File.
type collector struct {
	// key: node start, node end, name start, and 1 for what a user types
	// (a command or flag), which stands beside a code definition of the
	// same text (a clap enum variant is a constant and a command)
	defs map[[4]int]*def
	refs map[[2]int]*ref // key: name span
}

func newCollector() *collector {
	return &collector{defs: map[[4]int]*def{}, refs: map[[2]int]*ref{}}
}

var kindRank = map[string]int{"method": 2, "function": 1}

func (c *collector) addDef(d *def) {
	key := [4]int{d.start, d.end, d.nameStart, 0}
	if d.Kind == "command" || d.Kind == "flag" {
		key[3] = 1
	}
	if old := c.defs[key]; old != nil {
		if kindRank[old.Kind] > kindRank[d.Kind] || old.explicitContainer && !d.explicitContainer {
			return
		}
	}
	c.defs[key] = d
}

func (c *collector) addRef(r *ref) {
	if r.Name == "" {
		return
	}
	key := [2]int{r.start, r.end}
	if old := c.refs[key]; old != nil && !better(r, old) {
		return
	}
	c.refs[key] = r
}

// kinds holds one copy of each kind name: a capture name from the
// binding is a fresh string per match, and a kind sliced from it would
// keep the whole string alive in every Symbol and Reference.
var kinds = map[string]string{}

func init() {
	for _, k := range []string{"function", "method", "type", "constant", "heading", "call", "import", "identifier", "code", "link", "wiki", "snippet", "field", "command", "flag", RoleParameter} {
		kinds[k] = k
	}
}

func intern(kind string) string {
	if k, ok := kinds[kind]; ok {
		return k
	}
	return strings.Clone(kind)
}

// better reports whether a should replace b, both tagging the same node:
// a call or import beats an identifier, then a qualified name beats a
// bare one, then a reference with a Target (a Rust pub use) one without.
func better(a, b *ref) bool {
	if ra, rb := a.Kind != "identifier", b.Kind != "identifier"; ra != rb {
		return ra
	}
	if a.Name == b.Name && a.Kind == b.Kind {
		return b.Target == "" && a.Target != "" // an import that says where from (a pub use)
	}
	return len(a.Name) > len(b.Name)
}

// finish sorts by position, fills containers, spans and fingerprints.
func (c *collector) finish(f *File, src []byte, lines *Lines) *File {
	list := make([]*def, 0, len(c.defs))
	f.Symbols = make([]Symbol, 0, len(c.defs))
	f.References = make([]Reference, 0, len(c.refs))
	names := map[[2]int]bool{}
	for _, d := range c.defs {
		list = append(list, d)
		names[[2]int{d.nameStart, d.nameEnd}] = true
	}
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.start != b.start {
			return a.start < b.start
		}
		if a.end != b.end {
			return a.end > b.end
		}
		if a.nameStart != b.nameStart {
			return a.nameStart < b.nameStart
		}
		return a.Kind < b.Kind // a command or flag beside a code definition of the same text
	})
	// open holds the earlier definitions that may still contain a later
	// one: those ending before d starts are dropped, so that the search for
	// d's container looks only at definitions around it (linear for
	// sibling definitions, such as a file of 100,000 headings).
	var open []*def
	for _, d := range list {
		for len(open) > 0 && open[len(open)-1].end <= d.start {
			open = open[:len(open)-1]
		}
		if !d.explicitContainer {
			// innermost enclosing definition: the nearest earlier strictly larger one containing d.
			for j := len(open) - 1; j >= 0; j-- {
				if o := open[j]; o.start <= d.start && d.end <= o.end && o.end-o.start > d.end-d.start {
					d.Container = o.Name
					// local to a function, unless a command or flag: cobra and
					// commander set those up in functions, and a user types them
					d.Hidden = (o.Kind == "function" || o.Kind == "method" || o.Hidden && o.Kind != "type") && d.Kind != "command" && d.Kind != "flag"
					break
				}
			}
		}
		open = append(open, d)
		d.Span = lines.Span(d.start, d.end)
		if d.Fingerprint == "" { // chunks.go caches it
			d.Fingerprint = Fingerprint(src[d.start:d.end])
		}
		// The doc comment above a definition is part of it. (Not for a
		// heading: the lines above a heading are not its comment, and
		// looking would rescan every earlier "# heading" line, which reads
		// like a comment — quadratic in a file of headings.)
		if d.Kind != "heading" {
			if cs := leadingComment(src, d.start); cs < d.start {
				d.Fingerprint = Fingerprint(append(append([]byte(nil), src[cs:d.start]...), d.Fingerprint...))
			}
		}
		d.Hidden = d.Hidden || private(f.Language, d, src) || restated(f.Language, d, src)
		f.Symbols = append(f.Symbols, d.Symbol)
	}

	rlist := make([]*ref, 0, len(c.refs))
	for key, r := range c.refs {
		if r.Kind == "identifier" && names[key] {
			continue
		}
		rlist = append(rlist, r)
	}
	sort.Slice(rlist, func(i, j int) bool {
		if rlist[i].start != rlist[j].start {
			return rlist[i].start < rlist[j].start
		}
		return rlist[i].end < rlist[j].end
	})
	for _, r := range rlist {
		r.Span = lines.Span(r.start, r.end)
		f.References = append(f.References, r.Reference)
	}
	return f
}

// commentPrefixes start the lines of a comment (or attribute, decorator,
// annotation) written directly above a definition.
var commentPrefixes = []string{"//", "/*", "*", "#", "--", "@"}

// leadingComment returns where the block of comment lines directly above
// the line of off begins (no blank line between), or off if there is
// none or off is not first on its line.
func leadingComment(src []byte, off int) int {
	ls := bytes.LastIndexByte(src[:off], '\n') + 1
	if len(bytes.TrimSpace(src[ls:off])) > 0 {
		return off
	}
	start := off
	for ls > 0 {
		prev := bytes.LastIndexByte(src[:ls-1], '\n') + 1
		line := bytes.TrimSpace(src[prev : ls-1])
		isComment := false
		for _, p := range commentPrefixes {
			if bytes.HasPrefix(line, []byte(p)) {
				isComment = true
				break
			}
		}
		if !isComment {
			break
		}
		start, ls = prev, prev
	}
	return start
}

// capture is one query match reduced to what lunad uses.
type capture struct {
	tagged, name, container *sitter.Node
	tag                     string // e.g. "definition.function"
	other                   map[string]*sitter.Node
}

// matches runs g's query over root and calls fn for every match that
// passes the query's predicates.
func matches(g *grammar, qc *sitter.QueryCursor, root *sitter.Node, src []byte, fn func(capture)) {
	qc.Exec(g.query, root)
	for {
		m, ok := qc.NextMatch()
		if !ok {
			return
		}
		if g.filtered[m.PatternIndex] {
			m = qc.FilterPredicates(m, src)
		}
		var c capture
		for _, qcap := range m.Captures {
			switch cn := g.captures[qcap.Index]; {
			case cn == "name":
				c.name = qcap.Node
			case cn == "container":
				c.container = qcap.Node
			case strings.HasPrefix(cn, "definition.") || strings.HasPrefix(cn, "reference."):
				c.tagged, c.tag = qcap.Node, cn
			default:
				if c.other == nil {
					c.other = map[string]*sitter.Node{}
				}
				c.other[cn] = qcap.Node
			}
		}
		if c.tagged == nil && c.other == nil {
			continue
		}
		if c.name == nil {
			c.name = c.tagged
		}
		fn(c)
	}
}

// extractQuery runs the language's query over root and turns the captures
// into a File.
func extractQuery(g *grammar, qc *sitter.QueryCursor, root *sitter.Node, src []byte, lines *Lines) *File {
	col := newCollector()
	queryItems(g, qc, root, src, col.addDef, col.addRef)
	cliDefs(g.name, src, col.addDef)
	return withCLI(col.finish(&File{Language: g.name}, src, lines), g.name, src)
}

// queryItems runs the language's query over root and reports every tagged
// definition and reference, before deduplication.
func queryItems(g *grammar, qc *sitter.QueryCursor, root *sitter.Node, src []byte, onDef func(*def), onRef func(*ref)) {
	matches(g, qc, root, src, func(c capture) {
		if c.tagged == nil {
			return
		}
		// each offset is a cgo call: read once
		ns, ne := int(c.name.StartByte()), int(c.name.EndByte())
		text := string(src[ns:ne])
		if kind, ok := strings.CutPrefix(c.tag, "definition."); ok {
			d := &def{
				Symbol: Symbol{Name: text, Kind: intern(kind)},
				start:  int(c.tagged.StartByte()), end: int(c.tagged.EndByte()),
				nameStart: ns, nameEnd: ne,
			}
			if c.container != nil {
				d.Container, d.explicitContainer = c.container.Content(src), true
			}
			onDef(d)
			return
		}
		kind := intern(strings.TrimPrefix(c.tag, "reference."))
		if kind == "import" {
			text = strings.Trim(text, "\"'`<>")
		}
		if q := c.other["qualifier"]; q != nil {
			text = q.Content(src) + "." + text
		}
		r := &ref{Reference: Reference{Name: text, Kind: kind}, start: ns, end: ne}
		if m := c.other["module"]; m != nil {
			// a name a from-import binds as itself: Target is its module
			if a := c.other["alias"]; a == nil || a.Content(src) == text {
				r.Target = m.Content(src)
			}
		}
		if v := c.other["exported"]; v != nil && v.Content(src) == "pub" {
			r.Target = rustUseModule(text) // a pub use: the module it re-exports from
		}
		onRef(r)
	})
}
