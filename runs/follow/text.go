package follow

import (
	"strings"

	"github.com/lunad/lunad"
)

// oneLine is s's first line, its control characters dropped, cut at n
// bytes (on a character boundary) with "…".
func oneLine(s string, n int) string {
	s = strings.TrimSpace(lunad.FirstLine(s))
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// short is a commit's first 8 hex digits.
func short(commit string) string {
	if len(commit) > 8 {
		return commit[:8]
	}
	return commit
}
