package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// options are a run's budgets and thresholds in these tests.
func options(clk *fakeClock) Options {
	return Options{
		Clock:     clk.Now,
		Budget:    Budget{Tokens: 10000, Calls: 20, Time: 10 * time.Minute},
		PerWorker: map[string]Budget{"writer": {Tokens: 2000, Calls: 6}},
		Breaker:   BreakerOptions{Failures: 2, Cooldown: time.Minute, Fallback: map[string]string{"openai": "ollama"}},
		Stall:     StallOptions{NoProgressSteps: 8},
	}
}

// scenario is a run mid-way: routed, handed off, a breaker open, a stall
// history, a warning and a detection of each guard.
func scenario(t testing.TB, clk *fakeClock) *Memory {
	t.Helper()
	m := New("run-7", options(clk))
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(m.Before("supervisor", "openai"))
	clk.Advance(2 * time.Second)
	m.After("supervisor", "openai", 900, 120, nil)
	must(m.Enter("supervisor", "coder", "create: a TOML parser"))
	for i := range 2 {
		must(m.Before("coder", "openai"))
		clk.Advance(time.Second)
		m.After("coder", "openai", 10*i, 0, errDown)
	}
	var bo *BreakerOpenError
	if !errors.As(m.Before("coder", "openai"), &bo) || bo.Fallback != "ollama" {
		t.Fatal("the breaker did not open")
	}
	must(m.Before("coder", "ollama"))
	clk.Advance(3 * time.Second)
	m.After("coder", "ollama", 1500, 400, nil)
	must(m.Step("coder", Step{Tool: "read_artifact", Args: `{"id":"c1"}`, Observation: "def parse", Read: "c1@v1"}))
	must(m.Step("coder", Step{Tool: "edit_artifact", Args: `{"id":"c1"}`, Observation: "ok", Wrote: true}))
	must(m.Enter("coder", "writer", "explain it"))
	for range 3 {
		must(m.Before("writer", "ollama"))
		clk.Advance(4 * time.Second)
		m.After("writer", "ollama", 500, 100, nil) // the 3rd passes 80% of the writer's tokens
	}
	must(m.Step("writer", Step{Tool: "list_artifacts", Args: `{}`, Observation: "c1 code"}))
	must(m.Step("writer", Step{}))
	must(m.Step("writer", Step{Tool: "list_artifacts", Args: `{}`, Observation: "c1 code"}))
	must(m.Step("writer", Step{Tool: "list_artifacts", Args: `{}`, Observation: "c1 code"}))
	if err := m.Enter("writer", "writer", "again"); !errors.Is(err, ErrLoop) {
		t.Fatalf("self handoff: %v", err)
	}
	must(m.Before("writer", "ollama")) // in flight at the snapshot
	clk.Advance(time.Second)
	return m
}

func TestSnapshotRoundTrip(t *testing.T) {
	clk := newClock()
	m := scenario(t, clk)
	snap := m.Snapshot()
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Restore(dec, options(clk))
	if err != nil {
		t.Fatal(err)
	}
	again := r.Snapshot()
	if !reflect.DeepEqual(snap, again) {
		t.Errorf("snapshot changed by the round trip\n got %+v\nwant %+v", again, snap)
	}
	b2, _ := json.Marshal(again)
	if !bytes.Equal(b, b2) {
		t.Errorf("snapshot JSON changed by the round trip\n got %s\nwant %s", b2, b)
	}
	if got, want := r.Summary().JSON(), m.Summary().JSON(); !bytes.Equal(got, want) {
		t.Errorf("summary changed by the round trip\n got %s\nwant %s", got, want)
	}
}

// TestRestoredEnforces: a memory restored after a crash goes on guarding
// where the crashed one stopped.
func TestRestoredEnforces(t *testing.T) {
	restore := func(t *testing.T) (*Memory, *fakeClock) {
		clk := newClock()
		m := scenario(t, clk)
		b, _ := json.Marshal(m.Snapshot())
		s, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Restore(s, options(clk))
		if err != nil {
			t.Fatal(err)
		}
		return r, clk
	}
	cases := []struct {
		name  string
		check func(t *testing.T, r *Memory, clk *fakeClock)
	}{
		{"the worker's call budget", func(t *testing.T, r *Memory, clk *fakeClock) {
			r.After("writer", "ollama", 10, 10, nil) // the call in flight at the crash
			for i := 5; i <= 6; i++ {
				if err := r.Before("writer", "ollama"); err != nil {
					t.Fatalf("the writer's call %d: %v", i, err)
				}
				r.After("writer", "ollama", 1, 1, nil)
			}
			var be *BudgetError
			if err := r.Before("writer", "ollama"); !errors.As(err, &be) || be.Kind != KindCalls || be.Scope != ScopeWorker || be.Used.Calls != 6 {
				t.Errorf("the writer's 7th call = %v, want its calls budget spent at 6", err)
			}
		}},
		{"the run's time", func(t *testing.T, r *Memory, clk *fakeClock) {
			if e := r.Usage().Elapsed; e != 20*time.Second {
				t.Fatalf("the restored run has run %s, want the 20s before the crash", e)
			}
			clk.Advance(10*time.Minute - 20*time.Second - time.Nanosecond)
			if err := r.Before("writer", "ollama"); err != nil {
				t.Fatalf("Before just under 10m of the run: %v", err)
			}
			clk.Advance(time.Nanosecond)
			var be *BudgetError
			if err := r.Before("writer", "ollama"); !errors.As(err, &be) || be.Kind != KindTime {
				t.Errorf("Before at 10m of the run = %v, want its time spent", err)
			}
		}},
		{"the open breaker", func(t *testing.T, r *Memory, clk *fakeClock) {
			if err := r.Before("coder", "openai"); !errors.Is(err, ErrBreakerOpen) {
				t.Errorf("Before(openai) = %v, want its breaker still open", err)
			}
			clk.Advance(time.Minute)
			if err := r.Before("coder", "openai"); err != nil {
				t.Errorf("after the cooldown, the trial: %v", err)
			}
		}},
		{"the stall history", func(t *testing.T, r *Memory, clk *fakeClock) {
			err := r.Step("writer", Step{Tool: "list_artifacts", Args: `{}`, Observation: "c1 code"})
			var se *StallError
			if !errors.As(err, &se) || se.Rule != RuleRepeat {
				t.Errorf("a 4th identical list after the crash = %v, want a repeat stall", err)
			}
		}},
		{"the reads already made", func(t *testing.T, r *Memory, clk *fakeClock) {
			for i := range 4 { // re-reading c1 is no progress: the 8th step stalls
				if err := r.Step("coder", Step{Tool: "read_artifact", Args: `{"id":"c1"}`, Observation: "def parse " + string(rune('a'+i)), Read: "c1@v1"}); err != nil {
					t.Fatal(err)
				}
				if err := r.Step("coder", Step{Tool: "list_artifacts", Args: `{}`, Observation: string(rune('a' + i))}); err != nil && i < 3 {
					t.Fatal(err)
				} else if i == 3 && !errors.Is(err, ErrStall) {
					t.Errorf("8 steps without progress = %v, want a stall", err)
				}
			}
		}},
		{"the call graph", func(t *testing.T, r *Memory, clk *fakeClock) {
			if err := r.Enter("writer", "coder", "fix the code"); err != nil {
				t.Fatal(err)
			}
			if err := r.Enter("coder", "writer", "explain again"); !errors.Is(err, ErrLoop) {
				t.Errorf("coder → writer → coder → writer = %v, want a loop", err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, clk := restore(t)
			c.check(t, r, clk)
		})
	}
}

func TestDecodeInvalid(t *testing.T) {
	clk := newClock()
	good, _ := json.Marshal(scenario(t, clk).Snapshot())
	edit := func(f func(s *Snapshot)) string {
		var s Snapshot
		if err := json.Unmarshal(good, &s); err != nil {
			t.Fatal(err)
		}
		f(&s)
		b, _ := json.Marshal(s)
		return string(b)
	}
	cases := []struct {
		name, in, want string
	}{
		{"not JSON", "{", "does not decode"},
		{"trailing data", string(good) + "{}", "data after its JSON object"},
		{"unknown field", `{"version":1,"run":"r","budget":1}`, `unknown field "budget"`},
		{"version", edit(func(s *Snapshot) { s.Version = 2 }), "version 2, this lunad reads version 1"},
		{"no run", edit(func(s *Snapshot) { s.Run = "" }), "no run ID"},
		{"negative tokens", edit(func(s *Snapshot) { s.Total.Tokens = -1 }), "total has a negative count"},
		{"breaker state", edit(func(s *Snapshot) { b := s.Breakers["openai"]; b.State = "ajar"; s.Breakers["openai"] = b }), `breakers.openai.state "ajar"`},
		{"too many outcomes", edit(func(s *Snapshot) { b := s.Breakers["openai"]; b.Outcomes = make([]bool, 11); s.Breakers["openai"] = b }), "keeps 11 outcomes"},
		{"too much history", edit(func(s *Snapshot) {
			st := s.Stalls["writer"]
			st.History = make([]StepDigest, 7)
			s.Stalls["writer"] = st
		}), "stalls.writer keeps 7 steps"},
		{"unnamed role", edit(func(s *Snapshot) { s.Path = append(s.Path, "") }), "path has a role without a name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode([]byte(c.in))
			if !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Decode = %v, want ErrInvalid saying %q", err, c.want)
			}
		})
	}
	if _, err := Restore(Snapshot{Version: 1, Run: "r"}, Options{Budget: Budget{Calls: -1}}); !errors.Is(err, lunad.ErrInvalid) {
		t.Errorf("Restore with a negative budget = %v, want ErrInvalid", err)
	}
}

func FuzzDecode(f *testing.F) {
	good, _ := json.Marshal(scenario(f, newClock()).Snapshot())
	f.Add(good)
	f.Add([]byte(`{"version":1,"run":"r"}`))
	f.Add([]byte(`{"version":1,"run":"r","breakers":{"p":{"state":"half_open","trial_ns":-5}},"path":["a","b","a"],"window_ns":[9,1]}`))
	f.Add([]byte(`{"version":1,"run":"r","roles":{"w":{"usage":{"tokens":9223372036854775807},"pending_ns":[1]}}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Decode(b)
		if err != nil {
			if !errors.Is(err, lunad.ErrInvalid) {
				t.Fatalf("Decode error %v is not ErrInvalid", err)
			}
			return
		}
		clk := newClock()
		m, err := Restore(s, options(clk))
		if err != nil {
			t.Fatalf("a decoded snapshot does not restore: %v", err)
		}
		// A restored memory works whatever the snapshot held.
		_ = m.Before("writer", "openai")
		m.After("writer", "openai", 1, 1, errDown)
		_ = m.Step("writer", Step{Tool: "t", Args: "{}"})
		if p := m.Path(); len(p) > 0 {
			_ = m.Enter(p[len(p)-1], "x", "")
		}
		_ = m.WindowCalls()
		_ = m.Summary().JSON()
		if _, err := json.Marshal(m.Snapshot()); err != nil {
			t.Fatal(err)
		}
	})
}

func TestSummaryGolden(t *testing.T) {
	clk := newClock()
	got := scenario(t, clk).Summary().JSON()
	path := filepath.Join("testdata", "summary.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("summary differs from %s (go test -update rewrites it)\n got:\n%s\nwant:\n%s", path, got, want)
	}
	if again := scenario(t, newClock()).Summary().JSON(); !bytes.Equal(got, again) {
		t.Error("the same run gave two summaries")
	}
}
