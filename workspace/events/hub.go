package events

import (
	"context"
	"sync"

	"github.com/lunad/lunad"
)

// Hub fans events out to subscribers. Publishing never blocks: each
// subscriber has a bounded queue, and one that falls behind has its queue
// replaced by a single "resync" event. Hub is safe for concurrent use.
type Hub struct {
	mu   sync.Mutex
	subs map[*subscriber]struct{}
	done chan struct{} // closed by Close
	wg   sync.WaitGroup
}

// New returns a hub without subscribers.
func New() *Hub {
	return &Hub{subs: map[*subscriber]struct{}{}, done: make(chan struct{})}
}

type subscriber struct {
	queue  []lunad.Event
	wake   chan struct{}
	maxLen int
}

const subscriberQueue = 256

// Subscribe starts a subscription that ends when ctx is done or the hub
// closes; the channel is closed then.
func (b *Hub) Subscribe(ctx context.Context) <-chan lunad.Event {
	out := make(chan lunad.Event)
	s := &subscriber{wake: make(chan struct{}, 1), maxLen: subscriberQueue}
	b.mu.Lock()
	select {
	case <-b.done:
		b.mu.Unlock()
		close(out)
		return out
	default:
	}
	b.subs[s] = struct{}{}
	b.wg.Add(1)
	b.mu.Unlock()
	go func() {
		defer b.wg.Done()
		defer close(out)
		defer func() {
			b.mu.Lock()
			delete(b.subs, s)
			b.mu.Unlock()
		}()
		for {
			b.mu.Lock()
			var next *lunad.Event
			if len(s.queue) > 0 {
				next = &s.queue[0]
				s.queue = s.queue[1:]
			}
			b.mu.Unlock()
			if next == nil {
				select {
				case <-s.wake:
					continue
				case <-ctx.Done():
					return
				case <-b.done:
					return
				}
			}
			select {
			case out <- *next:
			case <-ctx.Done():
				return
			case <-b.done:
				return
			}
		}
	}()
	return out
}

// Publish queues e for every subscriber.
func (b *Hub) Publish(e lunad.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		if len(s.queue) >= s.maxLen {
			s.queue = append(s.queue[:0], lunad.Event{Kind: "resync"})
		} else {
			s.queue = append(s.queue, e)
		}
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// Close ends every subscription and waits for their goroutines.
func (b *Hub) Close() {
	b.mu.Lock()
	select {
	case <-b.done:
	default:
		close(b.done)
	}
	b.mu.Unlock()
	b.wg.Wait()
}
