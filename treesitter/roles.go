package treesitter

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/lunad/lunad/internal/lazyregexp"
)

// symbolLike matches a dotted name (`a.b`, `a::b`, `a#b`, optionally `()`):
// what a role, an autodoc directive or a `:::` line names.
var symbolLike = lazyregexp.New(`^[A-Za-z_$][A-Za-z0-9_$]*((\.|::|#)[A-Za-z_$][A-Za-z0-9_$]*)*(\(\))?$`)

// Roles of Sphinx and MyST ({func}`x` in MyST Markdown, :func:`x` in
// reStructuredText) and the include directives of mdBook and MkDocs: the
// markup that documentation sites add to plain Markdown. Each parser here
// takes text and returns references with offsets relative to it.

// codeRoles are the roles whose content names a code definition, by their
// last part (py:meth is meth). Other roles (math, term, abbr, ...) are not
// references.
var codeRoles = map[string]bool{
	"func": true, "function": true, "meth": true, "method": true, "class": true, "obj": true,
	"attr": true, "data": true, "exc": true, "mod": true, "const": true, "member": true,
	"type": true, "struct": true, "enum": true, "enumerator": true, "macro": true,
	"var": true, "property": true, "interface": true, "trait": true, "fn": true,
}

// roleRef turns a role (func, py:meth, doc, ref) and its content
// ("~Group.get_command", "title <target>") into a reference: kind "code"
// for a code role (Name: the dotted name, without "~", "!", a leading "."
// or "()"), "doc" for {doc} (Name and Target: the document path as
// written, without extension), "ref" for {ref} and {numref} (Name: the
// label). ok is false for any other role or content that names nothing.
func roleRef(role, content string) (r Reference, ok bool) {
	if i := strings.LastIndexByte(role, ':'); i >= 0 {
		role = role[i+1:]
	}
	content = strings.TrimSpace(content)
	// "title <target>": the target is in angle brackets at the end.
	if strings.HasSuffix(content, ">") {
		if i := strings.LastIndexByte(content, '<'); i >= 0 {
			content = strings.TrimSpace(content[i+1 : len(content)-1])
		}
	}
	switch {
	case codeRoles[role]:
		name := strings.TrimLeft(content, "~!")
		name = strings.TrimPrefix(name, ".")
		name = strings.TrimSuffix(name, "()")
		if !symbolLike().MatchString(name) {
			return r, false
		}
		return Reference{Name: name, Kind: "code"}, true
	case role == "doc":
		if content == "" || hasScheme().MatchString(content) || strings.ContainsAny(content, "\n#") {
			return r, false
		}
		return Reference{Name: content, Kind: "doc", Target: content}, true
	case role == "ref" || role == "numref":
		if content == "" || strings.ContainsAny(content, "\n ") {
			return r, false
		}
		return Reference{Name: content, Kind: "ref", Target: content}, true
	}
	return r, false
}

// mystRoleBefore returns the start of a MyST role "{name}" written
// directly before offset end of text, and the role's name; start is -1 if
// there is none. Only the 40 bytes before end are looked at.
func mystRoleBefore(text []byte, end int) (start int, role string) {
	if end < 3 || text[end-1] != '}' {
		return -1, ""
	}
	for i := end - 2; i >= 0 && i >= end-40; i-- {
		switch c := text[i]; {
		case c == '{':
			if i == end-2 {
				return -1, ""
			}
			return i, string(text[i+1 : end-1])
		case c == ':' || c == '-' || c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
		default:
			return -1, ""
		}
	}
	return -1, ""
}

// autodocLine matches a mkdocstrings line "::: package.module.name".
var autodocLine = lazyregexp.New(`(?m)^[ \t]*:::[ \t]+([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)[ \t]*$`)

// scanAutodoc finds mkdocstrings "::: dotted.name" lines: references of
// kind "code" to the named definition (or module).
func scanAutodoc(text []byte) []ref {
	if !bytes.Contains(text, []byte(":::")) {
		return nil
	}
	var out []ref
	for _, m := range autodocLine().FindAllSubmatchIndex(text, -1) {
		out = append(out, ref{Reference: Reference{Name: string(text[m[2]:m[3]]), Kind: "code"}, start: m[2], end: m[3]})
	}
	return out
}

// includeDirective matches mdBook's {{#include path}}, {{#rustdoc_include
// path:anchor}} and {{#playground path}}.
var includeDirective = lazyregexp.New(`\{\{#(include|rustdoc_include|playground)[ \t]+([^}\s]+)[^}\n]*\}\}`)

// scanIncludes finds mdBook include directives: references of kind
// "include" to the file (Target: the path, with "#L10" or "#L10-L20" for
// a line range; Name: the anchor, the line fragment or the path).
func scanIncludes(text []byte) []ref {
	if !bytes.Contains(text, []byte("{{#")) {
		return nil
	}
	var out []ref
	for _, m := range includeDirective().FindAllSubmatchIndex(text, -1) {
		if r, ok := includeRef(string(text[m[4]:m[5]])); ok {
			out = append(out, ref{Reference: r, start: m[0], end: m[1]})
		}
	}
	return out
}

// includeRef reads the argument of an mdBook include: "path",
// "path:anchor", "path:10", "path:10:20", "path:10:" or "path::20".
func includeRef(arg string) (Reference, bool) {
	p, rest, _ := strings.Cut(arg, ":")
	if p == "" || strings.HasPrefix(rest, "//") { // a URL, not a file
		return Reference{}, false
	}
	r := Reference{Name: p, Kind: "include", Target: p}
	if rest == "" {
		return r, true
	}
	from, to, ranged := strings.Cut(rest, ":")
	n, err := strconv.Atoi(from)
	switch {
	case err != nil && !ranged && from != "": // an anchor
		r.Name = from
	case err == nil && n > 0:
		frag := "L" + from
		if m, err := strconv.Atoi(to); ranged && err == nil && m >= n {
			frag += "-L" + to
		}
		r.Name, r.Target = frag, p+"#"+frag
	case from == "" && ranged: // ":20": lines up to 20, from the first
		if m, err := strconv.Atoi(to); err == nil && m > 0 {
			r.Name, r.Target = "L1-L"+to, p+"#L1-L"+to
		}
	}
	return r, true
}
