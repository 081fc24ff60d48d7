package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"unicode/utf8"

	"github.com/lunad/lunad"
)

// Rules of the stall detector.
const (
	RuleRepeat      = "repeat"       // the same action and observation 4 times in a row
	RuleRepeatError = "repeat_error" // the same failing action 3 times in a row
	RuleMonologue   = "monologue"    // 3 model turns in a row without a tool call
	RuleAlternation = "alternation"  // A-B-A-B-A-B: two steps alternating over 6 steps
	RuleNoProgress  = "no_progress"  // K steps without a successful write or a new read
)

// The thresholds of the rules (OpenHands' detector's).
const (
	repeatSteps      = 4
	repeatErrorSteps = 3
	monologueTurns   = 3
	alternationSteps = 6
)

// Step is one step of a worker: a tool call and its observation, or (Tool
// "") a model turn that called no tool.
type Step struct {
	Tool        string // "" for a turn without a tool call
	Args        string // the call's arguments, canonical (the same call gives the same text)
	Observation string // what the tool returned
	Failed      bool   // the tool returned an error
	Wrote       bool   // the step wrote (staged a change) successfully
	Read        string // what the step read ("ID@version"), "" if nothing
}

// StepDigest is a step as the detector compares it; texts are hashed so a
// snapshot stays small.
type StepDigest struct {
	Tool   string `json:"tool"`
	Args   string `json:"args"` // sha256 prefix
	Obs    string `json:"obs"`  // sha256 prefix
	Failed bool   `json:"failed,omitempty"`
}

type stallState struct {
	history    []StepDigest // the last alternationSteps tool steps
	monologue  int          // turns in a row without a tool call
	noProgress int          // steps since the last progress
	reads      map[string]bool
}

func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// Step records one step of role for the stall detector. Progress is a
// successful write or a successful read of something not read before. It
// returns a *StallError (ErrStall) naming the rule that fired and the step
// it fired on, or ErrInvalid for a step without a tool that claims a write
// or a read.
func (m *Memory) Step(role string, s Step) error {
	if s.Tool == "" && (s.Wrote || s.Read != "" || s.Failed) {
		return fmt.Errorf("%w: a model turn without a tool call cannot write, read or fail (step of %s)", lunad.ErrInvalid, role)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.o.Clock()
	m.last = now
	st := m.stalls[role]
	if st == nil {
		st = &stallState{reads: map[string]bool{}}
		m.stalls[role] = st
	}
	progress := false
	if !s.Failed && s.Tool != "" {
		if s.Read != "" && !st.reads[s.Read] {
			st.reads[s.Read] = true
			progress = true
		}
		progress = progress || s.Wrote
	}
	if progress {
		st.noProgress = 0
	} else {
		st.noProgress++
	}
	stall := func(rule string, count int, other string) error {
		e := &StallError{Run: m.run, Role: role, Rule: rule, Tool: s.Tool, Args: truncate(s.Args, 200), Count: count, Other: other}
		m.record(now, Detection{Guard: GuardStall, Rule: rule, Role: role, Subject: s.Tool, Message: e.Error()})
		return e
	}
	if s.Tool == "" {
		st.monologue++
		if st.monologue >= monologueTurns {
			return stall(RuleMonologue, st.monologue, "")
		}
	} else {
		st.monologue = 0
		k := StepDigest{Tool: s.Tool, Args: digest(s.Args), Obs: digest(s.Observation), Failed: s.Failed}
		st.history = append(st.history, k)
		if len(st.history) > alternationSteps {
			st.history = st.history[len(st.history)-alternationSteps:]
		}
		h := st.history
		if n := sameTail(h, func(a, b StepDigest) bool { return a.Failed && b.Failed && a.Tool == b.Tool && a.Args == b.Args }); n >= repeatErrorSteps {
			return stall(RuleRepeatError, n, "")
		}
		if n := sameTail(h, func(a, b StepDigest) bool { return a == b }); n >= repeatSteps {
			return stall(RuleRepeat, n, "")
		}
		if n := len(h); n >= alternationSteps && h[n-1] != h[n-2] {
			alt := true
			for i := n - alternationSteps; i < n-2; i++ {
				alt = alt && h[i] == h[i+2]
			}
			if alt {
				return stall(RuleAlternation, alternationSteps, h[n-2].Tool)
			}
		}
	}
	if k := m.o.Stall.NoProgressSteps; k > 0 && st.noProgress >= k {
		return stall(RuleNoProgress, st.noProgress, "")
	}
	return nil
}

// sameTail is how many steps at the end of h equal the last one by eq
// (the last one counts if it equals itself).
func sameTail(h []StepDigest, eq func(a, b StepDigest) bool) int {
	n := len(h)
	if n == 0 || !eq(h[n-1], h[n-1]) {
		return 0
	}
	c := 1
	for i := n - 2; i >= 0 && eq(h[i], h[n-1]); i-- {
		c++
	}
	return c
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
