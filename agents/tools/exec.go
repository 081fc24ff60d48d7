package tools

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/editor"
)

func (s *Set) read(ctx context.Context, call llm.ToolCall) Result {
	var a struct {
		ID   string `json:"id"`
		From int    `json:"from_line"`
		To   int    `json:"to_line"`
	}
	if err := decode(call.Name, call.Arguments, &a); err != nil {
		return fail("", "%v", err)
	}
	content, art, err := s.ov.Read(ctx, a.ID, "")
	if err != nil {
		return fail("", "%s: %v", call.Name, notFound(err, a.ID))
	}
	return Result{Content: Numbered(art, content, a.From, a.To)}
}

// Numbered renders an artifact's lines from..to (1-based, inclusive; 0:
// the first, the last) with their numbers, under a header naming it.
func Numbered(art lunad.Artifact, content []byte, from, to int) string {
	lines := splitLines(content)
	if from < 1 {
		from = 1
	}
	if to < 1 || to > len(lines) {
		to = len(lines)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%s, version %d), lines %d-%d of %d:\n", art.ID, art.Path, art.Type, art.Version, min(from, to+1), to, len(lines))
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%5d| %s\n", i, lines[i-1])
	}
	return b.String()
}

func (s *Set) list(ctx context.Context, call llm.ToolCall) Result {
	var a struct {
		Type  string `json:"type"`
		Query string `json:"query"`
	}
	if err := decode(call.Name, call.Arguments, &a); err != nil {
		return fail("", "%v", err)
	}
	arts, err := s.ov.List(ctx)
	if err != nil {
		return fail("", "%s: %v", call.Name, err)
	}
	var b strings.Builder
	q := strings.ToLower(a.Query)
	n := 0
	for _, x := range arts {
		if !strings.HasPrefix(x.Type, a.Type) {
			continue
		}
		if q != "" && !strings.Contains(strings.ToLower(x.Path+" "+x.Title), q) {
			continue
		}
		n++
		fmt.Fprintf(&b, "%s\t%s\tv%d\t%s\t%s\n", x.ID, x.Type, x.Version, x.Path, x.Title)
	}
	if n == 0 {
		return Result{Content: "no artifact matches"}
	}
	return Result{Content: b.String()}
}

func (s *Set) refs(ctx context.Context, call llm.ToolCall) Result {
	var a struct {
		ID     string `json:"id"`
		Symbol string `json:"symbol"`
	}
	if err := decode(call.Name, call.Arguments, &a); err != nil {
		return fail("", "%v", err)
	}
	rep, err := s.ov.Source().Refs(ctx, a.ID)
	if err != nil {
		return fail("", "%s: %v", call.Name, notFound(err, a.ID))
	}
	var b strings.Builder
	section := func(title string, refs []lunad.Reference, about func(lunad.Reference) string) {
		fmt.Fprintf(&b, "%s:\n", title)
		n := 0
		for _, r := range refs {
			if a.Symbol != "" && (r.To == nil || r.To.Symbol != a.Symbol) && r.Text != a.Symbol {
				continue
			}
			n++
			line := 0
			if r.From.Span != nil {
				line = r.From.Span.Start.Line + 1
			}
			fmt.Fprintf(&b, "  %s:%d %s %q -> %s [%s]", r.From.Path, line, r.Kind, r.Text, about(r), r.State)
			if r.Reason != "" {
				fmt.Fprintf(&b, " (%s)", r.Reason)
			}
			b.WriteString("\n")
		}
		if n == 0 {
			b.WriteString("  none\n")
		}
	}
	target := func(r lunad.Reference) string {
		if r.To == nil {
			return "?"
		}
		if r.To.Symbol != "" {
			return r.To.Path + "#" + r.To.Symbol
		}
		return r.To.Path
	}
	section("outgoing (written in "+rep.Artifact.Path+")", rep.Outgoing, target)
	section("incoming (to "+rep.Artifact.Path+")", rep.Incoming, target)
	return Result{Content: b.String()}
}

// writable resolves ref for a write by the set's role.
func (s *Set) writable(ctx context.Context, tool, ref string) ([]byte, lunad.Artifact, *Result) {
	content, art, err := s.ov.Read(ctx, ref, "")
	if err != nil {
		r := fail(ref, "%s: %v", tool, notFound(err, ref))
		return nil, art, &r
	}
	err = s.mayWrite(art.ID, art.Path)
	if err == nil {
		err = s.inScope(art, s.ov.created(art.Path))
	}
	if err == nil {
		err = s.guarded(art.Path)
	}
	if err != nil {
		r := fail(art.ID, "%s refused: %v", tool, err)
		return nil, art, &r
	}
	return content, art, nil
}

func (s *Set) edit(ctx context.Context, call llm.ToolCall) Result {
	var a struct {
		ID     string         `json:"id"`
		Blocks []editor.Block `json:"blocks"`
	}
	if err := decode(call.Name, call.Arguments, &a); err != nil {
		return fail(idOf(call), "%v", err)
	}
	if len(a.Blocks) == 0 {
		return fail(a.ID, "%s: blocks is empty: give at least one {search, replace}", call.Name)
	}
	content, art, refused := s.writable(ctx, call.Name, a.ID)
	if refused != nil {
		return *refused
	}
	res, err := editor.ApplyBlocks(content, a.Blocks)
	if err != nil {
		// The edit engine's message carries its hints: the closest
		// lines for no match, the candidate lines for an ambiguous one.
		return fail(art.ID, "%s %s not applied (nothing changed): %v", call.Name, art.ID, err)
	}
	edits := make([]lunad.Block, len(a.Blocks))
	for i, b := range a.Blocks {
		edits[i] = lunad.Block{Search: b.Search, Replace: b.Replace}
	}
	if err := s.ov.stage(ctx, art, res.Content, edits); err != nil {
		return fail(art.ID, "%s: %v", call.Name, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "edited %s (%s):", art.ID, art.Path)
	for _, m := range res.Matches {
		fmt.Fprintf(&b, " block %d at lines %d-%d (%s);", m.Block+1, m.StartLine, m.EndLine, m.Tier)
	}
	fmt.Fprintf(&b, " it has %d lines now", len(splitLines(res.Content)))
	return Result{Content: b.String(), Change: art.ID, Progress: true}
}

func (s *Set) rewrite(ctx context.Context, call llm.ToolCall) Result {
	var a struct {
		ID      string `json:"id"`
		Content string `json:"content"`
	}
	if err := decode(call.Name, call.Arguments, &a); err != nil {
		return fail(idOf(call), "%v", err)
	}
	old, art, refused := s.writable(ctx, call.Name, a.ID)
	if refused != nil {
		return *refused
	}
	res, err := editor.Rewrite(old, []byte(a.Content))
	if err != nil {
		return fail(art.ID, "%s %s not applied: %v", call.Name, art.ID, err)
	}
	if err := s.ov.stage(ctx, art, res.Content, nil); err != nil {
		return fail(art.ID, "%s: %v", call.Name, err)
	}
	return Result{Content: fmt.Sprintf("rewrote %s (%s): %d lines", art.ID, art.Path, len(splitLines(res.Content))), Change: art.ID, Progress: true}
}

func (s *Set) create(ctx context.Context, call llm.ToolCall) Result {
	var a struct {
		Title   string `json:"title"`
		Type    string `json:"type"`
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	if err := decode(call.Name, call.Arguments, &a); err != nil {
		return fail(idOf(call), "%v", err)
	}
	if err := checkNewMeta(a.Title, a.Type); err != nil {
		return fail(a.Path, "%s: %v", call.Name, err)
	}
	if err := checkPath(a.Path); err != nil {
		return fail(a.Path, "%s: %v", call.Name, err)
	}
	title, typ := s.ov.newMeta(a.Path, a.Title, a.Type)
	if err := s.mayWrite("", a.Path); err != nil {
		return fail(a.Path, "%s refused: %v", call.Name, err)
	}
	if err := fitsPath(s.ov.declaredType(a.Path, a.Type), a.Path); err != nil {
		return fail(a.Path, "%s refused: %v", call.Name, err)
	}
	if err := s.guarded(a.Path); err != nil {
		return fail(a.Path, "%s refused: %v", call.Name, err)
	}
	if err := editor.Validate([]byte(a.Content)); err != nil {
		return fail(a.Path, "%s: %v", call.Name, err)
	}
	art, err := s.ov.create(ctx, a.Path, title, typ, []byte(a.Content))
	if err != nil {
		return fail(a.Path, "%s: %v", call.Name, err)
	}
	return Result{Content: fmt.Sprintf("created %s (%s, %d lines); refer to it by its path until the stage is committed", art.Path, art.Type, len(splitLines([]byte(a.Content)))), Change: art.ID, Progress: true}
}

// typeForm is the form of an artifact type (the workspace's rule).
var typeForm = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9-]*/[a-z0-9][a-z0-9.+-]*$`) })

// checkNewMeta refuses a title or type the workspace would refuse when it
// commits the new artifact, so that the model can correct it.
func checkNewMeta(title, typ string) error {
	if typ != "" && (!typeForm().MatchString(typ) || len(typ) > 100) {
		return fmt.Errorf("type %q is not of the form kind/name: use e.g. text/markdown or code/python, or leave it out to infer it from the path", typ)
	}
	if len(title) > 256 || strings.TrimSpace(title) != title || strings.ContainsFunc(title, unicode.IsControl) {
		return fmt.Errorf("the title must be one line of at most 256 bytes without leading or trailing spaces")
	}
	return nil
}

func (s *Set) report(ctx context.Context, call llm.ToolCall) Result {
	var a lunad.AskFinding
	if err := decode(call.Name, call.Arguments, &a); err != nil {
		return fail("", "%v", err)
	}
	switch a.Severity {
	case "info", "warning", "error":
	default:
		return fail("", "%s: severity %q: use info, warning or error", call.Name, a.Severity)
	}
	art, err := s.ov.Artifact(ctx, a.Artifact)
	if err != nil {
		return fail("", "%s: %v", call.Name, notFound(err, a.Artifact))
	}
	a.Artifact = art.ID
	s.mu.Lock()
	s.findings = append(s.findings, a)
	n := len(s.findings)
	s.mu.Unlock()
	return Result{Content: fmt.Sprintf("finding %d recorded", n), Progress: true}
}

func (s *Set) acknowledge(ctx context.Context, call llm.ToolCall) Result {
	var a Ack
	if err := decode(call.Name, call.Arguments, &a); err != nil {
		return fail("", "%v", err)
	}
	art, err := s.ov.Artifact(ctx, a.ID)
	if err != nil {
		return fail("", "%s: %v", call.Name, notFound(err, a.ID))
	}
	a.ID = art.ID
	a.Symbol = strings.TrimSpace(a.Symbol)
	if a.Symbol != "" {
		refs, err := s.ov.Outgoing(ctx, art.ID)
		if err != nil {
			return fail("", "%s: %v", call.Name, err)
		}
		if !slices.ContainsFunc(refs, func(r lunad.Reference) bool { return r.Covers(a.Symbol) }) {
			return fail("", "%s: %s has no reference to %q: name a symbol its references use (find_references), or none to acknowledge all of them", call.Name, art.ID, a.Symbol)
		}
	}
	s.mu.Lock()
	s.acks = append(s.acks, a)
	s.mu.Unlock()
	return Result{Content: "acknowledged " + art.ID, Progress: true}
}

// notFound words an unknown artifact for the model.
func notFound(err error, ref string) error {
	if errors.Is(err, lunad.ErrNotFound) {
		return fmt.Errorf("no artifact %q: use an ID or path from list_artifacts", ref)
	}
	return err
}

// idOf is the id argument of a call whose arguments did not decode, if it
// can be read: a failed attempt still counts against that change.
func idOf(call llm.ToolCall) string {
	var a struct {
		ID   string `json:"id"`
		Path string `json:"path"`
	}
	if decodeLoose(call.Arguments, &a) && a.ID != "" {
		return a.ID
	}
	return a.Path
}
