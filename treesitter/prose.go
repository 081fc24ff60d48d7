package treesitter

import (
	"path"
	"slices"
	"strings"
)

// Resolution of the names prose mentions (Markdown and text code spans),
// which say less than code and are read by people: see resolveProse.

// rootNames are the lower-case names an artifact makes package roots: the
// top-level directory it is in, and the package its manifest declares —
// also with '-' as '_', the name code imports it by (the crate
// mdbook-core is mdbook_core::, the Python distribution my-lib my_lib).
func rootNames(e *Entry) []string {
	var out []string
	if dir, _, ok := strings.Cut(e.Path, "/"); ok {
		out = append(out, strings.ToLower(dir))
	}
	if e.Package != "" {
		pkg := strings.ToLower(e.Package)
		out = append(out, pkg)
		if u := strings.ReplaceAll(pkg, "-", "_"); u != pkg {
			out = append(out, u)
		}
	}
	return out
}

// isRoot reports whether q names a package root of the workspace.
func (g *Graph) isRoot(q string) bool { return g.roots[strings.ToLower(q)] > 0 }

// isTool reports whether the first word of a command line ("cargo" in
// "cargo generate", "glow" in "glow config") is this workspace's tool: a
// command it defines, a package root, or the first part of a package name
// ("cargo" of cargo-generate, as cargo runs its subcommands).
func (g *Graph) isTool(w string) bool {
	if g.isRoot(w) {
		return true
	}
	for _, l := range g.byName[w] {
		if g.nodes[l.n].def(int(l.i)).Kind == "command" {
			return true
		}
	}
	lw := strings.ToLower(w) + "-"
	for r := range g.roots {
		if strings.HasPrefix(r, lw) {
			return true
		}
	}
	return false
}

// segments of a path that hold tests, examples, fixtures or vendored code
var nonCandidateDirs = map[string]bool{
	"test": true, "tests": true, "testdata": true, "testing": true, "__tests__": true, "spec": true, "specs": true,
	"example": true, "examples": true, "_examples": true, "fixtures": true, "fixture": true, "__fixtures__": true,
	"vendor": true, "vendored": true, "third_party": true, "thirdparty": true, "node_modules": true, "bower_components": true,
}

// nonCandidate reports whether the file at p is a test, example, fixture,
// vendored or minified file, whose definitions a bare name in prose does
// not reach (a qualified name or a link still does).
func nonCandidate(p string) bool {
	dir, base := path.Split(p)
	for _, seg := range strings.Split(strings.Trim(dir, "/"), "/") {
		if nonCandidateDirs[strings.ToLower(seg)] {
			return true
		}
	}
	stem := strings.TrimSuffix(base, path.Ext(base))
	switch {
	case strings.HasSuffix(stem, "_test"), strings.HasSuffix(stem, "_tests"), strings.HasPrefix(stem, "test_"),
		strings.HasSuffix(stem, ".test"), strings.HasSuffix(stem, ".spec"), strings.HasSuffix(stem, ".min"),
		stem == "conftest":
		return true
	}
	return false
}

// resolveProse resolves a code span of prose. The rules, in order:
//   - a parameter or option (RoleParameter) binds only to a field (an
//     option of an options type, a config class attribute), never to a
//     same-named function or method;
//   - a command line or "the `x` command" (RoleCommand) binds only to a
//     command definition, by its last word, and only when the first word
//     of a two- or three-word line is this workspace's tool (isTool); of
//     several, the one declared under the parent the line names before it
//     (underParent);
//   - a flag (--x) binds only to a flag definition; of several, the one
//     declared under the command a command line on its line names
//     (commandOnLine);
//   - a variable or placeholder (RoleVariable) binds only to a field or
//     constant, never to a function or method; a module, crate or package
//     (RoleModule) to its file (moduleFiles); a setting (RoleSetting, "the `nav`
//     setting", "the `plugins` configuration option") only to a field,
//     a plain word included, preferring fields of a configuration type
//     (configFields);
//   - a bare name binds only to visible definitions (not Hidden: exported
//     or public, top-level or members) outside test, example, fixture,
//     vendored and minified files, and never to a flag; a plain lower-case
//     word ("toc", "get") binds to a top-level definition or a command
//     (declared in a function or an enum, named as a word), not a member,
//     and a name written with a leading dot (".aread()") only to a member;
//   - a member named through a variable the document's examples
//     construct (http.get after http = Client()) binds to the type's
//     member (Client.get) when exactly one matches (instances.go);
//   - a name qualified by a Python package (httpx.get) that its own
//     rules do not bind to exactly one definition binds to the one the
//     package's __init__.py re-exports, when that is one, and a Rust path
//     (mdbook::load_book) to what the crate's pub use re-exports
//     (reexports.go); of several definitions of a bare name, the one
//     its Python package or Rust crate root re-exports, when that is one;
//   - a qualified name's qualifier matches a container case-insensitively
//     (response.aread -> Response.aread), a file stem or a directory; of
//     several it fits, the one whose container it names exactly
//     (namedContainer); a
//     package-root qualifier (httpx.get, mdbook::Book) that matches
//     nothing is dropped when the rest then names exactly one definition.
func (g *Graph) resolveProse(e *Entry, res *Resolution) {
	r := res.Ref
	var cands []Target
	switch r.Role {
	case RoleCommand:
		words := strings.Fields(r.Name)
		if len(words) > 1 && !g.isTool(words[0]) {
			return
		}
		cands = g.proseCandidates(words[len(words)-1], nil, func(s Symbol) bool { return s.Kind == "command" })
		if len(cands) > 1 && len(words) > 2 {
			cands = underParent(cands, words[len(words)-2])
		}
	case RoleFlag:
		cands = g.proseCandidates(r.Name, nil, func(s Symbol) bool { return s.Kind == "flag" })
		if len(cands) > 1 {
			cands = commandOnLine(e, r, cands)
		}
	default:
		parts := splitQualified(r.Name)
		name, quals := parts[len(parts)-1], parts[:len(parts)-1]
		keep := func(s Symbol) bool { return s.Kind != "flag" }
		switch {
		case r.Role == RoleModule: // a module, crate or package: its file, if the workspace has it
			g.settle(e, res, g.moduleFiles(quals, name))
			return
		case r.Role == RoleParameter: // an option of an options type or a config class, never a function
			keep = func(s Symbol) bool { return s.Kind == "field" }
		case r.Role == RoleSetting: // a configuration setting: a field, also by a plain word
			keep = func(s Symbol) bool { return s.Kind == "field" }
		case r.Role == RoleVariable: // a value: a field or constant, never a function; plain words as below
			keep = func(s Symbol) bool {
				return (s.Kind == "field" || s.Kind == "constant") && (len(quals) > 0 || !plainWord(name) || s.Container == "")
			}
		case strings.HasPrefix(r.Name, "."): // ".aread()": a member
			keep = func(s Symbol) bool { return s.Container != "" && s.Kind != "flag" }
		case len(quals) == 0 && plainWord(name): // a command is named as a plain word wherever it is declared
			keep = func(s Symbol) bool { return (s.Container == "" || s.Kind == "command") && s.Kind != "flag" }
		}
		if c := g.instanceCandidates(r); len(c) == 1 {
			g.settle(e, res, c)
			return
		}
		cands = g.proseCandidates(name, quals, keep)
		if len(cands) != 1 && len(quals) > 0 { // a package's re-export (reexports.go)
			c := g.reexported(quals, name, keep)
			if len(c) != 1 {
				c = g.rustReexported(quals, name, keep)
			}
			if len(c) == 1 {
				cands = c
			}
		}
		for len(cands) == 0 && len(quals) > 0 && g.isRoot(quals[0]) {
			quals = quals[1:]
			if cands = g.proseCandidates(name, quals, keep); len(cands) > 1 {
				cands = nil // dropping the root is only safe when the rest is unique
				break
			}
		}
		if len(cands) > 1 && len(quals) > 0 { // Body::read_to_string: Body's, not BodyWithConfig's
			cands = namedContainer(cands, quals[len(quals)-1])
		}
		if len(cands) > 1 && len(quals) == 0 { // the one its package re-exports (reexports.go)
			cands = g.exportedOf(cands, name, keep)
		}
	}
	if len(cands) > 1 && r.Role == RoleSetting {
		cands = configFields(cands)
	}
	g.settle(e, res, cands)
}

// instanceCandidates are the definitions a code span naming a member
// through a constructed variable names through its type (r.Target,
// "Client.get" for `http.get`: instances.go): the members of that name
// whose container is the type.
func (g *Graph) instanceCandidates(r Reference) []Target {
	if r.Kind != "code" || r.Target == "" {
		return nil
	}
	parts := splitQualified(r.Target)
	if len(parts) != 2 {
		return nil
	}
	typ, name := parts[0], parts[1]
	return g.proseCandidates(name, parts[:1], func(s Symbol) bool {
		return s.Container == typ && s.Kind != "flag" && s.Kind != "command"
	})
}

// proseCandidates lists the definitions named name that keep accepts and
// the qualifier fits (qualifiesFold); without a qualifier, only visible
// ones (not Hidden) outside test, example, fixture, vendored and minified
// files.
func (g *Graph) proseCandidates(name string, quals []string, keep func(Symbol) bool) []Target {
	var cands []Target
	for _, l := range g.byName[name] {
		b := g.nodes[l.n]
		s := b.def(int(l.i))
		if !keep(s) || len(quals) == 0 && (s.Hidden || nonCandidate(b.Path)) || len(quals) > 0 && !qualifiesFold(b, s, quals) {
			continue
		}
		cands = appendTarget(cands, symbolTarget(b, s))
	}
	return cands
}

// namedContainer keeps, of several candidates a qualifier fits (by
// container, file stem or directory, without regard to case), the one
// whose container the qualifier names exactly: Body::read_to_string in
// src/body/mod.rs is Body's method, not BodyWithConfig's, which the
// directory "body" also qualifies. A lower-case qualifier (ky.create) is
// a module or a variable, whose type is not the container it spells
// (KyInstance, not Ky): it names no container exactly. It returns cands
// unchanged unless exactly one is.
func namedContainer(cands []Target, qual string) []Target {
	var keep []Target
	for _, c := range cands {
		if c.Container == qual {
			keep = append(keep, c)
		}
	}
	if len(keep) != 1 {
		return cands
	}
	return keep
}

// commandOnLine keeps, of several flags of one name, the one declared
// under the command a command line on the flag's line names ("Added
// `--score` to `zoxide add`": the flag of Add, not of Query), by the
// rules of underParent. It returns cands unchanged unless exactly one
// command line there picks exactly one flag.
func commandOnLine(e *Entry, flag Reference, cands []Target) []Target {
	var keep []Target
	for _, r := range e.references() {
		if r.Role != RoleCommand || r.Span.Start.Line != flag.Span.Start.Line {
			continue
		}
		words := strings.Fields(r.Name)
		if picked := underParent(cands, words[len(words)-1]); len(picked) == 1 {
			if keep != nil && keep[0] != picked[0] {
				return cands // two command lines, two flags
			}
			keep = picked
		}
	}
	if keep == nil {
		return cands
	}
	return keep
}

// underParent keeps, of several commands of one name, the one declared
// under the parent command a command line names before it ("repo" in
// `gh repo create`): in a directory of that name (cobra's
// pkg/cmd/repo/create/create.go), a file whose name has it as a part
// (cmd/repo_create.go), or a container that starts with it (clap's
// RepoCommand enum). It returns cands unchanged unless exactly one is.
func underParent(cands []Target, parent string) []Target {
	var keep []Target
	for _, c := range cands {
		dir, base := path.Split(c.Path)
		stem := strings.TrimSuffix(base, path.Ext(base))
		parts := append(strings.Split(strings.Trim(dir, "/"), "/"), strings.FieldsFunc(stem, func(r rune) bool { return r == '_' || r == '-' || r == '.' })...)
		if slices.ContainsFunc(parts, func(p string) bool { return strings.EqualFold(p, parent) }) ||
			strings.HasPrefix(strings.ToLower(c.Container), strings.ToLower(parent)) {
			keep = append(keep, c)
		}
	}
	if len(keep) != 1 {
		return cands
	}
	return keep
}

// plainWord reports whether name is a plain lower-case word ("toc",
// "get", "default"): prose uses such words for many things (an extension,
// an HTTP method, a setting of another tool), so one binds to a member
// (a method or field of a type) only when qualified ("page.toc").
func plainWord(name string) bool {
	for _, r := range name {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// qualifiesFold is qualifies with the qualifier compared to containers,
// file stems and directories without regard to case.
func qualifiesFold(b *Entry, s Symbol, quals []string) bool {
	return qualifiesBy(b, s, quals, strings.EqualFold)
}

// configFields keeps, of several fields, those of a configuration type —
// whose container or file stem says config, settings or options — when
// that leaves any: "the `use_directory_urls` setting" is the config
// class's field, not a same-named attribute of another class.
func configFields(cands []Target) []Target {
	var keep []Target
	for _, c := range cands {
		stem := strings.TrimSuffix(path.Base(c.Path), path.Ext(c.Path))
		for _, w := range []string{strings.ToLower(c.Container), strings.ToLower(stem)} {
			if strings.Contains(w, "config") || strings.Contains(w, "setting") || strings.Contains(w, "option") {
				keep = append(keep, c)
				break
			}
		}
	}
	if len(keep) == 0 {
		return cands
	}
	return keep
}
