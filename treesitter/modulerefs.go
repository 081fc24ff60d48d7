package treesitter

import (
	"strings"
)

// moduleFiles is the file of the module a code span of prose the words
// around it call a module names ("the `uvicorn.workers` module"): a
// Python module (uvicorn/workers.py, uvicorn/workers/__init__.py) or a
// Rust one (ureq::unversioned -> unversioned.rs or unversioned/mod.rs),
// the path's parts matched as the last directories and the file of a
// file's path. A leading package root or crate is dropped when the whole
// path matches nothing. It returns nothing unless exactly one file
// matches. Without the words a mention is left alone: prose names modules
// in passing ("provided in `mkdocs.config.config_options`", "a `hooks`
// section") far more often than it points at one.
func (g *Graph) moduleFiles(quals []string, name string) []Target {
	parts := append(append([]string(nil), quals...), name)
	for {
		if t := g.moduleFile(parts); len(t) > 0 || len(parts) < 2 || !(parts[0] == "crate" || g.isRoot(parts[0])) {
			return t
		}
		parts = parts[1:]
	}
}

// moduleFile is moduleFiles for one path.
func (g *Graph) moduleFile(parts []string) []Target {
	p, last := strings.Join(parts, "/"), parts[len(parts)-1]
	var out []Target
	for _, try := range [][2]string{{"__init__.py", p + "/__init__.py"}, {"mod.rs", p + "/mod.rs"}, {last + ".py", p + ".py"}, {last + ".rs", p + ".rs"}} {
		for _, id := range g.byKey["f:"+strings.ToLower(try[0])] {
			if e := g.entries[id]; e.Path != try[1] && !strings.HasSuffix(e.Path, "/"+try[1]) {
				continue
			}
			if len(out) > 0 {
				return nil
			}
			out = append(out, g.artifactTarget(id))
		}
	}
	return out
}
