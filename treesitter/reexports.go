package treesitter

import (
	"path"
	"strings"
)

// Names a Python package re-exports. A package's __init__.py makes the
// names it imports from its modules its own ("from ._api import get",
// "from .models import URL as URL"), and documentation names them through
// the package: `httpx.get`, `pkg.URL`. Such a name binds to the definition
// in the module that defines it, found along the from-imports (Reference
// .Target is the module a from-imported name comes from; extract.go), and
// only along them: a name imported under another name ("get as fetch") is
// not re-exported as itself, and a module the workspace lacks ends the
// chain.

// maxReexportDepth bounds a chain of re-exports (a package importing from
// a subpackage that imports from its module, ...), and so a cycle.
const maxReexportDepth = 8

// reexported lists the definitions named name that the package quals
// names ("httpx", "mkdocs.config": the last directories of an
// __init__.py's path) re-exports, and keep accepts.
func (g *Graph) reexported(quals []string, name string, keep func(Symbol) bool) []Target {
	pkg := strings.Join(quals, "/")
	var out []Target
	for _, id := range g.byKey["f:__init__.py"] {
		init := g.entries[id]
		if dir := path.Dir(init.Path); dir != pkg && !strings.HasSuffix(dir, "/"+pkg) {
			continue
		}
		for _, t := range g.followExport(init, name, keep, 0) {
			out = appendTarget(out, t)
		}
	}
	return out
}

// followExport follows the from-import of name in e to the module that
// defines it at its top level.
func (g *Graph) followExport(e *Entry, name string, keep func(Symbol) bool, depth int) []Target {
	if depth > maxReexportDepth {
		return nil
	}
	for _, r := range e.references() {
		if r.Kind != "import" || r.Name != name || r.Target == "" {
			continue
		}
		id, ok := g.resolveModule(e, r.Target)
		if !ok {
			continue
		}
		b := g.entries[id]
		var out []Target
		for _, s := range b.defs() {
			if s.Name == name && s.Container == "" && s.Kind != "heading" && keep(s) {
				out = appendTarget(out, symbolTarget(b, s))
			}
		}
		if len(out) == 0 {
			out = g.followExport(b, name, keep, depth+1)
		}
		return out
	}
	return nil
}
