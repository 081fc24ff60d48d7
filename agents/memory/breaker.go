package memory

import (
	"strconv"
	"time"
)

// Breaker states.
const (
	Closed   = "closed"
	Open     = "open"
	HalfOpen = "half_open"
)

// Outcomes kept per breaker.
const keptOutcomes = 10

type breaker struct {
	state    string
	failures int       // consecutive
	opened   time.Time // when it last opened
	trial    time.Time // when the half-open trial call started; zero if none in flight
	trips    int
	outcomes []bool // the last keptOutcomes, oldest first; true = success
}

func (m *Memory) breaker(provider string) *breaker {
	b := m.breakers[provider]
	if b == nil {
		b = &breaker{state: Closed}
		m.breakers[provider] = b
	}
	return b
}

// admit lets a call to provider through its breaker, or refuses it.
// Half-open lets one trial call through at a time; a trial whose outcome
// was never reported (a crash) is given up after a cooldown.
func (m *Memory) admit(provider string, now time.Time) error {
	b := m.breaker(provider)
	cool := m.o.Breaker.Cooldown
	if b.state == Open && now.Sub(b.opened) >= cool {
		b.state = HalfOpen
		b.trial = time.Time{}
	}
	if b.state == HalfOpen && (b.trial.IsZero() || now.Sub(b.trial) >= cool) {
		b.trial = now
		return nil
	}
	if b.state == Closed {
		return nil
	}
	return m.refusal(provider, b)
}

// refusal is the refusal of a call to provider while b refuses calls.
func (m *Memory) refusal(provider string, b *breaker) *BreakerOpenError {
	until := b.opened.Add(m.o.Breaker.Cooldown)
	if b.state == HalfOpen {
		until = b.trial.Add(m.o.Breaker.Cooldown)
	}
	return &BreakerOpenError{Run: m.run, Provider: provider, Fallback: m.o.Breaker.Fallback[provider], Failures: b.failures, Until: until}
}

// BreakerRefusal is the *BreakerOpenError that Before would return for a
// call to provider now, nil if its breaker would let a call through. It
// admits and counts nothing: a retry asks it after a failure, so that it
// does not wait for an attempt the breaker will refuse.
func (m *Memory) BreakerRefusal(provider string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.breakers[provider]
	if b == nil || b.state == Closed {
		return nil
	}
	now := m.o.Clock()
	cool := m.o.Breaker.Cooldown
	if b.state == Open && now.Sub(b.opened) >= cool {
		return nil // half-open: a trial would be let through
	}
	if b.state == HalfOpen && (b.trial.IsZero() || now.Sub(b.trial) >= cool) {
		return nil
	}
	return m.refusal(provider, b)
}

// outcome feeds a call's outcome to provider's breaker. While open, an
// outcome is kept but changes nothing.
func (m *Memory) outcome(provider string, ok bool, now time.Time) {
	b := m.breaker(provider)
	b.outcomes = append(b.outcomes, ok)
	if len(b.outcomes) > keptOutcomes {
		b.outcomes = b.outcomes[len(b.outcomes)-keptOutcomes:]
	}
	if b.state == Open {
		return // a late outcome of a call admitted before the trip: the cooldown decides
	}
	if ok {
		b.failures = 0
		b.state, b.trial = Closed, time.Time{}
		return
	}
	b.failures++
	if b.state == HalfOpen || (b.state == Closed && b.failures >= m.o.Breaker.Failures) {
		from := b.state
		b.state, b.opened, b.trial = Open, now, time.Time{}
		b.trips++
		m.record(now, Detection{Guard: GuardBreaker, Rule: from + " → " + Open, Subject: provider,
			Message: "provider " + provider + " failed " + strconv.Itoa(b.failures) + " times in a row; breaker open"})
	}
}

// BreakerState is the state of provider's breaker ("closed" for a provider
// never called).
func (m *Memory) BreakerState(provider string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.breakers[provider]
	if b == nil {
		return Closed
	}
	if b.state == Open && m.o.Clock().Sub(b.opened) >= m.o.Breaker.Cooldown {
		return HalfOpen
	}
	return b.state
}
