package supervisor

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/guard"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/agents/tools"
)

// Role is the supervisor's role name in the working memory and the call
// graph.
const Role = "supervisor"

//go:embed prompts/supervisor.md
var promptFile string

// Prompt is the supervisor's system prompt and its name@version.
func Prompt() (id, text string) {
	first, rest, _ := strings.Cut(promptFile, "\n")
	return strings.TrimSpace(first), strings.TrimSpace(rest) + "\n"
}

// Schema is the JSON schema of the route (the structured output "route").
const Schema = `{"type":"object","properties":{` +
	`"intent":{"type":"string","enum":["create","edit","answer","review"]},` +
	`"worker":{"type":"string","enum":["coder","writer","reviewer"]},` +
	`"target":{"type":["string","null"]},` +
	`"new_artifact":{"type":["object","null"],"properties":{"title":{"type":"string"},"type":{"type":"string"},"path":{"type":"string"}},"required":["title","type","path"],"additionalProperties":false},` +
	`"read_deps":{"type":"array","items":{"type":"string"}},` +
	`"reason":{"type":"string"},` +
	`"question":{"type":["string","null"]}},` +
	`"required":["intent","worker","target","new_artifact","read_deps","reason","question"],"additionalProperties":false}`

// Input is what the supervisor decides on.
type Input struct {
	Request string
	// Active is the active artifact's ID ("" none).
	Active string
	// Artifacts are the workspace's artifacts (metadata only is used).
	Artifacts []lunad.Artifact
	// Stale maps an artifact's ID to the paths of the artifacts its stale
	// or broken references point at (metadata: what "update the stale
	// docs" routes by).
	Stale map[string][]string
}

// Deps are the supervisor's model and the run's working memory.
type Deps struct {
	Provider llm.Provider
	Model    string
	Seed     *int64
	Memory   *memory.Memory
	// Retry is lunad's retry policy around each model call, the memory's
	// guards inside it (every attempt is admitted and counted; a refusal
	// is not retried). Zero fields take llm.Retry's defaults.
	Retry llm.RetryOptions
}

// Decision is the supervisor's decision: a Route, or a Question for the
// user (nothing is to be written).
type Decision struct {
	Route    *lunad.AskRoute `json:"route,omitempty"`
	Question string          `json:"question,omitempty"`
	// FailSafe: the model's answer did not validate twice; Question asks
	// the user to be more specific and Reason has the validation error.
	FailSafe bool   `json:"fail_safe,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Model    string `json:"model,omitempty"`
	Prompt   string `json:"prompt"` // name@version
	// Request is the first model request (what --dry-run shows).
	Request llm.Request `json:"-"`
}

// answer is the route with the question the schema adds.
type answer struct {
	lunad.AskRoute
	Question *string `json:"question"`
}

// Decide routes the request. The error is a failed model call (the
// provider's *llm.Error after d.Retry's attempts, or the memory's refusal:
// a *guard.RefusedError wrapping a *memory.BudgetError or
// *memory.BreakerOpenError) or ctx's; an invalid answer is never an
// error but a fail-safe question.
func Decide(ctx context.Context, d Deps, in Input) (Decision, error) {
	id, _ := Prompt()
	req := Request(d, in)
	dec := Decision{Prompt: id, Request: req}
	var problem error
	for attempt := 0; attempt < 2; attempt++ {
		resp, err := guard.Retried(d.Provider, d.Memory, Role, d.Retry).Chat(ctx, req)
		if r := guard.Refused(err); r != nil {
			return dec, r
		}
		if err != nil {
			return dec, err
		}
		dec.Model = resp.Model
		var a answer
		a, problem = parse(resp.Message.Content)
		if problem == nil {
			problem = validate(&a, in)
		}
		if problem == nil {
			if a.Question != nil && strings.TrimSpace(*a.Question) != "" {
				dec.Question = *a.Question
				return dec, nil
			}
			if q := ambiguity(&a.AskRoute, in); q != "" {
				dec.Question = q
				return dec, nil
			}
			r := a.AskRoute
			dec.Route = &r
			return dec, nil
		}
		req.Messages = append(req.Messages,
			llm.Message{Role: llm.RoleAssistant, Content: resp.Message.Content},
			llm.Message{Role: llm.RoleUser, Content: "That route is invalid: " + problem.Error() + ". Answer again with a route that fixes it."})
	}
	dec.FailSafe = true
	dec.Reason = problem.Error()
	dec.Question = "I could not work out what to do with that request (" + problem.Error() + "). Nothing was changed: please say which artifact you mean and what should change."
	return dec, nil
}

// Request is the supervisor's model request: the request, the active
// artifact's ID and one metadata line per artifact — no content.
func Request(d Deps, in Input) llm.Request {
	_, system := Prompt()
	var b strings.Builder
	fmt.Fprintf(&b, "Request: %s\n", in.Request)
	if in.Active != "" {
		fmt.Fprintf(&b, "Active artifact: %s\n", in.Active)
	} else {
		b.WriteString("Active artifact: none\n")
	}
	b.WriteString("Artifacts (id, path, type, title, status, version; stale: the artifacts its references are stale against):\n")
	arts := slices.Clone(in.Artifacts)
	slices.SortFunc(arts, func(a, b lunad.Artifact) int { return strings.Compare(a.Path, b.Path) })
	for _, a := range arts {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%q\t%s\tv%d", a.ID, a.Path, a.Type, a.Title, a.Status, a.Version)
		if st := in.Stale[a.ID]; len(st) > 0 {
			fmt.Fprintf(&b, "\tstale: %s", strings.Join(st, ", "))
		}
		b.WriteString("\n")
	}
	if len(arts) == 0 {
		b.WriteString("(none)\n")
	}
	return llm.Request{Model: d.Model, System: system, Seed: d.Seed,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: b.String()}},
		Format:   &llm.ResponseFormat{Name: "route", Schema: json.RawMessage(Schema)}}
}

// parse decodes the structured answer strictly.
func parse(content string) (answer, error) {
	var a answer
	dec := json.NewDecoder(strings.NewReader(content))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return a, fmt.Errorf("the answer is not a route object as the schema says (%v)", err)
	}
	if dec.More() {
		return a, errors.New("the answer has text after the route object")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(bytes.TrimSpace([]byte(content)), &raw); err == nil {
		for _, k := range []string{"intent", "worker", "reason"} {
			if _, ok := raw[k]; !ok {
				return a, fmt.Errorf("the route has no %q", k)
			}
		}
	}
	return a, nil
}

// validate checks a route against the workspace; it resolves a target
// and dependencies given as paths to IDs, and an edit's or review's
// missing target to the active artifact.
func validate(a *answer, in Input) error {
	r := &a.AskRoute
	if a.Question != nil && strings.TrimSpace(*a.Question) != "" {
		return nil
	}
	find := func(ref string) (lunad.Artifact, bool) {
		for _, x := range in.Artifacts {
			if x.ID == ref || x.Path == ref {
				return x, true
			}
		}
		return lunad.Artifact{}, false
	}
	if !slices.Contains(tools.Roles, r.Worker) {
		return fmt.Errorf("worker %q is not one of coder, writer, reviewer", r.Worker)
	}
	if r.Target != nil {
		t, ok := find(*r.Target)
		if !ok {
			return fmt.Errorf("target %q is not an artifact of the workspace: use an id from the list", *r.Target)
		}
		r.Target = &t.ID
	}
	for i, dep := range r.ReadDeps {
		t, ok := find(dep)
		if !ok {
			return fmt.Errorf("read_deps[%d] %q is not an artifact of the workspace", i, dep)
		}
		r.ReadDeps[i] = t.ID
	}
	switch r.Intent {
	case "create":
		na := r.NewArtifact
		if na == nil || na.Path == "" || na.Title == "" {
			return errors.New("a create needs new_artifact with a title and a path")
		}
		if x, ok := find(na.Path); ok {
			return fmt.Errorf("new_artifact.path %s is artifact %s already: edit it instead", na.Path, x.ID)
		}
		typ := na.Type
		if typ == "" {
			typ = tools.TypeForPath(na.Path)
		}
		if err := fits(r.Worker, typ, na.Path); err != nil {
			return err
		}
	case "edit", "review":
		if r.Target == nil && in.Active != "" {
			active := in.Active
			r.Target = &active
		}
		if r.Intent == "review" && r.Worker != tools.Reviewer {
			return fmt.Errorf("a review goes to the reviewer, not the %s", r.Worker)
		}
		if r.Intent == "edit" && r.Worker == tools.Reviewer {
			return errors.New("the reviewer cannot edit: route an edit to the coder or the writer")
		}
		if r.Intent == "edit" && r.Target != nil {
			t, _ := find(*r.Target)
			if err := fits(r.Worker, t.Type, t.Path); err != nil {
				return err
			}
		}
	case "answer":
	default:
		return fmt.Errorf("intent %q is not one of create, edit, answer, review", r.Intent)
	}
	return nil
}

// fits refuses a write of a kind the worker may not make.
func fits(worker, typ, path string) error {
	switch {
	case worker == tools.Writer && tools.IsCode(typ):
		return fmt.Errorf("%s is %s: code goes to the coder, not the writer", path, typ)
	case worker == tools.Coder && !tools.IsCode(typ):
		return fmt.Errorf("%s is %s: prose goes to the writer, not the coder", path, typ)
	}
	return nil
}

// ambiguity is the question for an edit without a target when several
// artifacts of the kind the worker writes are candidates ("" if the
// route is not ambiguous); an edit with exactly one candidate takes it.
func ambiguity(r *lunad.AskRoute, in Input) string {
	if r.Intent != "edit" || r.Target != nil {
		return ""
	}
	var cands []lunad.Artifact
	for _, a := range in.Artifacts {
		if a.Status != lunad.StatusArchived && tools.IsCode(a.Type) == (r.Worker == tools.Coder) {
			cands = append(cands, a)
		}
	}
	switch len(cands) {
	case 0:
		return "There is no artifact the " + r.Worker + " could edit for this request: which artifact do you mean, or should a new one be created?"
	case 1:
		id := cands[0].ID
		r.Target = &id
		return ""
	}
	slices.SortFunc(cands, func(a, b lunad.Artifact) int { return strings.Compare(a.Path, b.Path) })
	names := make([]string, len(cands))
	for i, a := range cands {
		names[i] = fmt.Sprintf("%s (%q, %s)", a.Path, a.Title, a.ID)
	}
	return "Which artifact do you mean: " + strings.Join(names, ", or ") + "? Open it, or name it with --artifact."
}
