package workflow

import (
	"encoding/json"
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

// validWorkflows are the paper's shapes and a few more; the seeds of
// FuzzParse too.
var validWorkflows = map[string]string{
	"outcomes": `name = "outcomes"
start = "a"
[stages.a]
command = ["a"]
[[stages.a.next]]
to = "end"
when = "output.spent"
status = "budget_exhausted"
[[stages.a.next]]
to = "b"
when = "output.more"
[[stages.a.next]]
to = "end"
[stages.b]
command = ["b"]
next = [{ to = "end", status = "question" }]
`,
	"linear": `name = "linear"
version = "1"
start = "a"
[stages.a]
command = ["sh", "a.sh"]
[[stages.a.next]]
to = "b"
[stages.b]
command = ["sh", "b.sh"]
timeout = "30s"
[[stages.b.next]]
to = "c"
[stages.c]
agent = "writer"
retry = { max_attempts = 3, initial = "10ms", max = "1s" }
[[stages.c.next]]
to = "end"
`,
	"conditional": `name = "conditional"
version = "2"
start = "a"
[stages.a]
command = ["a"]
[[stages.a.next]]
to = "b"
when = "output.score >= 0.8"
[[stages.a.next]]
to = "c"
[stages.b]
command = ["b"]
next = [{ to = "d" }]
[stages.c]
command = ["c"]
next = [{ to = "d", when = "outputs.a.kind == 'draft'" }, { to = "end" }]
[stages.d]
command = ["d"]
params = { tone = "plain" }
[[stages.d.next]]
to = "end"
`,
	"loop": `name = "loop"
start = "write"
[stages.write]
agent = "writer"
[[stages.write.next]]
to = "review"
[stages.review]
agent = "reviewer"
[stages.review.retry]
max_attempts = 2
[[stages.review.next]]
to = "end"
when = "output.approved || run.attempt > 3 || 'mode' in run.params && run.params.mode == 'draft'"
[[stages.review.next]]
to = "write"
`,
}

func mustParse(t testing.TB, name string) *Workflow {
	t.Helper()
	w, err := Parse(name+".toml", []byte(validWorkflows[name]))
	if err != nil {
		t.Fatalf("Parse %s:\n%v", name, err)
	}
	return w
}

func TestParseValid(t *testing.T) {
	cases := []struct {
		name    string
		start   string
		order   []string
		version string
		stage   string // a stage to look at closely
		want    Stage
	}{
		{name: "linear", start: "a", order: []string{"a", "b", "c"}, version: "1", stage: "c",
			want: Stage{Name: "c", Agent: "writer", Timeout: DefaultTimeout,
				Retry: Retry{MaxAttempts: 3, Initial: 10 * time.Millisecond, Max: time.Second},
				Next:  []Transition{{To: End}}}},
		{name: "linear", start: "a", order: []string{"a", "b", "c"}, version: "1", stage: "b",
			want: Stage{Name: "b", Command: []string{"sh", "b.sh"}, Timeout: 30 * time.Second,
				Retry: Retry{MaxAttempts: 1, Initial: 100 * time.Millisecond, Max: 5 * time.Second},
				Next:  []Transition{{To: "c"}}}},
		{name: "conditional", start: "a", order: []string{"a", "b", "c", "d"}, version: "2", stage: "d",
			want: Stage{Name: "d", Command: []string{"d"}, Params: map[string]string{"tone": "plain"}, Timeout: DefaultTimeout,
				Retry: Retry{MaxAttempts: DefaultMaxAttempts, Initial: DefaultInitial, Max: DefaultMax},
				Next:  []Transition{{To: End}}}},
		{name: "loop", start: "write", order: []string{"write", "review"}, stage: "review",
			want: Stage{Name: "review", Agent: "reviewer", Timeout: DefaultTimeout,
				Retry: Retry{MaxAttempts: 2, Initial: DefaultInitial, Max: DefaultMax},
				Next: []Transition{{To: End, When: "output.approved || run.attempt > 3 || 'mode' in run.params && run.params.mode == 'draft'"},
					{To: "write"}}}},
	}
	for _, c := range cases {
		t.Run(c.name+"/"+c.stage, func(t *testing.T) {
			w := mustParse(t, c.name)
			if w.Name != c.name || w.Start != c.start || w.Version != c.version || w.File != c.name+".toml" {
				t.Errorf("got name %q start %q version %q file %q", w.Name, w.Start, w.Version, w.File)
			}
			if !reflect.DeepEqual(w.Order, c.order) || len(w.Stages) != len(c.order) {
				t.Errorf("order %v (%d stages), want %v", w.Order, len(w.Stages), c.order)
			}
			got := *w.Stages[c.stage]
			for i := range got.Next {
				if (got.Next[i].prog != nil) != (got.Next[i].When != "") {
					t.Errorf("transition %d: compiled %v, when %q", i, got.Next[i].prog != nil, got.Next[i].When)
				}
				got.Next[i].prog = nil
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("stage %s:\n got %+v\nwant %+v", c.stage, got, c.want)
			}
			if want := BlobHash([]byte(validWorkflows[c.name])); w.Blob != want {
				t.Errorf("blob %s, want %s", w.Blob, want)
			}
		})
	}
}

func TestNext(t *testing.T) {
	cases := []struct {
		name     string
		workflow string
		stage    string
		env      Env
		want     string
	}{
		{"linear a", "linear", "a", Env{}, "b"},
		{"linear c ends", "linear", "c", Env{Output: json.RawMessage(`{"x": 1}`)}, End},
		{"high score", "conditional", "a", Env{Output: json.RawMessage(`{"score": 0.9}`)}, "b"},
		{"score exactly at the bound, an int", "conditional", "a", Env{Output: json.RawMessage(`{"score": 1}`)}, "b"},
		{"low score takes the default", "conditional", "a", Env{Output: json.RawMessage(`{"score": 0.5}`)}, "c"},
		{"inline next", "conditional", "b", Env{}, "d"},
		{"outputs of an earlier stage", "conditional", "c",
			Env{Outputs: map[string]json.RawMessage{"a": json.RawMessage(`{"kind": "draft"}`)}}, "d"},
		{"outputs fall to the default", "conditional", "c",
			Env{Outputs: map[string]json.RawMessage{"a": json.RawMessage(`{"kind": "final"}`)}}, End},
		{"loop goes round", "loop", "review", Env{Output: json.RawMessage(`{"approved": false}`), Run: RunVars{Attempt: 1}}, "write"},
		{"loop exits when approved", "loop", "review", Env{Output: json.RawMessage(`{"approved": true}`)}, End},
		{"loop exits after attempts", "loop", "review", Env{Output: json.RawMessage(`{"approved": false}`), Run: RunVars{Attempt: 4}}, End},
		{"loop exits on a param", "loop", "review",
			Env{Output: json.RawMessage(`{"approved": false}`), Run: RunVars{Params: map[string]string{"mode": "draft"}}}, End},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := mustParse(t, c.workflow)
			got, err := w.Next(c.stage, c.env)
			if err != nil || got != c.want {
				t.Fatalf("Next(%s) = %q, %v; want %q", c.stage, got, err, c.want)
			}
		})
	}
}

// TestChooseStatus: the transition chosen carries its end outcome.
func TestChooseStatus(t *testing.T) {
	w := mustParse(t, "outcomes")
	for _, c := range []struct {
		name, stage, output, to, status string
	}{
		{"an outcome", "a", `{"spent": true, "more": true}`, End, "budget_exhausted"},
		{"another stage", "a", `{"spent": false, "more": true}`, "b", ""},
		{"the default end has none", "a", `{"spent": false, "more": false}`, End, ""},
		{"an inline transition's outcome", "b", `{}`, End, "question"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, err := w.Choose(c.stage, Env{Output: json.RawMessage(c.output)})
			if err != nil || tr.To != c.to || tr.Status != c.status {
				t.Fatalf("Choose(%s) = %q %q, %v; want %q %q", c.stage, tr.To, tr.Status, err, c.to, c.status)
			}
		})
	}
}

func TestNextErrors(t *testing.T) {
	const header = "name = \"x\"\nstart = \"a\"\n[stages.a]\ncommand = [\"a\"]\n"
	big := `{"items": [` + strings.Repeat(`1,`, 2000) + `1]}`
	cases := []struct {
		name   string
		next   string // the transitions of stage a
		output string
		expr   string // the Expr of the EvalError
		want   string // in the error's text
	}{
		{"missing key", "[[stages.a.next]]\nto = \"end\"\nwhen = \"output.score > 1\"\n", `{"other": 1}`,
			"output.score > 1", "no such key: score"},
		{"missing stage output", "[[stages.a.next]]\nto = \"end\"\nwhen = \"outputs.z.ok\"\n", `{}`,
			"outputs.z.ok", "no such key: z"},
		{"not a bool at run time", "[[stages.a.next]]\nto = \"end\"\nwhen = \"output.verdict\"\n", `{"verdict": "yes"}`,
			"output.verdict", `the result is string yes, not a bool`},
		{"no such overload", "[[stages.a.next]]\nto = \"end\"\nwhen = \"output.n > 'a'\"\n", `{"n": 1}`,
			"output.n > 'a'", "no such overload"},
		{"cost limit", "[[stages.a.next]]\nto = \"end\"\nwhen = \"output.items.all(x, output.items.all(y, x == y))\"\n", big,
			"output.items.all(x, output.items.all(y, x == y))", "cost limit exceeded"},
		{"no branch true and no default", "[[stages.a.next]]\nto = \"end\"\nwhen = \"output.done\"\n", `{"done": false}`,
			"", "no transition applies"},
		{"output not JSON", "[[stages.a.next]]\nto = \"end\"\n", `{"done": `,
			"", "the output is not JSON"},
		{"output not an object", "[[stages.a.next]]\nto = \"end\"\n", `[1, 2]`,
			"", "the output is not a JSON object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, err := Parse("x.toml", []byte(header+c.next))
			if err != nil {
				t.Fatal(err)
			}
			to, err := w.Next("a", Env{Output: json.RawMessage(c.output), Run: RunVars{ID: "r1", Workflow: "x"}})
			var ee *EvalError
			if !errors.As(err, &ee) {
				t.Fatalf("Next = %q, %v; want an *EvalError", to, err)
			}
			if !errors.Is(err, lunad.ErrInvalid) {
				t.Errorf("%v does not wrap ErrInvalid", err)
			}
			if ee.Stage != "a" || ee.Expr != c.expr || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got stage %q expr %q error %q; want expr %q and %q in it", ee.Stage, ee.Expr, err, c.expr, c.want)
			}
			if len(ee.Inputs) > maxInputs+len("…") || !strings.Contains(ee.Inputs, `"run":{`) && len(ee.Inputs) < maxInputs {
				t.Errorf("inputs (%d bytes): %s", len(ee.Inputs), ee.Inputs)
			}
			if !strings.HasPrefix(ee.Inputs, `{"output":`) {
				t.Errorf("inputs do not start with the output: %.80s", ee.Inputs)
			}
		})
	}
	t.Run("no branch wraps ErrNoTransition", func(t *testing.T) {
		w, _ := Parse("x.toml", []byte(header+"[[stages.a.next]]\nto = \"end\"\nwhen = \"false\"\n"))
		if _, err := w.Next("a", Env{}); !errors.Is(err, ErrNoTransition) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("unknown stage", func(t *testing.T) {
		w := mustParse(t, "linear")
		if _, err := w.Next("zzz", Env{}); !errors.Is(err, lunad.ErrNotFound) {
			t.Errorf("got %v, want ErrNotFound", err)
		}
	})
}

// TestNextDeterministic: a map iterates in key order in CEL, every time.
func TestNextDeterministic(t *testing.T) {
	src := "name = \"x\"\nstart = \"a\"\n[stages.a]\ncommand = [\"a\"]\n[[stages.a.next]]\nto = \"end\"\n" +
		"when = \"output.m.map(k, k) == ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'] && output.l[0].map(k, k)[0] == 'x'\"\n"
	w, err := Parse("x.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	env := Env{Output: json.RawMessage(`{"m": {"h":1,"g":1,"f":1,"e":1,"d":1,"c":1,"b":1,"a":1}, "l": [{"z": 1, "y": 2, "x": 3}]}`)}
	for i := range 50 {
		if to, err := w.Next("a", env); to != End || err != nil {
			t.Fatalf("evaluation %d: %q, %v", i, to, err)
		}
	}
}

func TestBlobHash(t *testing.T) {
	cases := []struct{ name, data, want string }{
		{"empty", "", "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"},
		{"hello", "hello\n", "ce013625030ba8dba906f756967f9e9ca394464a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := BlobHash([]byte(c.data)); got != c.want {
				t.Errorf("BlobHash = %s, want %s", got, c.want)
			}
		})
	}
	t.Run("same as git", func(t *testing.T) {
		data := validWorkflows["conditional"]
		cmd := exec.Command("git", "hash-object", "--stdin")
		cmd.Stdin = strings.NewReader(data)
		out, err := cmd.Output()
		if err != nil {
			t.Skipf("git: %v", err)
		}
		if got, want := BlobHash([]byte(data)), strings.TrimSpace(string(out)); got != want {
			t.Errorf("BlobHash = %s, git says %s", got, want)
		}
	})
}

func TestVersionID(t *testing.T) {
	blob := BlobHash([]byte(validWorkflows["linear"]))
	if got := mustParse(t, "linear").VersionID(); got != "1@"+blob {
		t.Errorf("VersionID = %q, want 1@%s", got, blob)
	}
	loop := mustParse(t, "loop") // no version field
	if got := loop.VersionID(); got != BlobHash([]byte(validWorkflows["loop"])) {
		t.Errorf("VersionID without version = %q", got)
	}
}

func TestRetryDelay(t *testing.T) {
	r := Retry{MaxAttempts: 10, Initial: 100 * time.Millisecond, Max: time.Second}
	cases := []struct {
		name    string
		attempt int
		u       float64
		want    time.Duration
	}{
		{"first, top of the range", 1, 0.999999999, 100 * time.Millisecond},
		{"first, half", 1, 0.5, 50 * time.Millisecond},
		{"second doubles", 2, 0.5, 100 * time.Millisecond},
		{"capped at max", 5, 0.5, 500 * time.Millisecond},
		{"huge attempt does not overflow", 200, 0.5, 500 * time.Millisecond},
		{"zero draw", 3, 0, 0},
		{"bad draw is 0", 3, 1.5, 0},
		{"attempt 0 is the first", 0, 0.5, 50 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := r.Delay(c.attempt, c.u)
			if d := got - c.want; d < -time.Microsecond || d > time.Microsecond {
				t.Errorf("Delay(%d, %v) = %v, want %v", c.attempt, c.u, got, c.want)
			}
		})
	}
}

// TestIsolated: `isolated = true` marks the workflow's runs as isolated;
// absent or false leaves them on the current branch.
func TestIsolated(t *testing.T) {
	const body = "start = \"a\"\n[stages.a]\ncommand = [\"true\"]\n[[stages.a.next]]\nto = \"end\"\n"
	for _, c := range []struct {
		name, key string
		want      bool
	}{
		{"absent", "", false},
		{"true", "isolated = true\n", true},
		{"false", "isolated = false\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, err := Parse("w.toml", []byte("name = \"w\"\n"+c.key+body))
			if err != nil {
				t.Fatal(err)
			}
			if w.Isolated != c.want {
				t.Fatalf("Isolated = %v, want %v", w.Isolated, c.want)
			}
		})
	}
}

// TestSandboxKey: a stage's `sandbox = false` lets `lunad worker` run its
// command unsandboxed; absent or true keeps the sandbox; anything but a
// boolean on a command stage is a problem.
func TestSandboxKey(t *testing.T) {
	for _, c := range []struct {
		name, stage string
		want        bool
		problem     string
	}{
		{"absent", "command = [\"true\"]\n", false, ""},
		{"true", "command = [\"true\"]\nsandbox = true\n", false, ""},
		{"false", "command = [\"true\"]\nsandbox = false\n", true, ""},
		{"quoted", "command = [\"true\"]\nsandbox = \"false\"\n", false, "sandbox must be true or false"},
		{"on a built-in agent", "agent = \"writer\"\nsandbox = false\n", false, "sandbox applies to a stage's command"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, err := Parse("w.toml", []byte("name = \"w\"\nstart = \"a\"\n[stages.a]\n"+c.stage+"[[stages.a.next]]\nto = \"end\"\n"))
			if c.problem != "" {
				if err == nil || !strings.Contains(err.Error(), c.problem) {
					t.Fatalf("error %v, want %q", err, c.problem)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w.Stages["a"].Unsandboxed != c.want {
				t.Fatalf("Unsandboxed = %v, want %v", w.Stages["a"].Unsandboxed, c.want)
			}
		})
	}
}
