package memory

import (
	"encoding/json"
	"maps"
	"slices"
)

// Guards, as named in a Detection.
const (
	GuardBudget  = "budget"
	GuardGraph   = "graph"
	GuardBreaker = "breaker"
	GuardStall   = "stall"
)

// Detection is one time a guard fired: a spent budget, a refused transfer,
// a breaker trip, a stall.
type Detection struct {
	Guard   string `json:"guard"`
	Rule    string `json:"rule"`
	Role    string `json:"role,omitempty"`
	Subject string `json:"subject,omitempty"` // the provider, the target role or the tool
	Message string `json:"message"`
	AtNS    int64  `json:"at_ns"`
}

// Warning is a budget past WarnAt of its limit (recorded once per budget).
type Warning struct {
	Scope string `json:"scope"`
	Role  string `json:"role,omitempty"`
	Kind  string `json:"kind"`
	Used  int64  `json:"used"` // tokens, calls or nanoseconds
	Limit int64  `json:"limit"`
	AtNS  int64  `json:"at_ns"`
}

// BreakerSummary is one provider's breaker.
type BreakerSummary struct {
	Provider string `json:"provider"`
	State    string `json:"state"`
	Trips    int    `json:"trips"`
	Failures int    `json:"consecutive_failures"`
	Outcomes string `json:"outcomes"` // the last outcomes, oldest first: "+" success, "-" failure
}

// Summary is what a run consumed and what its guards saw: the run's last
// event. Its JSON is deterministic: maps are sorted by key, lists are in
// the order things happened or sorted by name.
type Summary struct {
	Run        string           `json:"run"`
	Usage      Usage            `json:"usage"`
	Roles      map[string]Usage `json:"roles"`
	Path       []string         `json:"path"`  // the roles in control, root first
	Edges      []Edge           `json:"edges"` // every transfer, in order
	Breakers   []BreakerSummary `json:"breakers"`
	Detections []Detection      `json:"detections"`
	Warnings   []Warning        `json:"warnings"`
}

// Summary is the run's summary now.
func (m *Memory) Summary() Summary {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := Summary{
		Run: m.run, Usage: m.total, Roles: map[string]Usage{},
		Path: slices.Clone(m.stack), Edges: slices.Clone(m.edges),
		Breakers: []BreakerSummary{}, Detections: slices.Clone(m.detect), Warnings: slices.Clone(m.warns),
	}
	now := m.o.Clock()
	s.Usage.Elapsed = now.Sub(m.start)
	for r, rs := range m.roles {
		s.Roles[r] = rs.use
	}
	for _, p := range slices.Sorted(maps.Keys(m.breakers)) {
		b := m.breakers[p]
		state := b.state
		if state == Open && now.Sub(b.opened) >= m.o.Breaker.Cooldown {
			state = HalfOpen
		}
		out := make([]byte, len(b.outcomes))
		for i, ok := range b.outcomes {
			out[i] = '-'
			if ok {
				out[i] = '+'
			}
		}
		s.Breakers = append(s.Breakers, BreakerSummary{Provider: p, State: state, Trips: b.trips, Failures: b.failures, Outcomes: string(out)})
	}
	if s.Path == nil {
		s.Path = []string{}
	}
	if s.Edges == nil {
		s.Edges = []Edge{}
	}
	if s.Detections == nil {
		s.Detections = []Detection{}
	}
	if s.Warnings == nil {
		s.Warnings = []Warning{}
	}
	return s
}

// JSON is the summary as indented JSON (deterministic).
func (s Summary) JSON() []byte {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil { // only strings, ints and maps of them
		panic(err)
	}
	return append(b, '\n')
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
