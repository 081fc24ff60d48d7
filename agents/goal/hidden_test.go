package goal_test

import (
	"strings"
	"testing"

	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/scripted"
	"github.com/lunad/lunad/agents/policy"
)

// TestSearchLeavesOutDeniedReads: with docs/goals.md's no-secrets rule, a
// model searching for a secret's text or a heading of a denied file gets
// nothing of them — text and symbol search alike, nor a count, the rule
// matching ignoring case — while the
// same words in a file it may read are found; read_artifact refuses the
// file.
func TestSearchLeavesOutDeniedReads(t *testing.T) {
	const secret = "sk-live-93c1d7"
	files := map[string]string{
		"config/secrets/prod.env":           "API_KEY=" + secret + "\n",
		"config/SECRETS-runbook/RUNBOOK.md": "# Rotating " + secret + "\n\nRotate the key.\n",
		"certs/server.pem":                  "-----BEGIN PRIVATE KEY-----\n" + secret + "\n",
		"notes.md":                          "# Rotating keys\n\nThe key is not " + strings.ToUpper(secret[:7]) + " anything.\n",
	}
	rec := &recording{Provider: scripted.FromEntries("search", []scripted.Entry{
		call("search", map[string]string{"query": secret, "kind": "text"}, false),
		call("search", map[string]string{"query": "sk-live", "kind": "text"}, false),
		call("search", map[string]string{"query": "Rotating", "kind": "symbol"}, false),
		call("read_artifact", map[string]string{"path": "config/secrets/prod.env"}, false),
		call("finish", map[string]string{"summary": "looked"}, false),
	})}
	e := newEnv(t, rec, llm.Config{Model: "scripted-1"}, envOptions{project: project{files: files}})
	p, err := policy.Parse("policy.toml", []byte(testPolicy+`
[[deny]]
name = "no-secrets"
paths = ["config/secrets", "config/Secrets-Runbook", "*.pem"]
reason = "secrets stay out of the model's context; use the fixtures in testdata"
`))
	if err != nil {
		t.Fatal(err)
	}
	e.policy.p = p
	info, _ := e.goal("find the key", nil)
	tr := e.trace(info)
	if len(tr) != 5 {
		t.Fatalf("%d steps", len(tr))
	}
	for i, s := range tr {
		out := strings.ReplaceAll(s.Observation.Output, `"`+secret+`"`, "the query") // the model's own words
		if strings.Contains(strings.ToLower(out), secret) || strings.Contains(out, "API_KEY") || strings.Contains(out, "PRIVATE") || strings.Contains(out, "RUNBOOK") {
			t.Errorf("step %d (%s) shows the secret: %s", i+1, s.Action, s.Observation.Output)
		}
	}
	if o := tr[0].Observation; o.Status != "ok" || !strings.Contains(o.Output, "no line of the workspace's files contains") {
		t.Errorf("search for the secret: %+v", o)
	}
	if o := tr[1].Observation; !strings.Contains(o.Output, "1 line in 1 file") || !strings.Contains(o.Output, "notes.md:3:") {
		t.Errorf("search for its prefix: %+v", o)
	}
	if o := tr[2].Observation; !strings.Contains(o.Output, "notes.md:1: heading Rotating keys") || strings.Contains(o.Output, "RUNBOOK") {
		t.Errorf("symbol search: %+v", o)
	}
	if o := tr[3].Observation; o.Status != "denied" || !strings.Contains(o.Output, "denied by rule no-secrets") {
		t.Errorf("read_artifact: %+v", o)
	}
}
