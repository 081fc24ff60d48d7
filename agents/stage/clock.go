package stage

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/lunad/lunad"
)

// ClockFile is the stage file holding the visit's clock readings.
const ClockFile = "clock.json"

// Clock is one stage visit's clock: its readings are recorded, and a live
// replay reads them back. Safe for concurrent use.
type Clock struct {
	now    func() time.Time
	replay bool

	mu       sync.Mutex
	readings []int64 // Unix nanoseconds: recorded, or to replay
	next     int
}

// NewClock is req's clock over now: in a live replay (req.Replay) the
// readings of req.Recorded[ClockFile], if any; ErrInvalid if they do not
// decode.
func NewClock(now func() time.Time, req lunad.StageRequest) (*Clock, error) {
	c := &Clock{now: now, replay: req.Replay}
	if req.Replay {
		if text, ok := req.Recorded[ClockFile]; ok {
			if err := json.Unmarshal([]byte(text), &c.readings); err != nil {
				return nil, fmt.Errorf("%w: the stage's recorded %s does not decode: %v", lunad.ErrInvalid, ClockFile, err)
			}
		}
	}
	return c, nil
}

// Now is the next reading. Past the recorded ones, a replay's clock
// ticks a millisecond from the last.
//
// A live reading is what its replay will read back, and nothing more: the
// wall time in UTC, without Go's monotonic reading, which the record does
// not keep. With it, a duration between two live readings would be the
// monotonic one and its replay's the wall one, a few nanoseconds apart,
// and an output holding it (the memory's elapsed time) would differ.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.replay {
		ns := c.now().UnixNano()
		c.readings = append(c.readings, ns)
		return time.Unix(0, ns).UTC()
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

// File is the readings as the stage file ClockFile ("" in a replay, or
// when the clock was not read).
func (c *Clock) File() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.replay || len(c.readings) == 0 {
		return ""
	}
	b, _ := json.Marshal(c.readings)
	return string(b) + "\n"
}
