package lazyregexp

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr the first time it is called
// and returns that one *regexp.Regexp to every call. Like
// regexp.MustCompile, it panics, on that first call, if expr does not
// compile: expr is a constant of the program.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
