package treesitter

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/lunad/lunad/internal/lazyregexp"
)

// private reports whether definition d of a file in lang is unexported or
// private by its language's convention: a lower-case Go name (methods of
// a type are judged by their own name too), a leading underscore in
// Python, JavaScript and TypeScript (and # for JS private fields), a Rust
// item without pub at the top level (trait and impl members carry no pub
// of their own and are left visible). Commands and flags are what a user
// types, never private.
func private(lang string, d *def, src []byte) bool {
	if d.Kind == "heading" || d.Kind == "command" || d.Kind == "flag" || d.Name == "" {
		return false
	}
	switch lang {
	case LangGo:
		r, _ := utf8.DecodeRuneInString(d.Name)
		return !unicode.IsUpper(r)
	case LangPython, LangJavaScript, LangTypeScript:
		return d.Name[0] == '_' || d.Name[0] == '#'
	case LangRust:
		return d.Container == "" && !bytes.HasPrefix(src[d.start:d.end], []byte("pub"))
	}
	return false
}

// indexedSelf matches a TypeScript indexed access type naming a member of
// another type ("Options['baseUrl']"): submatch 1 is the member.
var indexedSelf = lazyregexp.New(`\b[A-Z]\w*\[\s*['"](\w+)['"]\s*\]`)

// restated reports whether field d of a TypeScript file restates another
// type's member of the same name through an indexed access type
// (`baseUrl?: Options['baseUrl']` in NormalizedOptions): the member a
// reader means is the original, so a bare name in prose does not reach
// the copy (a qualified one still does).
func restated(lang string, d *def, src []byte) bool {
	if d.Kind != "field" || lang != LangTypeScript {
		return false
	}
	_, typ, ok := bytes.Cut(src[d.nameEnd:d.end], []byte(":"))
	if !ok {
		return false
	}
	m := indexedSelf().FindSubmatch(typ)
	return m != nil && string(m[1]) == d.Name && bytes.HasPrefix(bytes.TrimSpace(typ), m[0])
}
