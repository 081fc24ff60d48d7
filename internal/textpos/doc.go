// Package textpos converts between the positions lunad's layers speak:
// byte offsets (the store, the parser, the edit engine), 0-based line and
// byte column, and line and UTF-16 column (LSP). It is pure Go with no
// dependencies, so that the language server maps positions without linking
// the parser.
//
// Lines is the one position arithmetic: byte offsets to line and byte column
// to line and UTF-16 column, and back.
package textpos
