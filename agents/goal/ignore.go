package goal

import (
	"path"
	"regexp"
	"strings"
)

// ignoreRule is one pattern of a .gitignore file, as git reads it
// (gitignore(5)): a blank line or "#…" is none; "!" negates; a trailing
// "/" matches directories only; a pattern with a "/" other than a
// trailing one is anchored at its file's directory, one without matches
// a name at any depth below it; "*", "?" and "[…]" match within a path
// component, "**/", "/**/" and "/**" any number of components.
type ignoreRule struct {
	base     string // the .gitignore's directory, relative to the root ("" the root)
	re       *regexp.Regexp
	negate   bool
	dirOnly  bool
	anchored bool
}

// parseIgnore reads a .gitignore in directory base (relative to the
// root); lines it cannot read as a pattern are left out, as git does.
func parseIgnore(base, text string) []ignoreRule {
	var out []ignoreRule
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		line = trimTrailingSpaces(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := ignoreRule{base: base}
		switch {
		case strings.HasPrefix(line, "!"):
			r.negate, line = true, line[1:]
		case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") && !strings.HasSuffix(line, `\/`) {
			r.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		if strings.Contains(line, "/") {
			r.anchored, line = true, strings.TrimPrefix(line, "/")
		}
		re, err := regexp.Compile("^" + globRegexp(line) + "$")
		if err != nil {
			continue
		}
		r.re = re
		out = append(out, r)
	}
	return out
}

// trimTrailingSpaces drops a line's trailing spaces unless escaped.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// globRegexp translates a gitignore glob to a regular expression over a
// slash-separated path.
func globRegexp(g string) string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case strings.HasPrefix(g[i:], "**/") && (i == 0 || g[i-1] == '/'):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(g[i:], "**") && i+2 == len(g) && (i == 0 || g[i-1] == '/'):
			b.WriteString(".*")
			i++
		case c == '*':
			for i+1 < len(g) && g[i+1] == '*' {
				i++
			}
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '\\' && i+1 < len(g):
			i++
			b.WriteString(regexp.QuoteMeta(string(g[i])))
		case c == '[':
			end := classEnd(g, i)
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			class, neg := g[i+1:end], false
			if strings.HasPrefix(class, "!") || strings.HasPrefix(class, "^") {
				class, neg = class[1:], true
			}
			class = strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`).Replace(class)
			if neg {
				b.WriteString("[^/" + class + "]") // a class never matches the separator
			} else {
				b.WriteString("[" + class + "]")
			}
			i = end
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// classEnd is the index of the "]" closing the class opened at g[i], or
// -1 when it is not closed.
func classEnd(g string, i int) int {
	j := i + 1
	if j < len(g) && (g[j] == '!' || g[j] == '^') {
		j++
	}
	if j < len(g) && g[j] == ']' {
		j++
	}
	for ; j < len(g); j++ {
		if g[j] == ']' {
			return j
		}
	}
	return -1
}

// ignores are the rules of the .gitignore files read so far.
type ignores []ignoreRule

// match reports whether rel (slash-separated, relative to the root) is
// ignored: the last rule that matches it decides.
func (rs ignores) match(rel string, dir bool) bool {
	ignored := false
	for _, r := range rs {
		sub := rel
		if r.base != "" {
			var ok bool
			if sub, ok = strings.CutPrefix(rel, r.base+"/"); !ok {
				continue
			}
		}
		if r.dirOnly && !dir {
			continue
		}
		target := sub
		if !r.anchored {
			target = path.Base(sub)
		}
		if r.re.MatchString(target) {
			ignored = !r.negate
		}
	}
	return ignored
}
