package policy

import (
	"slices"
	"testing"
)

const readRules = denySecrets + `
[[deny]]
name = "keys-by-command"
paths = ["keys"]
tools = ["run_command"]
reason = "keys stay private"

[[deny]]
name = "no-edit-vendor"
paths = ["vendor"]
writes = true
reason = "vendored code is not edited"

[[deny]]
name = "no-deploy-dir"
program = "make"
paths = ["deploy"]
reason = "no deploys"

[[confirm]]
name = "ask-for-logs"
paths = ["logs/**"]
reason = "logs hold user data"
`

// TestDeniedReads: the patterns of the deny rules that forbid reading,
// and only those — not a write rule, not a program rule.
func TestDeniedReads(t *testing.T) {
	p := mustParse(t, readRules, "")
	if got, want := p.DeniedReads(), []string{"config/secrets", "*.pem", "keys"}; !slices.Equal(got, want) {
		t.Errorf("DeniedReads() = %q; want %q", got, want)
	}
	if got := Default().DeniedReads(); got != nil {
		t.Errorf("Default().DeniedReads() = %q", got)
	}
	for rel, want := range map[string]bool{
		"config/secrets/prod.env": true, "CONFIG/Secrets": true, "a/b/server.pem": true, "keys/id": true,
		"config/other": false, "vendor/x.go": false, "deploy/x": false, "logs/today": false,
	} {
		if got := p.ReadDenied(rel); got != want {
			t.Errorf("ReadDenied(%q) = %v; want %v", rel, got, want)
		}
	}
}

// TestCheckRead: what search, listings and contexts may show.
func TestCheckRead(t *testing.T) {
	p := mustParse(t, readRules, "")
	for _, tc := range []struct {
		rel  string
		want Verdict
		rule string
	}{
		{"config/secrets/prod.env", Deny, "no-secrets"},
		{"Config/Secrets/prod.env", Deny, "no-secrets"},
		{"docs/../config/secrets/x", Deny, "no-secrets"},
		{"certs/x.PEM", Deny, "no-secrets"},
		{"logs/today.txt", Confirm, "ask-for-logs"},
		{"keys/id", Allow, ""}, // a rule for commands only: the sandbox hides it from them
		{"vendor/x.go", Allow, ""},
		{"src/main.go", Allow, ""},
		{"../outside", Deny, RuleOutside},
		{"/etc/passwd", Deny, RuleOutside},
		{"", Deny, RuleBadPath},
	} {
		t.Run(tc.rel, func(t *testing.T) {
			if d := p.CheckRead(tc.rel); d.Verdict != tc.want || d.Rule != tc.rule {
				t.Errorf("CheckRead(%q) = %s", tc.rel, d.Message())
			}
		})
	}
}
