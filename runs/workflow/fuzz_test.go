package workflow

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// FuzzParse: Parse never panics; it returns a workflow whose every
// transition leads somewhere, or a *lunad.CheckError wrapping ErrInvalid whose
// problems lie inside the file. Next on a parsed workflow never panics.
func FuzzParse(f *testing.F) {
	for _, src := range validWorkflows {
		f.Add([]byte(src))
	}
	for _, ar := range checkCases(f) {
		_, data := input(ar)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := Parse("f.toml", data)
		if err != nil {
			var ce *lunad.CheckError
			if !errors.As(err, &ce) || !errors.Is(err, lunad.ErrInvalid) || len(ce.Problems) == 0 {
				t.Fatalf("Parse error %T %v: want a *lunad.CheckError wrapping ErrInvalid", err, err)
			}
			lines := strings.Count(string(data), "\n") + 1
			for _, p := range ce.Problems {
				if p.Line < 1 || p.Line > lines || p.Col < 1 || p.File != "f.toml" || strings.ContainsAny(p.Msg, "\r\n") {
					t.Fatalf("bad problem %+v in a file of %d lines", p, lines)
				}
			}
			return
		}
		if _, ok := w.Stages[w.Start]; !ok || len(w.Order) != len(w.Stages) {
			t.Fatalf("start %q, order %v, %d stages", w.Start, w.Order, len(w.Stages))
		}
		env := Env{Output: json.RawMessage(`{"score": 0.5, "ok": true}`)}
		for _, name := range w.Order {
			for _, tr := range w.Stages[name].Next {
				if _, ok := w.Stages[tr.To]; !ok && tr.To != End {
					t.Fatalf("stage %s: transition to unknown %q", name, tr.To)
				}
				if tr.Status != "" && (tr.To != End || lunad.RunStatus(tr.Status) == lunad.RunCompleted || !lunad.RunStatus(tr.Status).Ended()) {
					t.Fatalf("stage %s: transition to %q with status %q", name, tr.To, tr.Status)
				}
			}
			to, err := w.Next(name, env)
			var ee *EvalError
			if err != nil && !errors.As(err, &ee) {
				t.Fatalf("Next(%s): %T %v", name, err, err)
			}
			if err == nil && w.Stages[to] == nil && to != End {
				t.Fatalf("Next(%s) = unknown %q", name, to)
			}
		}
	})
}
