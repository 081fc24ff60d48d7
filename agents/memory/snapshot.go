package memory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/lunad/lunad"
)

// SnapshotVersion is the version of the snapshot format Snapshot writes
// and Decode reads.
const SnapshotVersion = 1

// Snapshot is a memory's state as JSON: enough to resume a run after a
// crash (stored in the run's events). Times are Unix nanoseconds; Elapsed
// is the run's wall time so far, so a restored run's clock continues from
// it. Budgets and thresholds are not in it: Restore takes them from the
// Options of the resumed run.
type Snapshot struct {
	Version    int                        `json:"version"`
	Run        string                     `json:"run"`
	ElapsedNS  int64                      `json:"elapsed_ns"`
	LastNS     int64                      `json:"last_activity_ns"`
	Total      Usage                      `json:"total"`
	Roles      map[string]RoleSnapshot    `json:"roles"`
	Path       []string                   `json:"path"`
	Edges      []Edge                     `json:"edges"`
	Breakers   map[string]BreakerSnapshot `json:"breakers"`
	Stalls     map[string]StallSnapshot   `json:"stalls"`
	WindowNS   []int64                    `json:"window_ns"`
	Detections []Detection                `json:"detections"`
	Warnings   []Warning                  `json:"warnings"`
	Flags      []string                   `json:"flags"` // the budgets already warned of or reported spent, sorted
}

// RoleSnapshot is one role's consumption and its calls in flight.
type RoleSnapshot struct {
	Usage     Usage   `json:"usage"`
	PendingNS []int64 `json:"pending_ns"`
}

// BreakerSnapshot is one provider's breaker.
type BreakerSnapshot struct {
	State    string `json:"state"`
	Failures int    `json:"failures"`
	OpenedNS int64  `json:"opened_ns"`
	TrialNS  int64  `json:"trial_ns"`
	Trips    int    `json:"trips"`
	Outcomes []bool `json:"outcomes"`
}

// StallSnapshot is one role's stall history.
type StallSnapshot struct {
	History    []StepDigest `json:"history"`
	Monologue  int          `json:"monologue"`
	NoProgress int          `json:"no_progress"`
	Reads      []string     `json:"reads"` // sorted
}

func ns(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNS(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

func nsList(ts []time.Time) []int64 {
	out := make([]int64, len(ts))
	for i, t := range ts {
		out[i] = ns(t)
	}
	return out
}

func timeList(ns []int64) []time.Time {
	out := make([]time.Time, len(ns))
	for i, n := range ns {
		out[i] = fromNS(n)
	}
	return out
}

// Snapshot is the memory's state now.
func (m *Memory) Snapshot() Snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := Snapshot{
		Version: SnapshotVersion, Run: m.run, ElapsedNS: int64(m.o.Clock().Sub(m.start)), LastNS: ns(m.last),
		Total: m.total, Roles: map[string]RoleSnapshot{}, Path: slices.Clone(m.stack), Edges: slices.Clone(m.edges),
		Breakers: map[string]BreakerSnapshot{}, Stalls: map[string]StallSnapshot{}, WindowNS: nsList(m.window),
		Detections: slices.Clone(m.detect), Warnings: slices.Clone(m.warns), Flags: sortedKeys(m.flags),
	}
	for r, rs := range m.roles {
		s.Roles[r] = RoleSnapshot{Usage: rs.use, PendingNS: nsList(rs.pending)}
	}
	for p, b := range m.breakers {
		s.Breakers[p] = BreakerSnapshot{State: b.state, Failures: b.failures, OpenedNS: ns(b.opened), TrialNS: ns(b.trial), Trips: b.trips, Outcomes: slices.Clone(b.outcomes)}
	}
	for r, st := range m.stalls {
		s.Stalls[r] = StallSnapshot{History: slices.Clone(st.history), Monologue: st.monologue, NoProgress: st.noProgress, Reads: sortedKeys(st.reads)}
	}
	return s
}

// Decode reads a snapshot from its JSON. ErrInvalid, saying what is wrong,
// if b is not a valid snapshot.
func Decode(b []byte) (Snapshot, error) {
	var s Snapshot
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		return Snapshot{}, fmt.Errorf("%w: working memory snapshot does not decode: %v", lunad.ErrInvalid, err)
	}
	if d.More() {
		return Snapshot{}, fmt.Errorf("%w: working memory snapshot has data after its JSON object", lunad.ErrInvalid)
	}
	if err := s.Validate(); err != nil {
		return Snapshot{}, err
	}
	return s, nil
}

// Validate checks what Restore relies on. ErrInvalid names the field.
func (s Snapshot) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: working memory snapshot of run %q: %s", lunad.ErrInvalid, s.Run, fmt.Sprintf(format, a...))
	}
	if s.Version != SnapshotVersion {
		return bad("version %d, this lunad reads version %d", s.Version, SnapshotVersion)
	}
	if s.Run == "" {
		return bad("no run ID")
	}
	if s.ElapsedNS < 0 {
		return bad("negative elapsed_ns %d", s.ElapsedNS)
	}
	checkUsage := func(where string, u Usage) error {
		if u.Tokens < 0 || u.InputTokens < 0 || u.OutputTokens < 0 || u.Calls < 0 || u.Failures < 0 || u.Elapsed < 0 {
			return bad("%s has a negative count", where)
		}
		return nil
	}
	if err := checkUsage("total", s.Total); err != nil {
		return err
	}
	for _, r := range sortedKeys(s.Roles) {
		if r == "" {
			return bad("a role without a name")
		}
		if err := checkUsage("roles."+r, s.Roles[r].Usage); err != nil {
			return err
		}
	}
	if slices.Contains(s.Path, "") {
		return bad("path has a role without a name")
	}
	for _, p := range sortedKeys(s.Breakers) {
		b := s.Breakers[p]
		switch {
		case b.State != Closed && b.State != Open && b.State != HalfOpen:
			return bad("breakers.%s.state %q is none of %s, %s, %s", p, b.State, Closed, Open, HalfOpen)
		case b.Failures < 0 || b.Trips < 0:
			return bad("breakers.%s has a negative count", p)
		case len(b.Outcomes) > keptOutcomes:
			return bad("breakers.%s keeps %d outcomes, at most %d", p, len(b.Outcomes), keptOutcomes)
		}
	}
	for _, r := range sortedKeys(s.Stalls) {
		st := s.Stalls[r]
		switch {
		case r == "":
			return bad("stall history of a role without a name")
		case len(st.History) > alternationSteps:
			return bad("stalls.%s keeps %d steps, at most %d", r, len(st.History), alternationSteps)
		case st.Monologue < 0 || st.NoProgress < 0:
			return bad("stalls.%s has a negative count", r)
		}
	}
	return nil
}

// Restore is the memory of a run resumed from its snapshot, with the
// budgets and thresholds of o (which may differ from the crashed run's: a
// raised budget applies). Snapshot of the restored memory, at the same
// clock reading, equals s. ErrInvalid if s does not Validate or o does not.
func Restore(s Snapshot, o Options) (*Memory, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	m := New(s.Run, o)
	m.start = m.o.Clock().Add(-time.Duration(s.ElapsedNS))
	m.last = fromNS(s.LastNS)
	m.total = s.Total
	m.stack = slices.Clone(s.Path)
	m.edges = slices.Clone(s.Edges)
	m.window = timeList(s.WindowNS)
	m.detect = slices.Clone(s.Detections)
	m.warns = slices.Clone(s.Warnings)
	for _, f := range s.Flags {
		m.flags[f] = true
	}
	for r, rs := range s.Roles {
		m.roles[r] = &roleState{use: rs.Usage, pending: timeList(rs.PendingNS)}
	}
	for p, b := range s.Breakers {
		m.breakers[p] = &breaker{state: b.State, failures: b.Failures, opened: fromNS(b.OpenedNS), trial: fromNS(b.TrialNS), trips: b.Trips, outcomes: slices.Clone(b.Outcomes)}
	}
	for r, st := range s.Stalls {
		reads := map[string]bool{}
		for _, id := range st.Reads {
			reads[id] = true
		}
		m.stalls[r] = &stallState{history: slices.Clone(st.History), monologue: st.Monologue, noProgress: st.NoProgress, reads: reads}
	}
	return m, nil
}
