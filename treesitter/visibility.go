package treesitter

import (
	"bytes"
	"unicode"
	"unicode/utf8"
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
