package main

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// printable is s as it may reach a terminal: s itself, or s quoted (Go
// syntax) when it holds what a terminal would act on or show other than
// it is — control characters other than tabs (escape sequences, carriage
// returns, newlines that would forge a line), bidirectional formatting
// that reorders what follows, or bytes that are not UTF-8. Text from a
// file, a workspace's configuration or its policy goes through it.
func printable(s string) string {
	if !utf8.ValidString(s) || strings.IndexFunc(s, unprintable) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

func unprintable(r rune) bool {
	return r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r))
}

// printableAll is each of ss printable.
func printableAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = printable(s)
	}
	return out
}
