package workspace

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/treesitter"
)

// outgoing evaluates every reference written in artifact id: resolved
// names and links, explicit links and quoted snippets, in file order.
// Local and unresolved names (builtins, libraries) are left out unless
// history shows they pointed into the workspace (then they are broken).
func (ev *evaluator) outgoing(id string) ([]lunad.Reference, error) {
	var (
		res   []treesitter.Resolution
		entry treesitter.Entry
	)
	ev.ix.View(func(g *treesitter.Graph) {
		res = g.Resolve(id)
		entry, _ = g.Entry(id)
	})
	out := []lunad.Reference{}
	for _, r := range res {
		ref, ok, err := ev.evaluate(r)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, ref)
		}
	}
	if entry.File != nil {
		snips, err := ev.snippets(entry, scopeOf(entry, res))
		if err != nil {
			return nil, err
		}
		out = append(out, snips...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].From.Span.Start.Byte < out[j].From.Span.Start.Byte })
	links, err := ev.explicitLinks(id)
	if err != nil {
		return nil, err
	}
	return append(out, links...), nil
}

// scopeOf is the set of artifacts e's references resolve to or that it
// links to explicitly: where its quotes are looked for.
func scopeOf(e treesitter.Entry, res []treesitter.Resolution) map[string]bool {
	scope := map[string]bool{}
	for _, r := range res {
		if r.State == treesitter.Resolved {
			scope[r.Target.ID] = true
		}
	}
	for _, l := range e.Links {
		scope[l] = true
	}
	return scope
}

// incomingSnippets are the quotes of other artifacts whose source is id.
// A quote of id is found either in scope (its artifact references id or
// links to it) or by drift (id changed since the quoting artifact's
// baseline): the others are skipped unread, and a quoting artifact is
// resolved (for its whole scope) only when one of its quotes may be of id
// and is looked for in scope — resolving every artifact with a quote took
// most of a Refs call at 1,000 artifacts.
func (ev *evaluator) incomingSnippets(id string) ([]lunad.Reference, error) {
	type quoting struct {
		id    string
		links []string
	}
	var (
		qs      []quoting
		inScope = map[string]bool{}
	)
	ev.ix.View(func(g *treesitter.Graph) {
		for _, other := range g.IDs() {
			if other != id && g.HasReference(other, "snippet") { // read packed: most of these are skipped below
				qs = append(qs, quoting{other, g.Links(other)})
			}
		}
		for _, r := range g.IncomingResolved(id) {
			if r.State == treesitter.Resolved && r.Target.ID == id {
				inScope[r.From] = true
			}
		}
	})
	var out []lunad.Reference
	for _, q := range qs {
		if !inScope[q.id] && !slices.Contains(q.links, id) {
			b, err := ev.baseline(q.id)
			if err != nil {
				return nil, err
			}
			changes, err := ev.changedAfter(id, ev.pos(b.all))
			if err != nil {
				return nil, err
			}
			if len(changes) == 0 {
				continue
			}
		}
		var e treesitter.Entry
		ev.ix.View(func(g *treesitter.Graph) { e, _ = g.Entry(q.id) })
		scope := func() map[string]bool {
			var res []treesitter.Resolution
			ev.ix.View(func(g *treesitter.Graph) { res = g.Resolve(e.ID) })
			return scopeOf(e, res)
		}
		snips, err := ev.snippetsOf(e, scope, id)
		if err != nil {
			return nil, err
		}
		for _, r := range snips {
			if r.To != nil && r.To.ID == id {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// evaluate gives one resolved reference its state; ok is false for
// references that stay out of reports (local, unresolved).
func (ev *evaluator) evaluate(r treesitter.Resolution) (ref lunad.Reference, ok bool, err error) {
	from, err := ev.at(r.From, "")
	if err != nil || !from.present {
		return ref, false, err
	}
	sp := span(r.Ref.Span)
	ref = lunad.Reference{From: lunad.Location{ID: r.From, Path: from.entry.Path, Span: &sp},
		Kind: r.Ref.Kind, Text: r.Ref.Text(), State: lunad.RefOK}
	b, err := ev.baseline(r.From)
	if err != nil {
		return ref, false, err
	}
	switch r.State {
	case treesitter.Local:
		return ref, false, nil
	case treesitter.Unresolved:
		return ev.vanished(ref, r, from, b)
	case treesitter.Ambiguous:
		ref.State = lunad.RefAmbiguous
		var forms []string
		for _, c := range r.Candidates {
			ref.Candidates = append(ref.Candidates, location(c))
			forms = append(forms, qualifiedForm(c, lastPart(r.Ref.Name)))
		}
		if len(forms) > 4 {
			forms = append(forms[:4], "...")
		}
		ref.Reason = fmt.Sprintf("%d definitions match %q; qualify it: %s", len(r.Candidates), r.Ref.Name, strings.Join(forms, ", "))
		return ref, true, nil
	case treesitter.Broken:
		return ev.broken(ref, r, b)
	case treesitter.Unverified:
		if r.Via != treesitter.ViaSlug || !ev.s.looseSlugs.Load() {
			return unverified(ref, r), true, nil
		}
		if r.Target.ID == r.From {
			return ref, false, nil // under the loose rule, a heading of its own: local
		}
	}
	to := location(r.Target)
	ref.To, ref.Baseline = &to, b.all.Commit
	switch {
	case r.Target.Name != "":
		err = ev.symbolState(&ref, ev.forSymbol(b, ref.To, r.Ref.Name), r.Target.ID, to.Symbol, to.Container, to.Kind == "heading")
	case r.Target.Line > 0:
		err = ev.lineState(&ref, b, r.Target.ID, r.Target.Line)
	}
	return ref, true, err
}

// qualifiedForm is how a reference can name candidate c unambiguously:
// Container.name for a member, stem.name for a file's top-level
// definition, with the file#name link form.
func qualifiedForm(c treesitter.Target, name string) string {
	q := c.Container
	if q == "" {
		q = strings.TrimSuffix(path.Base(c.Path), path.Ext(c.Path))
	}
	if c.ID == "" || c.Name == "" {
		return c.Path
	}
	return q + "." + name + " (" + c.Path + "#" + name + ")"
}

func location(t treesitter.Target) lunad.Location {
	l := lunad.Location{ID: t.ID, Path: t.Path, Symbol: t.Name, Container: t.Container, Kind: t.Kind, Line: t.Line}
	if t.Name != "" {
		sp := span(t.Span)
		l.Span = &sp
	}
	return l
}

func lastPart(name string) string {
	if i := strings.LastIndexAny(name, ".:#"); i >= 0 {
		return name[i+1:]
	}
	return name
}

// since returns the versions of artifact to that changed its content
// after base, and the state they are compared with: to at base, or, if
// what the reference names (has) was not there yet, its first state after
// base that has it — a reference written before its target binds to the
// target's first version. old is nil when there is nothing to compare.
func (ev *evaluator) since(to string, base lunad.Version, has func(*fileAt) bool) (changes []lunad.Version, old *fileAt, err error) {
	changes, err = ev.changedAfter(to, ev.pos(base))
	if err != nil || len(changes) == 0 {
		return nil, nil, err
	}
	if old, err = ev.at(to, base.Commit); err != nil {
		return nil, nil, err
	}
	for !has(old) {
		if len(changes) == 0 {
			return nil, nil, nil
		}
		if old, err = ev.at(to, changes[0].Commit); err != nil {
			return nil, nil, err
		}
		changes = changes[1:]
	}
	if len(changes) == 0 {
		return nil, nil, nil
	}
	return changes, old, nil
}

// symbolState compares the fingerprint of symbol (name, container) of
// artifact to at the baseline with the current one.
func (ev *evaluator) symbolState(ref *lunad.Reference, base lunad.Version, to, name, container string, heading bool) error {
	ref.Baseline = base.Commit
	fp := func(f *fileAt) (string, bool) {
		if !f.present {
			return "", false
		}
		return f.entry.File.SymbolFingerprint(name, container, heading)
	}
	has := func(f *fileAt) bool { _, ok := fp(f); return ok }
	changes, old, err := ev.since(to, base, has)
	if err != nil || old == nil {
		return err
	}
	then, _ := fp(old)
	cur, err := ev.at(to, "")
	if err != nil {
		return err
	}
	now, ok := fp(cur)
	if ok && now == then {
		return nil
	}
	since, err := ev.changedSince(to, changes, func(f *fileAt) bool { got, ok := fp(f); return !ok || got != then })
	if err != nil {
		return err
	}
	ref.Since = since
	what := name
	if container != "" {
		what = container + "." + name
	}
	if !ok {
		ref.State, ref.Reason = lunad.RefBroken, fmt.Sprintf("%s no longer exists in %s", what, cur.entry.Path)
	} else {
		ref.State, ref.Reason = lunad.RefStale, fmt.Sprintf("%s in %s changed", what, cur.entry.Path)
	}
	if since != nil {
		ref.Reason += " in " + describe(since)
	}
	return nil
}

// lineState handles a link to a line: the definition that held the line
// at the baseline is followed by name; a line outside any definition is
// compared as text at the same line number.
func (ev *evaluator) lineState(ref *lunad.Reference, b *baseline, to string, line int) error {
	base := b.all
	ref.Baseline = base.Commit
	changes, old, err := ev.since(to, base, func(f *fileAt) bool { return f.present })
	if err != nil || old == nil {
		return err
	}
	if sym, ok := old.entry.File.SymbolAt(line); ok {
		ref.To.Symbol, ref.To.Container, ref.To.Kind = sym.Name, sym.Container, sym.Kind
		return ev.symbolState(ref, ev.forSymbol(b, ref.To, ""), to, sym.Name, sym.Container, sym.Kind == "heading")
	}
	then := lineText(old.content, line)
	changed := func(f *fileAt) bool { return !f.present || lineText(f.content, line) != then }
	cur, err := ev.at(to, "")
	if err != nil || !changed(cur) {
		return err
	}
	since, err := ev.changedSince(to, changes, changed)
	if err != nil {
		return err
	}
	ref.State, ref.Since = lunad.RefStale, since
	ref.Reason = fmt.Sprintf("line %d of %s changed", line, cur.entry.Path)
	if since != nil {
		ref.Reason += " in " + describe(since)
	}
	return nil
}

func lineText(content []byte, line int) string {
	ls := strings.SplitN(string(content), "\n", line+1)
	if line < 1 || line > len(ls) {
		return ""
	}
	return strings.TrimSpace(ls[line-1])
}

// broken reports a qualified target that does not exist, and when the
// symbol or heading it names was still there at the baseline, since when.
func (ev *evaluator) broken(ref lunad.Reference, r treesitter.Resolution, b *baseline) (lunad.Reference, bool, error) {
	ref.State, ref.Reason = lunad.RefBroken, r.Reason
	if r.Target.Path != "" || r.Target.ID != "" {
		to := location(r.Target)
		ref.To = &to
	}
	if r.Ref.Kind != "link" && r.Ref.Kind != "include" {
		return ref, true, nil
	}
	if r.Target.ID == "" {
		return ref, true, ev.moved(&ref, b.all, r.Target.Path)
	}
	_, frag, _ := strings.Cut(r.Ref.Target, "#")
	base := ev.forSymbol(b, nil, frag)
	ref.Baseline = base.Commit
	old, err := ev.at(r.Target.ID, base.Commit)
	if err != nil || !old.present || len(treesitter.Fragment(old.entry, frag)) == 0 {
		return ref, true, err
	}
	changes, err := ev.changedAfter(r.Target.ID, ev.pos(base))
	if err != nil {
		return ref, true, err
	}
	ref.Since, err = ev.changedSince(r.Target.ID, changes, func(f *fileAt) bool {
		return !f.present || len(treesitter.Fragment(f.entry, frag)) == 0
	})
	if ref.Since != nil {
		ref.Reason += "; it was removed or renamed in " + describe(ref.Since)
	}
	return ref, true, err
}

// vanished checks a name that resolves nowhere now: if, at the baseline,
// exactly one other artifact (changed since) defined it, the reference is
// broken — the symbol was deleted or renamed.
func (ev *evaluator) vanished(ref lunad.Reference, r treesitter.Resolution, from *fileAt, b *baseline) (lunad.Reference, bool, error) {
	switch r.Ref.Kind {
	case "link", "wiki", "include", "doc", "ref":
		return ref, false, nil
	case "import":
		if from.entry.File.Language == treesitter.LangGo {
			return ref, false, nil
		}
	}
	base := ev.forSymbol(b, nil, r.Ref.Name)
	p := ev.pos(base)
	then, err := ev.definedThen(p)
	if err != nil {
		return ref, false, err
	}
	var hits []treesitter.Target
	lang := from.entry.File.Language
	fromCode := !treesitter.IsProse(lang)
	if r.Ref.Kind == "example" { // an example names code of its own language
		lang, fromCode = r.Ref.Target, true
	}
	for _, e := range then[lastPart(r.Ref.Name)] {
		if e.ID == r.From || fromCode && !treesitter.SameFamily(e.File.Language, lang) {
			continue
		}
		hits = append(hits, treesitter.Defines(e, r.Ref.Name)...)
	}
	if len(hits) != 1 {
		return ref, false, nil
	}
	t := hits[0]
	to := location(t)
	to.Span = nil
	ref.To, ref.Baseline = &to, base.Commit
	cur, err := ev.at(t.ID, "")
	if err != nil {
		return ref, false, err
	}
	if cur.present {
		to.Path = cur.entry.Path
	}
	changes, err := ev.changedAfter(t.ID, p)
	if err != nil {
		return ref, false, err
	}
	ref.Since, err = ev.changedSince(t.ID, changes, func(f *fileAt) bool {
		return !f.present || len(treesitter.Defines(f.entry, r.Ref.Name)) == 0
	})
	ref.State = lunad.RefBroken
	ref.Reason = fmt.Sprintf("%s no longer exists in %s", r.Ref.Name, to.Path)
	if ref.Since != nil {
		ref.Reason += "; it was removed or renamed in " + describe(ref.Since)
	}
	return ref, true, err
}

// moved explains a link to a path that no artifact has: if an artifact was
// at that path at the baseline and was moved since, it says where to and
// in which version.
func (ev *evaluator) moved(ref *lunad.Reference, base lunad.Version, p string) error {
	pos := ev.pos(base)
	if pos < 0 {
		return nil
	}
	seen := map[string]bool{}
	for _, v := range ev.branch[pos+1:] {
		if v.Op != lunad.OpMove || seen[v.Artifact] {
			continue
		}
		seen[v.Artifact] = true
		old, err := ev.at(v.Artifact, base.Commit)
		if err != nil {
			return err
		}
		if !old.present || old.entry.Path != p {
			continue
		}
		cur, err := ev.at(v.Artifact, "")
		if err != nil || !cur.present {
			return err
		}
		h, err := ev.history(v.Artifact)
		if err != nil {
			return err
		}
		for _, mv := range h {
			if mv.Op == lunad.OpMove && ev.pos(mv) > pos {
				if f, err := ev.at(v.Artifact, mv.Commit); err != nil {
					return err
				} else if f.present && f.entry.Path != p {
					ref.Since = &mv
					break
				}
			}
		}
		ref.To = &lunad.Location{ID: v.Artifact, Path: cur.entry.Path}
		ref.Reason = fmt.Sprintf("no artifact at %s: it was moved to %s", p, cur.entry.Path)
		if ref.Since != nil {
			ref.Reason += " in " + describe(ref.Since)
		}
		ref.Reason += "; update the link"
		return nil
	}
	return nil
}

// unverified reports a link only a site generator resolves: what it
// found (the page, the heading), and why it is not checked.
func unverified(ref lunad.Reference, r treesitter.Resolution) lunad.Reference {
	ref.State, ref.Reason = lunad.RefUnverified, r.Reason
	if r.Target.Path != "" {
		to := location(r.Target)
		ref.To = &to
	}
	return ref
}
