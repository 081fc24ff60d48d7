package refindex

import "sync"

// Progress is told how far a long build has come: done of total units
// (artifacts parsed). Calls are serialised and done grows by one from 1
// to total, so a caller may draw a bar without locking; a build of zero
// artifacts makes no call. It must return quickly: the parse workers
// wait for it.
type Progress func(done, total int)

// BuildOptions tune BuildWith.
type BuildOptions struct {
	// Workers is the number of parse workers (0: GOMAXPROCS).
	Workers int
	// Progress, if set, is told of every artifact parsed.
	Progress Progress
}

// counter reports the artifacts parsed by several workers to one
// Progress, in order.
type counter struct {
	mu    sync.Mutex
	done  int
	total int
	p     Progress
}

// add counts one more artifact done.
func (c *counter) add() {
	if c.p == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done++
	c.p(c.done, c.total)
}
