package mcp

import (
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"
)

// limiter holds one token bucket per client session.
type limiter struct {
	rate  rate.Limit // 0: no limit
	burst int
	clock func() time.Time
	srv   *sdk.Server

	mu      sync.Mutex
	buckets map[*sdk.ServerSession]*rate.Limiter
}

// pruneAt is how many buckets may pile up before those of closed sessions
// are dropped.
const pruneAt = 64

func newLimiter(srv *sdk.Server, perSecond float64, burst int, clock func() time.Time) *limiter {
	return &limiter{rate: rate.Limit(perSecond), burst: burst, clock: clock, srv: srv, buckets: map[*sdk.ServerSession]*rate.Limiter{}}
}

// allow takes a token from ss's bucket, or says how long until one is
// there.
func (l *limiter) allow(ss *sdk.ServerSession) (wait time.Duration, ok bool) {
	if l.rate == 0 {
		return 0, true
	}
	l.mu.Lock()
	b := l.buckets[ss]
	if b == nil {
		if len(l.buckets) >= pruneAt {
			l.prune()
		}
		b = rate.NewLimiter(l.rate, l.burst)
		l.buckets[ss] = b
	}
	l.mu.Unlock()
	now := l.clock()
	if b.AllowN(now, 1) {
		return 0, true
	}
	r := b.ReserveN(now, 1)
	defer r.CancelAt(now)
	return r.DelayFrom(now), false
}

// prune drops the buckets of sessions that have ended. l.mu is held.
func (l *limiter) prune() {
	live := map[*sdk.ServerSession]bool{}
	for ss := range l.srv.Sessions() {
		live[ss] = true
	}
	for ss := range l.buckets {
		if !live[ss] {
			delete(l.buckets, ss)
		}
	}
}
