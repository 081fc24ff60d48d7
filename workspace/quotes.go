package workspace

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/treesitter"
)

// explicitLinks evaluates the store's links of artifact id: stale when the
// target's content changed after the later of id's baseline and the link.
func (ev *evaluator) explicitLinks(id string) ([]lunad.Reference, error) {
	a, err := ev.s.store.Artifact(ev.ctx, id)
	if err != nil || len(a.Links) == 0 {
		return nil, err
	}
	b, err := ev.baseline(id)
	if err != nil {
		return nil, err
	}
	base := b.all
	if ev.pos(b.link) > ev.pos(base) {
		base = b.link
	}
	var out []lunad.Reference
	for _, l := range a.Links {
		ref := lunad.Reference{From: lunad.Location{ID: id, Path: a.Path}, Kind: "explicit", Text: l.Kind,
			To: &lunad.Location{ID: l.To}, State: lunad.RefOK, Baseline: base.Commit}
		cur, err := ev.at(l.To, "")
		if err != nil {
			return nil, err
		}
		if !cur.present {
			ref.State, ref.Reason = lunad.RefBroken, "artifact "+l.To+" no longer exists on this branch"
			if gone, err := ev.s.store.Artifact(ev.ctx, l.To); err == nil && gone.Status == lunad.StatusRemoved {
				ref.To.Path, ref.Reason = gone.Path, gone.Path+" (artifact "+l.To+") was removed"
			}
			out = append(out, ref)
			continue
		}
		ref.To.Path = cur.entry.Path
		changes, err := ev.changedAfter(l.To, ev.pos(base))
		if err != nil {
			return nil, err
		}
		if len(changes) > 0 {
			old, err := ev.at(l.To, base.Commit)
			if err != nil {
				return nil, err
			}
			differs := func(f *fileAt) bool { return !old.present || string(f.content) != string(old.content) }
			if differs(cur) {
				ref.Since, err = ev.changedSince(l.To, changes, differs)
				if err != nil {
					return nil, err
				}
				ref.State, ref.Reason = lunad.RefStale, cur.entry.Path+" changed"
				if ref.Since != nil {
					ref.Reason += " in " + describe(ref.Since)
				}
			}
		}
		out = append(out, ref)
	}
	return out, nil
}

// incomingLinks are the explicit links of other artifacts to id.
func (ev *evaluator) incomingLinks(id string) ([]lunad.Reference, error) {
	arts, err := ev.s.store.List(ev.ctx)
	if err != nil {
		return nil, err
	}
	var out []lunad.Reference
	for _, a := range arts {
		for _, l := range a.Links {
			if l.To != id {
				continue
			}
			refs, err := ev.explicitLinks(a.ID)
			if err != nil {
				return nil, err
			}
			for _, r := range refs {
				if r.To.ID == id {
					out = append(out, r)
				}
			}
			break
		}
	}
	return out, nil
}

// minQuote is the least a fenced code block must hold (non-space bytes)
// to be checked as a quote: shorter blocks match too much by chance.
const minQuote = 16

// quoteLines normalises text for quote matching: lines trimmed of
// surrounding whitespace, leading and trailing blank lines dropped.
func quoteLines(text string) []string {
	ls := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := range ls {
		ls[i] = strings.TrimSpace(ls[i])
	}
	for len(ls) > 0 && ls[0] == "" {
		ls = ls[1:]
	}
	for len(ls) > 0 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// quotes reports whether content holds the lines of q consecutively
// (modulo indentation).
func quotes(content []byte, q []string) bool {
	if len(q) == 0 {
		return false
	}
	ls := quoteLines(string(content))
	for i := 0; i+len(q) <= len(ls); i++ {
		if ls[i] != q[0] {
			continue
		}
		j := 1
		for j < len(q) && ls[i+j] == q[j] {
			j++
		}
		if j == len(q) {
			return true
		}
	}
	return false
}

// snippets evaluates the fenced code blocks of e as quotes. A block
// drifted when an artifact changed since e's baseline held it then and
// does not now; a block that one of scope (the artifacts e references)
// holds now is reported ok.
func (ev *evaluator) snippets(e treesitter.Entry, scope map[string]bool) ([]lunad.Reference, error) {
	return ev.snippetsOf(e, func() map[string]bool { return scope }, "")
}

// snippetsOf is snippets, less the blocks whose source cannot be artifact
// only ("" for any): those it holds neither now nor at e's baseline
// (where quotedBy and drift would find it), which are not looked for
// among the others. scope is called when a block is looked for in scope,
// at most once.
func (ev *evaluator) snippetsOf(e treesitter.Entry, scope func() map[string]bool, only string) ([]lunad.Reference, error) {
	var inScope map[string]bool
	from, err := ev.at(e.ID, "")
	if err != nil || !from.present {
		return nil, err
	}
	b, err := ev.baseline(e.ID)
	if err != nil {
		return nil, err
	}
	var out []lunad.Reference
	for _, r := range e.File.References {
		if r.Kind != "snippet" {
			continue
		}
		text := string(from.content[r.Span.Start.Byte:r.Span.End.Byte])
		q := quoteLines(text)
		if len(strings.Join(strings.Fields(text), "")) < minQuote {
			continue
		}
		if only != "" {
			ok, err := ev.mayQuote(only, b, q)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		sp := span(r.Span)
		ref := lunad.Reference{From: lunad.Location{ID: e.ID, Path: e.Path, Span: &sp}, Kind: "snippet",
			Text: quoteHeadline(q), State: lunad.RefOK}
		found, err := ev.drift(&ref, b, q)
		if err != nil {
			return nil, err
		}
		if !found {
			if inScope == nil {
				inScope = scope()
			}
			found, err = ev.quotedBy(&ref, inScope, q)
			if err != nil {
				return nil, err
			}
		}
		if found {
			out = append(out, ref)
		}
	}
	return out, nil
}

// mayQuote reports whether quote q can have id as its source for an
// artifact of baseline b: id holds it now (quotedBy) or held it at the
// baseline drift compares with.
func (ev *evaluator) mayQuote(id string, b *baseline, q []string) (bool, error) {
	cur, err := ev.at(id, "")
	if err != nil || cur.present && quotes(cur.content, q) {
		return err == nil, err
	}
	base := ev.forSymbol(b, nil, "")
	if ev.pos(base) < 0 {
		return false, nil
	}
	old, err := ev.at(id, base.Commit)
	return err == nil && old.present && quotes(old.content, q), err
}

// drift looks for the quote's source among the artifacts changed since
// the baseline.
func (ev *evaluator) drift(ref *lunad.Reference, b *baseline, q []string) (bool, error) {
	base := ev.forSymbol(b, nil, "")
	p := ev.pos(base)
	if p < 0 {
		return false, nil
	}
	seen := map[string]bool{ref.From.ID: true}
	var ids []string
	for _, v := range ev.branch[p+1:] {
		if contentOps[v.Op] && v.Artifact != "" && !seen[v.Artifact] {
			seen[v.Artifact] = true
			ids = append(ids, v.Artifact)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		old, err := ev.at(id, base.Commit)
		if err != nil {
			return false, err
		}
		if !old.present || !quotes(old.content, q) {
			continue
		}
		cur, err := ev.at(id, "")
		if err != nil {
			return false, err
		}
		ref.Baseline = base.Commit
		ref.To = &lunad.Location{ID: id, Path: old.entry.Path}
		if cur.present {
			ref.To.Path = cur.entry.Path
			if quotes(cur.content, q) {
				return true, nil
			}
		}
		changes, err := ev.changedAfter(id, p)
		if err != nil {
			return false, err
		}
		ref.Since, err = ev.changedSince(id, changes, func(f *fileAt) bool { return !f.present || !quotes(f.content, q) })
		ref.State = lunad.RefStale
		ref.Reason = fmt.Sprintf("the quoted code no longer matches %s", ref.To.Path)
		if ref.Since != nil {
			ref.Reason += " since " + describe(ref.Since)
		}
		return true, err
	}
	return false, nil
}

// quotedBy finds the quote's source among the artifacts in scope, now.
func (ev *evaluator) quotedBy(ref *lunad.Reference, scope map[string]bool, q []string) (bool, error) {
	ids := make([]string, 0, len(scope))
	for id := range scope {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		cur, err := ev.at(id, "")
		if err != nil {
			return false, err
		}
		if cur.present && quotes(cur.content, q) {
			ref.To = &lunad.Location{ID: id, Path: cur.entry.Path}
			return true, nil
		}
	}
	return false, nil
}

// quoteHeadline is the first non-empty line of a quote's lines: the text a
// snippet reference shows.
func quoteHeadline(q []string) string {
	for _, l := range q {
		if l != "" {
			return l
		}
	}
	return ""
}
