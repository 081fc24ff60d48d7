package stage_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/stage"
)

// TestClockRecordAndReplay: the readings of a stage come back in order in its
// live replay, whatever the clock says then; past them the replay ticks a
// millisecond at a time.
func TestClockRecordAndReplay(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	n := 0
	live, err := stage.NewClock(func() time.Time { n++; return t0.Add(time.Duration(n) * time.Second) }, lunad.StageRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if live.File() != "" {
		t.Errorf("an unread clock records %q", live.File())
	}
	a, b := live.Now(), live.Now()
	file := live.File()
	if file == "" || !b.After(a) {
		t.Fatalf("readings %v %v, file %q", a, b, file)
	}
	rep, err := stage.NewClock(func() time.Time { t.Fatal("a replay read the real clock"); return time.Time{} },
		lunad.StageRequest{Replay: true, Recorded: map[string]string{stage.ClockFile: file}})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []time.Time{a, b, b.Add(time.Millisecond), b.Add(2 * time.Millisecond)} {
		if got := rep.Now(); !got.Equal(want) {
			t.Errorf("reading %d: %v, want %v", i, got, want)
		}
	}
	if rep.File() != "" {
		t.Error("a replay records its readings again")
	}
	for name, text := range map[string]string{"not json": "[", "not numbers": `["a"]`} {
		t.Run(name, func(t *testing.T) {
			if _, err := stage.NewClock(time.Now, lunad.StageRequest{Replay: true, Recorded: map[string]string{stage.ClockFile: text}}); !errors.Is(err, lunad.ErrInvalid) {
				t.Errorf("%v; want ErrInvalid", err)
			}
		})
	}
}

// TestClockLiveIsReplayed: on the real clock, a live reading is the very
// value its replay reads back — no monotonic reading, the same location —
// so that a duration between two readings, live or replayed, is the same
// to the nanosecond.
func TestClockLiveIsReplayed(t *testing.T) {
	live, err := stage.NewClock(time.Now, lunad.StageRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var got []time.Time
	for range 50 {
		got = append(got, live.Now())
	}
	rep, err := stage.NewClock(time.Now, lunad.StageRequest{Replay: true, Recorded: map[string]string{stage.ClockFile: live.File()}})
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range got {
		r := rep.Now()
		if g != r {
			t.Fatalf("reading %d: live %v, replayed %v: not the same value", i, g, r)
		}
		if i > 0 && g.Sub(got[0]) != r.Sub(got[0].Round(0)) {
			t.Errorf("reading %d: elapsed %v live, %v replayed", i, g.Sub(got[0]), r.Sub(got[0].Round(0)))
		}
	}
}
