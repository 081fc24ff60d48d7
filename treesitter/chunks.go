package treesitter

import (
	"hash/maphash"
	"sort"

	sitter "github.com/smacker/go-tree-sitter"
)

// Incremental extraction. Running the query over a whole large file costs
// far more than the incremental re-parse (measured: ~7 ms of ~9 ms for
// net/http/server.go), so a Doc caches, per top-level node of the tree
// (keyed by node type and source text), the definitions and references
// found inside it, relative to its start. After an edit only top-level
// nodes whose text changed are queried again (the cursor restricted to
// their range); the rest is shifted from the cache. This is exact as long as
// no query pattern relates two top-level nodes, which holds for every
// queries/*.scm; TestIncrementalEqualsFresh checks it against a fresh Parse.

// chunk holds the raw items of one top-level node, offsets relative to it.
type chunk struct {
	defs []def
	refs []ref
}

type chunkKey struct {
	typ string
	sum uint64
}

var chunkSeed = maphash.MakeSeed()

// maxRangedQueries: with more changed top-level nodes than this, one full
// query is cheaper than one ranged query per node.
const maxRangedQueries = 8

func (p *Parser) extractChunked(g *grammar, tree *sitter.Tree, src []byte, cache map[chunkKey]*chunk) (*File, map[chunkKey]*chunk) {
	root := tree.RootNode()
	// Node.Child(i) walks the siblings (O(i)); a cursor lists them in O(n).
	var kids []*sitter.Node
	cur := sitter.NewTreeCursor(root)
	for ok := cur.GoToFirstChild(); ok; ok = cur.GoToNextSibling() {
		kids = append(kids, cur.CurrentNode())
	}
	cur.Close()
	n := len(kids)
	type top struct {
		start, end int
		key        chunkKey
		node       *sitter.Node
		fresh      *chunk // being filled by a query
	}
	tops := make([]top, n)
	col := newCollector()
	next := make(map[chunkKey]*chunk, n)
	var missing []int
	for i := range n {
		c := kids[i]
		s, e := int(c.StartByte()), int(c.EndByte())
		tops[i] = top{start: s, end: e, node: c,
			key: chunkKey{c.Type(), maphash.Bytes(chunkSeed, src[s:e])}}
		if ch := cache[tops[i].key]; ch != nil {
			next[tops[i].key] = ch
			addShifted(col, ch, s)
			continue
		}
		tops[i].fresh = &chunk{}
		missing = append(missing, i)
	}
	if len(missing) == 0 {
		cliDefs(g.name, src, col.addDef) // a scan of the whole text, not per chunk
		return withCLI(col.finish(&File{Language: g.name}, src, NewLines(src)), g.name, src), next
	}
	// owner finds the top-level node holding offset off, or -1.
	owner := func(off int) int {
		i := sort.Search(n, func(i int) bool { return tops[i].end > off })
		if i < n && tops[i].start <= off {
			return i
		}
		return -1
	}
	onDef := func(d *def) {
		if i := owner(d.start); i >= 0 && tops[i].fresh != nil {
			r := *d
			r.Fingerprint = Fingerprint(src[d.start:d.end])
			r.start, r.end, r.nameStart, r.nameEnd = r.start-tops[i].start, r.end-tops[i].start, r.nameStart-tops[i].start, r.nameEnd-tops[i].start
			tops[i].fresh.defs = append(tops[i].fresh.defs, r)
		} else if i < 0 {
			col.addDef(d)
		}
	}
	onRef := func(rf *ref) {
		if i := owner(rf.start); i >= 0 && tops[i].fresh != nil {
			r := *rf
			r.start, r.end = r.start-tops[i].start, r.end-tops[i].start
			tops[i].fresh.refs = append(tops[i].fresh.refs, r)
		} else if i < 0 {
			col.addRef(rf)
		}
	}
	if len(missing) > maxRangedQueries || cache == nil {
		queryItems(g, p.queryCursor(), root, src, onDef, onRef)
	} else {
		qc := sitter.NewQueryCursor()
		for _, i := range missing {
			qc.SetPointRange(tops[i].node.StartPoint(), tops[i].node.EndPoint())
			queryItems(g, qc, root, src, onDef, onRef)
		}
		qc.Close()
	}
	for _, i := range missing {
		// dedupe within the chunk happens in the collector; keep raw items
		next[tops[i].key] = tops[i].fresh
		addShifted(col, tops[i].fresh, tops[i].start)
	}
	cliDefs(g.name, src, col.addDef) // a scan of the whole text, not per chunk
	return withCLI(col.finish(&File{Language: g.name}, src, NewLines(src)), g.name, src), next
}

func addShifted(col *collector, ch *chunk, off int) {
	for _, d := range ch.defs {
		d := d
		d.start, d.end, d.nameStart, d.nameEnd = d.start+off, d.end+off, d.nameStart+off, d.nameEnd+off
		col.addDef(&d)
	}
	for _, r := range ch.refs {
		r := r
		r.start, r.end = r.start+off, r.end+off
		col.addRef(&r)
	}
}
