package editor

import "strings"

// typographic turns the quotes a model's output sometimes has in place of
// the file's ASCII ones (“ ” ‘ ’, as a word processor or a chat renderer
// writes them) back into " and '.
var typographic = strings.NewReplacer("\u201c", `"`, "\u201d", `"`, "\u2018", "'", "\u2019", "'")

// asciiQuotes is s with typographic quotes made ASCII.
func asciiQuotes(s string) string {
	if !strings.ContainsAny(s, "\u201c\u201d\u2018\u2019") {
		return s
	}
	return typographic.Replace(s)
}

// hasTypographicQuotes reports whether the content has a typographic
// quote anywhere.
func (mt *matcher) hasTypographicQuotes() bool {
	return strings.ContainsAny(mt.d.s, "\u201c\u201d\u2018\u2019")
}
