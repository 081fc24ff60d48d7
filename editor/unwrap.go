package editor

import "strings"

// unwrap drops the wrapping a model sometimes writes inside a block, around
// its SEARCH or REPLACE text: fence lines (see isFence) at the start and at
// the end, and a file-name line at the start — before or after the opening
// fence. A line is a file name when it names the block's path (SamePath),
// or, for a block without one, when it looks like a file path (a '.' or a
// '/' in it, see cleanPath) and a fence line comes right after it. ok is
// false when there is no wrapping.
func unwrap(ls []string, path string) (out []string, ok bool) {
	a, b := 0, len(ls)
	fences := func() {
		for n := 0; n < 2 && a < b && isFence(ls[a]); n++ {
			a++
		}
	}
	fences()
	if a < b && isFileLine(ls[a], path, a+1 < b && isFence(ls[a+1])) {
		a++
		fences()
	}
	for n := 0; n < 2 && b > a && isFence(ls[b-1]); n++ {
		b--
	}
	if a == 0 && b == len(ls) {
		return ls, false
	}
	return ls[a:b], true
}

// isFileLine reports whether l is a file-name line for a block of path
// ("" when the block names none); fenced says a fence line follows it.
func isFileLine(l, path string, fenced bool) bool {
	name, ok := cleanPath(l)
	switch {
	case !ok:
		return false
	case path != "":
		return SamePath(name, path)
	}
	return fenced && strings.ContainsAny(name, "./") && !strings.ContainsAny(name, "()[]{}=;,'\"")
}
