package ask

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/lunad/lunad"
)

// clockFile is the stage file holding the stage's clock readings.
const clockFile = "clock.json"

// stageClock is the clock of one stage's working memory: its readings are
// recorded, and a live replay reads them back, so a replayed stage's
// output (the memory's snapshot with its times) is the original's.
type stageClock struct {
	now    func() time.Time
	replay bool

	mu       sync.Mutex
	readings []int64 // Unix nanoseconds: recorded, or to replay
	next     int
}

func newClock(now func() time.Time, req lunad.StageRequest) (*stageClock, error) {
	c := &stageClock{now: now, replay: req.Replay}
	if req.Replay {
		if text, ok := req.Recorded[clockFile]; ok {
			if err := json.Unmarshal([]byte(text), &c.readings); err != nil {
				return nil, fmt.Errorf("%w: the stage's recorded %s does not decode: %v", lunad.ErrInvalid, clockFile, err)
			}
		}
	}
	return c, nil
}

// Now is the next reading. Past the recorded ones, a replay's clock
// ticks a millisecond from the last.
func (c *stageClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.replay {
		t := c.now()
		c.readings = append(c.readings, t.UnixNano())
		return t
	}
	if c.next < len(c.readings) {
		c.next++
		return time.Unix(0, c.readings[c.next-1]).UTC()
	}
	last := int64(0)
	if n := len(c.readings); n > 0 {
		last = c.readings[n-1]
	}
	c.readings = append(c.readings, last+int64(time.Millisecond))
	c.next = len(c.readings)
	return time.Unix(0, last+int64(time.Millisecond)).UTC()
}

func (c *stageClock) file() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.replay || len(c.readings) == 0 {
		return ""
	}
	b, _ := json.Marshal(c.readings)
	return string(b) + "\n"
}
