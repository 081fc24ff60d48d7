package runs

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on its first use rather than at start-up: every
// lunad process links every package, and compiling all their expressions
// in package initialisation cost a one-shot `lunad edit` a tenth of its CPU.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
