package workspace_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/workspace"
	"github.com/lunad/lunad/workspace/refindex"
)

// lockedBuffer is a log destination the service's goroutines share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// processes opens the workspace at dir as successive processes do: each
// open is a new Service over the same repository, with a clock and IDs
// that go on from the last one's, logging to log.
type processes struct {
	t     *testing.T
	dir   string
	clock time.Time
	n     int
	log   *lockedBuffer
}

func newProcesses(t *testing.T) *processes {
	p := &processes{t: t, dir: t.TempDir(), clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), log: &lockedBuffer{}}
	s, _, err := workspace.Init(p.dir, p.options())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *processes) options() gitstore.Options {
	return gitstore.Options{
		Clock:  func() time.Time { p.clock = p.clock.Add(time.Second); return p.clock },
		NewID:  func() string { p.n++; return fmt.Sprintf("d%07d", p.n) },
		Human:  gitstore.Signature{Name: "Ada", Email: "ada@example.com"},
		Logger: slog.New(slog.NewTextHandler(p.log, nil)),
	}
}

// run opens the workspace, runs f and closes it, as one process.
func (p *processes) run(f func(s *workspace.Service)) {
	p.t.Helper()
	s, err := workspace.Open(p.dir, p.options())
	if err != nil {
		p.t.Fatal(err)
	}
	f(s)
	if err := s.Close(); err != nil {
		p.t.Fatal(err)
	}
}

// stale is one process's Stale answer as JSON (what `lunad stale --json`
// prints) and the evaluations it ran.
func (p *processes) stale() (answer string, evals int64) {
	p.t.Helper()
	p.run(func(s *workspace.Service) {
		refs, err := s.Stale(context.Background())
		if err != nil {
			p.t.Fatal(err)
		}
		b, err := json.Marshal(refs)
		if err != nil {
			p.t.Fatal(err)
		}
		answer, evals = string(b), s.StaleEvaluations()
	})
	return answer, evals
}

// fresh is the answer of a process with nothing saved: no stale answer,
// no parse cache.
func (p *processes) fresh() string {
	p.t.Helper()
	p.run(func(s *workspace.Service) {
		for _, f := range []string{s.StaleFile(), s.CacheFile()} {
			if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
				p.t.Fatal(err)
			}
		}
	})
	answer, _ := p.stale()
	return answer
}

// TestStaleSavedAcrossProcesses: a process answers Stale from the answer
// the last one saved when nothing was committed since, without evaluating;
// after edits — through lunad, and a `git rm` committed by hand — it
// evaluates again and answers what a process with nothing saved answers.
func TestStaleSavedAcrossProcesses(t *testing.T) {
	p := newProcesses(t)
	ctx := context.Background()
	var cfg string
	p.run(func(s *workspace.Service) {
		cfg = mustCreate(t, s, "config.py", src)
		mustCreate(t, s, "util.py", "def helper(x):\n    return x\n")
		mustCreate(t, s, "guide.md", "# Guide\n\nUse `parse_config`, and [the helper](util.py#helper).\n")
		mustEdit(t, s, cfg, "        return toml.load(f)\n", "        return toml.loads(f.read())\n")
	})
	first, evals := p.stale()
	if evals != 1 || !strings.Contains(first, `"state":"stale"`) {
		t.Fatalf("first process: %d evaluations, answer %s", evals, first)
	}

	t.Run("nothing committed since", func(t *testing.T) {
		got, evals := p.stale()
		if evals != 0 {
			t.Errorf("%d evaluations; want the saved answer", evals)
		}
		if got != first {
			t.Errorf("saved answer\n%s\nevaluated\n%s", got, first)
		}
	})

	t.Run("edited and removed with git since", func(t *testing.T) {
		p.run(func(s *workspace.Service) {
			mustEdit(t, s, cfg, "def main():\n", "def main(argv=None):\n")
		})
		wstest.GitRun(t, p.dir, "rm", "-q", "util.py")
		wstest.GitRun(t, p.dir, "commit", "-q", "-m", "drop util")
		got, evals := p.stale()
		if evals != 1 {
			t.Errorf("%d evaluations after the edits; want 1", evals)
		}
		if got == first || !strings.Contains(got, `"state":"broken"`) {
			t.Errorf("answer after removing util.py: %s", got)
		}
		if want := p.fresh(); got != want {
			t.Errorf("answer with the saved answer\n%s\nwith nothing saved\n%s", got, want)
		}
		if again, evals := p.stale(); evals != 0 || again != got {
			t.Errorf("the next process: %d evaluations, answer\n%s", evals, again)
		}
	})

	t.Run("another lunad", func(t *testing.T) {
		before, _ := p.stale()
		version := refindex.AnswerVersion
		refindex.AnswerVersion = func() string { return version() + "+other rules" }
		defer func() { refindex.AnswerVersion = version }()
		got, evals := p.stale()
		if evals != 1 || got != before {
			t.Errorf("with other resolution rules: %d evaluations; answer\n%s\nwant\n%s", evals, got, before)
		}
	})

	t.Run("the slug rule changed", func(t *testing.T) {
		before, _ := p.stale()
		p.run(func(s *workspace.Service) {
			if err := s.SetSlugRule(lunad.SlugsLoose); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Stale(ctx); err != nil {
				t.Fatal(err)
			}
			if s.StaleEvaluations() != 1 {
				t.Errorf("under the loose rule: %d evaluations, want 1", s.StaleEvaluations())
			}
		})
		if got, evals := p.stale(); evals != 1 || got != before {
			t.Errorf("back under the GitHub rule: %d evaluations, answer\n%s\nwant\n%s", evals, got, before)
		}
	})

	t.Run("damaged file", func(t *testing.T) {
		before, _ := p.stale()
		var file string
		p.run(func(s *workspace.Service) { file = s.StaleFile() })
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)/2] ^= 0x20
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		got, evals := p.stale()
		if evals != 1 || got != before {
			t.Errorf("over a damaged file: %d evaluations; answer\n%s\nwant\n%s", evals, got, before)
		}
		if !strings.Contains(p.log.String(), "saved stale answer ignored") {
			t.Errorf("no log line for the damaged file:\n%s", p.log.String())
		}
		if _, evals := p.stale(); evals != 0 {
			t.Errorf("the damaged file was not replaced: %d evaluations", evals)
		}
	})
}
