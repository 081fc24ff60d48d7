package policy

import (
	"strings"
	"unicode"
)

// The patterns of a policy file. In a program's name and in arguments, *
// matches any run of characters (none included, / included), ? any one
// character, and \ makes the next character plain. In paths, * and ?
// stay within one path segment and a segment ** matches any number of
// segments (none included).

// globText matches s against a text pattern.
func globText(pattern, s string) bool {
	p, n := []rune(pattern), []rune(s)
	pi, ni := 0, 0
	star, mark := -1, 0 // the last * and where its match ends
	for ni < len(n) {
		if pi < len(p) {
			switch c := p[pi]; {
			case c == '*':
				star, mark = pi, ni
				pi++
				continue
			case c == '?':
				pi++
				ni++
				continue
			case c == '\\' && pi+1 < len(p) && p[pi+1] == n[ni]:
				pi += 2
				ni++
				continue
			case c != '\\' && c == n[ni]:
				pi++
				ni++
				continue
			}
		}
		if star < 0 {
			return false
		}
		pi, mark = star+1, mark+1
		ni = mark
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// globSegments matches path segments against pattern segments, where **
// matches any number of segments: dp[i][j] is whether pat[i:] matches
// name[j:].
func globSegments(pat, name []string) bool {
	next := make([]bool, len(name)+1) // row i+1
	next[len(name)] = true
	for i := len(pat) - 1; i >= 0; i-- {
		cur := make([]bool, len(name)+1)
		for j := len(name); j >= 0; j-- {
			if pat[i] == "**" {
				cur[j] = next[j] || j < len(name) && cur[j+1]
			} else {
				cur[j] = j < len(name) && next[j+1] && globText(pat[i], name[j])
			}
		}
		next = cur
	}
	return next[0]
}

// matchPath reports whether a path pattern of a rule covers rel, a
// workspace-relative slash path, ignoring case (foldPath): a pattern with a slash is anchored at
// the workspace root and matches rel or one of the directories it is in
// (so "db/migrations" covers db/migrations/001.sql); a pattern without
// one matches the name of rel or of one of those directories at any
// depth (so "*.pem" covers keys/a.pem, "secrets" covers a/secrets/x).
func matchPath(pattern, rel string) bool {
	if rel == "." || rel == "" {
		return pattern == "**"
	}
	pattern, rel = foldPath(pattern), foldPath(rel)
	segs := strings.Split(rel, "/")
	if !strings.Contains(pattern, "/") {
		for _, s := range segs {
			if globText(pattern, s) {
				return true
			}
		}
		return false
	}
	pat := strings.Split(strings.Trim(pattern, "/"), "/")
	for n := len(segs); n >= 1; n-- {
		if globSegments(pat, segs[:n]) {
			return true
		}
	}
	return false
}

// foldPath is a path, or a path pattern, as lunad compares them:
// ignoring case as strings.EqualFold does (each character taken as the
// least of the characters Unicode folds it with, so .GitHub/Workflows is
// .github/workflows, and the Kelvin sign K is k), because the file systems
// of macOS and Windows, where a workspace is checked out as well, take
// names so. The pattern characters * ? \ / fold to themselves.
func foldPath(s string) string {
	return strings.Map(foldRune, s)
}

func foldRune(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}

// withinFold reports whether rel is dir or inside it, ignoring case
// (both workspace-relative slash paths).
func withinFold(dir, rel string) bool {
	return within(foldPath(dir), foldPath(rel))
}

// validGlob says what is wrong with a pattern, or "".
func validGlob(pattern string) string {
	switch {
	case pattern == "":
		return "is empty"
	case strings.HasSuffix(pattern, `\`) && (len(pattern)-len(strings.TrimRight(pattern, `\`)))%2 == 1:
		return `ends in a lone \ (write \\ for a backslash)`
	case strings.ContainsRune(pattern, 0):
		return "holds a NUL byte"
	}
	return ""
}
