package treesitter

import (
	"path"
	"slices"
	"strings"
	"unicode"
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

// topLevel lists b's top-level definitions named name that keep accepts:
// where a chain of re-exports ends.
func topLevel(b *Entry, name string, keep func(Symbol) bool) []Target {
	var out []Target
	for _, s := range b.defs() {
		if s.Name == name && s.Container == "" && s.Kind != "heading" && keep(s) {
			out = appendTarget(out, symbolTarget(b, s))
		}
	}
	return out
}

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
		if out := topLevel(b, name, keep); len(out) > 0 {
			return out
		}
		return g.followExport(b, name, keep, depth+1)
	}
	return nil
}

// Paths through a Rust crate's pub use facade. A crate re-exports items
// with pub use (`pub use self::init::load_book;`, `pub use
// config::{Config, BuildConfig};`, `pub use book::*;`), and documentation
// names them by the facade's path: `mdbook::load_book`,
// `mdbook::book::load_book`. Such a path binds to the definition in the
// module that defines it, along pub use declarations only (a plain use or
// pub(crate) use re-exports nothing outside the crate); Reference.Target
// of a pub use is the module it imports from (extract.go).

// rustUseModule is the module a use path imports from: "self::init" of
// "self::init::load_book", "config" of "config::{Config, Build}", "book"
// of "book::*"; "" for a path of one part.
func rustUseModule(use string) string {
	if i := strings.Index(use, "::{"); i >= 0 {
		return use[:i]
	}
	if i := strings.LastIndex(use, "::"); i >= 0 {
		return use[:i]
	}
	return ""
}

// rustUseNames are the names a use path binds as themselves ("load_book";
// "Config" and "Build" of "{Config, Build}", not "Item" of "SummaryItem as
// Item"), and whether it is a glob (*). Nested lists are not read.
func rustUseNames(use string) (names []string, glob bool) {
	rest := use[len(rustUseModule(use)):]
	rest = strings.TrimPrefix(rest, "::")
	if rest == "*" {
		return nil, true
	}
	if inner, ok := strings.CutPrefix(rest, "{"); ok {
		inner, ok = strings.CutSuffix(inner, "}")
		if !ok || strings.ContainsAny(inner, "{}") {
			return nil, false
		}
		for _, item := range strings.Split(inner, ",") {
			if n, ok := asItself(strings.TrimSpace(item)); ok {
				names = append(names, n)
			}
			glob = glob || strings.TrimSpace(item) == "*"
		}
		return names, glob
	}
	if n, ok := asItself(rest); ok {
		names = append(names, n)
	}
	return names, false
}

// asItself is the name a use item binds when it binds it as itself:
// "Config", or "Config as Config"; not "SummaryItem as Item", "self", "*".
func asItself(item string) (string, bool) {
	name, alias, aliased := strings.Cut(item, " as ")
	name, alias = strings.TrimSpace(name), strings.TrimSpace(alias)
	if aliased && alias != name || name == "self" || !rustIdent(name) {
		return "", false
	}
	return name, true
}

// rustIdent reports whether s is one identifier (r#type included).
func rustIdent(s string) bool {
	s = strings.TrimPrefix(s, "r#")
	for i, r := range s {
		if r != '_' && !unicode.IsLetter(r) && (i == 0 || !unicode.IsDigit(r)) {
			return false
		}
	}
	return s != ""
}

// rustReexported lists the definitions named name that the module path
// quals names ("mdbook::book", "crate", "mdbook": a leading crate name or
// crate is the crate root) defines at its top level (ureq::get, a fn of
// lib.rs) or else re-exports, and keep accepts.
func (g *Graph) rustReexported(quals []string, name string, keep func(Symbol) bool) []Target {
	if quals[0] == "crate" || g.isRoot(quals[0]) {
		quals = quals[1:]
	}
	var out []Target
	for _, root := range []string{"f:lib.rs", "f:main.rs"} {
		for _, id := range g.byKey[root] {
			e := g.entries[id]
			if e.File.Language != LangRust {
				continue
			}
			if m := g.rustModuleFile(path.Dir(e.Path), e, quals); m != nil {
				ts := topLevel(m, name, keep)
				if len(ts) == 0 {
					ts = g.followRustExport(m, name, keep, 0)
				}
				for _, t := range ts {
					out = appendTarget(out, t)
				}
			}
		}
	}
	return out
}

// followRustExport follows the pub use declarations of e that bind name
// (by name or a glob) to the module that defines it at its top level.
func (g *Graph) followRustExport(e *Entry, name string, keep func(Symbol) bool, depth int) []Target {
	if depth > maxReexportDepth {
		return nil
	}
	for _, r := range e.references() {
		if r.Kind != "import" || r.Target == "" {
			continue
		}
		names, glob := rustUseNames(r.Name)
		if !glob && !slices.Contains(names, name) {
			continue
		}
		b := g.rustUseTarget(e, r.Target)
		if b == nil {
			continue
		}
		out := topLevel(b, name, keep)
		if len(out) == 0 {
			out = g.followRustExport(b, name, keep, depth+1)
		}
		if len(out) > 0 || !glob {
			return out
		}
	}
	return nil
}

// rustUseTarget is the file of the module a use declaration of e names
// ("self::init", "super::config", "crate::book", "book": a child module).
func (g *Graph) rustUseTarget(e *Entry, mod string) *Entry {
	segs := strings.Split(mod, "::")
	dir := rustModuleDir(e.Path)
	switch segs[0] {
	case "crate":
		root := g.rustCrateRoot(e.Path)
		if root == nil {
			return nil
		}
		return g.rustModuleFile(path.Dir(root.Path), root, segs[1:])
	case "self":
		segs = segs[1:]
	case "super":
		for len(segs) > 0 && segs[0] == "super" {
			dir, segs = path.Dir(dir), segs[1:]
		}
	}
	return g.rustModuleFile(dir, e, segs)
}

// rustModuleFile is the file of module segs under dir (dir/a/b.rs or
// dir/a/b/mod.rs); with no segs, self.
func (g *Graph) rustModuleFile(dir string, self *Entry, segs []string) *Entry {
	if len(segs) == 0 {
		return self
	}
	p := path.Join(append([]string{dir}, segs...)...)
	for _, try := range []string{p + ".rs", p + "/mod.rs"} {
		if id := g.byPath[try]; id != "" {
			return g.entries[id]
		}
	}
	return nil
}

// rustModuleDir is the directory a Rust file's child modules are in:
// its own for lib.rs, main.rs and mod.rs, else one named for it.
func rustModuleDir(p string) string {
	switch base := path.Base(p); base {
	case "lib.rs", "main.rs", "mod.rs":
		return path.Dir(p)
	default:
		return path.Join(path.Dir(p), strings.TrimSuffix(base, ".rs"))
	}
}

// rustCrateRoot is the lib.rs or main.rs of the crate the file at p is
// in: the nearest one in its directory or above.
func (g *Graph) rustCrateRoot(p string) *Entry {
	for d := path.Dir(p); ; d = path.Dir(d) {
		for _, f := range []string{"lib.rs", "main.rs"} {
			if id := g.byPath[path.Join(d, f)]; id != "" {
				return g.entries[id]
			}
		}
		if d == "." || d == "/" {
			return nil
		}
	}
}

// exportedOf keeps, of several candidates for a bare name, those that the
// package above them re-exports (the __init__.py of a directory holding
// the candidate's module imports the name from it) or their crate's root
// re-exports with pub use: `Request` is the class httpx/__init__.py
// re-exports, not a same-named class of a private module. It returns
// cands unchanged unless exactly one is.
func (g *Graph) exportedOf(cands []Target, name string, keep func(Symbol) bool) []Target {
	var out []Target
	is := func(ts []Target, c Target) bool {
		return len(ts) == 1 && ts[0].ID == c.ID && ts[0].Container == c.Container
	}
	for _, c := range cands {
		if strings.HasSuffix(c.Path, ".rs") {
			if root := g.rustCrateRoot(c.Path); root != nil && is(g.followRustExport(root, name, keep, 0), c) {
				out = append(out, c)
			}
			continue
		}
		if !strings.HasSuffix(c.Path, ".py") {
			continue
		}
		for d := path.Dir(c.Path); ; d = path.Dir(d) {
			if id := g.byPath[path.Join(d, "__init__.py")]; id != "" && id != c.ID {
				if is(g.followExport(g.entries[id], name, keep, 0), c) {
					out = append(out, c)
					break
				}
			}
			if d == "." || d == "/" {
				break
			}
		}
	}
	if len(out) != 1 {
		return cands
	}
	return out
}
