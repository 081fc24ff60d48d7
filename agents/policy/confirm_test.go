package policy

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestTerminalConfirmer(t *testing.T) {
	a := Action{Tool: ToolWriteFile, Paths: []string{"db/migrations/001.sql"}, Writes: true}
	d := Decision{Verdict: Confirm, Rule: "migrations", Reason: "schema changes need a person's review"}
	yes := func() bool { return true }
	for _, tc := range []struct {
		name     string
		input    string
		terminal func() bool
		want     bool
		prompted bool
	}{
		{"yes", "y\n", yes, true, true},
		{"yes-word", "  YES \n", yes, true, true},
		{"no", "n\n", yes, false, true},
		{"empty-line", "\n", yes, false, true},
		{"eof", "", yes, false, true},
		{"other", "sure\n", yes, false, true},
		{"long-line", strings.Repeat("y", 5000) + "\n", yes, false, true},
		{"not-a-terminal", "y\n", func() bool { return false }, false, false},
		{"no-terminal-func", "y\n", nil, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			in := strings.NewReader(tc.input)
			c := NewTerminalConfirmer(in, &out, tc.terminal)
			if got := c.Confirm(a, d); got != tc.want {
				t.Errorf("Confirm = %v; want %v", got, tc.want)
			}
			wantOut := ""
			if tc.prompted {
				wantOut = "lunad: needs confirmation by rule migrations: schema changes need a person's review\n" +
					"  write_file: db/migrations/001.sql (writes)\nAllow it? [y/N] "
			}
			if out.String() != wantOut {
				t.Errorf("prompt %q; want %q", out.String(), wantOut)
			}
			if !tc.prompted && in.Len() != len(tc.input) {
				t.Errorf("read %d bytes without a terminal", len(tc.input)-in.Len())
			}
		})
	}
}

// TestConfirmerReadsOneLine: a second question reads the next line; the
// first read nothing past its own.
func TestConfirmerReadsOneLine(t *testing.T) {
	in := strings.NewReader("y\nn\ny\n")
	c := NewTerminalConfirmer(in, io.Discard, func() bool { return true })
	a := Action{Tool: ToolRunCommand, Argv: []string{"make", "migrate"}}
	d := Decision{Verdict: Confirm, Rule: "r", Reason: "x"}
	var got []bool
	for range 3 {
		got = append(got, c.Confirm(a, d))
	}
	if got[0] != true || got[1] != false || got[2] != true {
		t.Errorf("answers %v; want [true false true]", got)
	}
}

// TestConfirmerEscapes: a model cannot write escape sequences to the
// person's terminal through an action's argv or paths.
func TestConfirmerEscapes(t *testing.T) {
	var out bytes.Buffer
	c := NewTerminalConfirmer(strings.NewReader("n\n"), &out, func() bool { return true })
	a := Action{Tool: ToolRunCommand, Argv: []string{"echo", "\x1b]0;pwned\x07", "a\nb"}, Dir: "src\x1b[2J"}
	c.Confirm(a, Decision{Verdict: Confirm, Rule: "r", Reason: "why\x1b[31m"})
	if s := out.String(); strings.ContainsAny(s, "\x1b\x07") || strings.Count(s, "\n") != 2 {
		t.Errorf("prompt %q holds control characters", s)
	}
}

type fixed bool

func (f fixed) Confirm(Action, Decision) bool { return bool(f) }

func TestAsk(t *testing.T) {
	a := Action{Tool: ToolRunCommand, Argv: []string{"make", "migrate"}}
	confirm := Decision{Verdict: Confirm, Rule: "migrations", Reason: "schema changes need review"}
	for _, tc := range []struct {
		name string
		c    Confirmer
		d    Decision
		want Decision
	}{
		{"confirmed", fixed(true), confirm, Decision{Verdict: Allow, Rule: "migrations", Reason: "confirmed by the user"}},
		{"refused", fixed(false), confirm, Decision{Verdict: Deny, Rule: "migrations",
			Reason: "schema changes need review; no one confirmed it (no terminal, or the answer was no)"}},
		{"no-confirmer", nil, confirm, Decision{Verdict: Deny, Rule: "migrations",
			Reason: "schema changes need review; no one confirmed it (no terminal, or the answer was no)"}},
		{"not-a-terminal", NewTerminalConfirmer(strings.NewReader("y\n"), io.Discard, nil), confirm, Decision{Verdict: Deny, Rule: "migrations",
			Reason: "schema changes need review; no one confirmed it (no terminal, or the answer was no)"}},
		{"deny-stays", fixed(true), Decision{Verdict: Deny, Rule: RuleGitPush, Reason: "x"}, Decision{Verdict: Deny, Rule: RuleGitPush, Reason: "x"}},
		{"allow-stays", fixed(false), Decision{Verdict: Allow}, Decision{Verdict: Allow}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Ask(tc.c, a, tc.d); got != tc.want {
				t.Errorf("Ask = %+v; want %+v", got, tc.want)
			}
		})
	}
}
