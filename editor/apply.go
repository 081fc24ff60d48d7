package editor

import (
	"errors"
	"fmt"
	"sort"
)

// ApplyBlocks applies SEARCH/REPLACE blocks to content, all of them or none:
// block i applies to the result of blocks 0..i-1. Block.Path is not looked
// at (the caller picks the content). Each block's SEARCH is looked for tier
// by tier (see Tier); the first tier that finds it anywhere decides: one
// place is a match, more is an *AmbiguousError. A SEARCH that is not found
// but whose REPLACE is already there once gives *AlreadyAppliedError, and
// so does a block whose REPLACE contains its SEARCH and is already there
// around it (applying it again would insert the added lines twice).
// Otherwise the error is a *NoMatchError with the closest lines.
//
// REPLACE lines get the content's line ending (CRLF stays CRLF); lines of
// REPLACE that are unchanged SEARCH lines keep the content's bytes (its
// trailing whitespace, its indentation, its version of a fuzzy-matched
// line). The final newline or its absence is kept; bytes outside the
// matched lines are untouched. Result.Matches gives the lines each block
// replaced in the content it was applied to (the previous blocks' result).
//
// An empty SEARCH (nothing but whitespace) is allowed only on empty
// content, which REPLACE then becomes; otherwise it is ErrEmptySearch.
// Content, SEARCH and REPLACE must be UTF-8 text (ErrBinary,
// ErrInvalidUTF8).
func ApplyBlocks(content []byte, blocks []Block) (Result, error) {
	if err := validate("content", content); err != nil {
		return Result{}, err
	}
	if len(blocks) == 0 {
		return Result{}, fmt.Errorf("%w: no blocks to apply", ErrBadBlocks)
	}
	for i, b := range blocks {
		if err := validateString(label("block", i)+"SEARCH", b.Search); err != nil {
			return Result{}, err
		}
		if err := validateString(label("block", i)+"REPLACE", b.Replace); err != nil {
			return Result{}, err
		}
	}
	skipNoOps := !allNoOps(blocks)
	cur := content
	matches := make([]Match, 0, len(blocks))
	for i, b := range blocks {
		if len(cur) == 0 && isBlank(b.Search) {
			cur = []byte(b.Replace)
			matches = append(matches, Match{Block: i, Tier: TierExact, StartLine: 1, EndLine: 0})
			continue
		}
		d := newDoc(cur)
		S, R := userLines(b.Search), userLines(b.Replace)
		if skipNoOps && isNoOp(S, R) {
			matches = append(matches, noOpMatch(newMatcher(d), i, S))
			continue
		}
		p, err := planBlock(newMatcher(d), i, S, R)
		if err != nil {
			p, err = planUnwrapped(d, i, b.Path, S, R, err)
		}
		if err != nil {
			return Result{}, err
		}
		cur = p.apply(d)
		matches = append(matches, Match{Block: i, Tier: p.tier, StartLine: p.start + 1, EndLine: p.end})
	}
	return Result{Content: cur, Matches: matches}, nil
}

// isNoOp reports whether a block's SEARCH and REPLACE lines are the same
// (and not blank: a blank SEARCH is ErrEmptySearch).
func isNoOp(S, R []string) bool { return !allBlank(S) && equalLines(S, R) }

// allNoOps reports whether every block changes nothing: then the edit is
// refused (*AlreadyAppliedError with NoOp), while a no-op among blocks
// that change something is skipped and reported (TierNoOp).
func allNoOps(blocks []Block) bool {
	for _, b := range blocks {
		if !isNoOp(userLines(b.Search), userLines(b.Replace)) {
			return false
		}
	}
	return true
}

// noOpMatch reports no-op block i: where its text is, when one of the
// first tiers finds it at exactly one place, else lines 0-0.
func noOpMatch(mt *matcher, i int, S []string) Match {
	m := Match{Block: i, Tier: TierNoOp}
	if t, c := mt.firstTier(S); t != "" && len(c) == 1 {
		m.StartLine, m.EndLine = c[0]+1, c[0]+len(S)
	}
	return m
}

// planUnwrapped is the second try for a block whose SEARCH was not found
// (err): models sometimes wrap SEARCH or REPLACE, inside the block, in the
// block's file-name line or fence lines (see unwrap). Without the
// wrapping, the block is planned again; if that matches, it is reported as
// TierUnwrapped. A wrapped SEARCH that does not unwrap, or whose unwrapped
// text is not found either, gives err; an unwrapped text that is found
// twice or is already applied gives that error, which is the more precise.
func planUnwrapped(d *doc, i int, path string, S, R []string, err error) (plan, error) {
	var nm *NoMatchError
	if !errors.As(err, &nm) {
		return plan{}, err
	}
	S2, okS := unwrap(S, path)
	R2, okR := unwrap(R, path)
	if !okS || allBlank(S2) {
		return plan{}, err
	}
	if !okR {
		R2 = R
	}
	p, err2 := planBlock(newMatcher(d), i, S2, R2)
	switch {
	case err2 == nil:
		p.tier = TierUnwrapped
		return p, nil
	case errors.As(err2, &nm):
		return plan{}, err
	}
	return plan{}, err2
}

func (p plan) apply(d *doc) []byte {
	b := &builder{buf: make([]byte, 0, len(d.s)+64*len(p.out)), eol: d.eol}
	b.rawRange(d.s[:d.start[p.start]])
	for _, l := range p.out {
		b.line(l.text, l.eol)
	}
	b.rawRange(d.s[d.start[p.end]:])
	return b.finish(d.finalNL)
}

// planBlock finds where block i applies. S and R are its SEARCH and REPLACE
// lines.
func planBlock(mt *matcher, i int, S, R []string) (plan, error) {
	if allBlank(S) {
		return plan{}, fmt.Errorf("%s%w: SEARCH has no text; to insert, put the lines next to the insertion point in SEARCH and again, with the new lines, in REPLACE; to replace everything, use a rewrite", label("block", i), ErrEmptySearch)
	}
	if equalLines(S, R) {
		line := 0
		if t, c := mt.firstTier(S); t != "" && len(c) == 1 {
			line = c[0] + 1
		}
		return plan{}, &AlreadyAppliedError{Block: i, Line: line, NoOp: true}
	}
	// Tiers 1-3.
	if t, c := mt.firstTier(S); t != "" {
		// A match with other indentation is no better than one with the
		// right indentation and extra blank lines in SEARCH: if that is
		// elsewhere, the SEARCH text is ambiguous.
		if t == TierIndentation {
			for _, bm := range mt.blankTier(S, R) {
				if bm.tier != TierIndentation && bm.start != c[0] {
					c = append(c, bm.start)
				}
			}
		}
		if len(c) > 1 {
			return plan{}, ambiguous(i, t, c)
		}
		return mt.finish(i, t, t, c[0], c[0]+len(S), S, R)
	}
	// Tier 4: typographic quotes written for the file's ASCII ones.
	if Sq := mapLines(S, asciiQuotes); !equalLines(Sq, S) {
		if t, c := mt.firstTier(Sq); len(c) > 1 {
			return plan{}, ambiguous(i, TierQuotes, c)
		} else if t != "" {
			// REPLACE's quotes follow the file's convention: made ASCII
			// in a file that has no typographic quote, kept in one that
			// has them (prose where they may be meant).
			Rq := R
			if !mt.hasTypographicQuotes() {
				Rq = mapLines(R, asciiQuotes)
			}
			return mt.finish(i, TierQuotes, t, c[0], c[0]+len(S), Sq, Rq)
		}
	}
	// Tier 5: the same without SEARCH's extra blank lines.
	if bm := mt.blankTier(S, R); len(bm) > 1 {
		starts := make([]int, len(bm))
		for k, m := range bm {
			starts[k] = m.start
		}
		return plan{}, ambiguous(i, TierBlankLines, starts)
	} else if len(bm) == 1 {
		m := bm[0]
		return mt.finish(i, TierBlankLines, m.tier, m.start, m.end, m.S, m.R)
	}
	// Tier 6: `...` elision.
	p, detail, err := mt.elide(i, S, R)
	if err != nil || p.tier != "" {
		return p, err
	}
	// Not found: maybe it was applied already.
	if line, ok := mt.present(S, R); ok {
		return plan{}, &AlreadyAppliedError{Block: i, Line: line}
	}
	// Tier 7: fuzzy, without blank lines around SEARCH (and not with
	// `...` lines, which REPLACE would insert as text).
	lead, trail := blankEdges(S)
	S2 := S[lead : len(S)-trail]
	var fz fuzzyResult
	if !hasElision(S) {
		fz = mt.fuzzy(S2)
	}
	if len(fz.ambiguous) > 1 {
		return plan{}, ambiguous(i, TierFuzzy, fz.ambiguous)
	}
	if fz.ok {
		// The blank lines around SEARCH that the content has there too
		// are part of the match.
		kl, kt := mt.edgeBlanks(lead, trail, fz.start, fz.start+len(S2))
		S3 := S[lead-kl : len(S)-trail+kt]
		R3 := trimBlanks(R, lead-kl, trail-kt)
		start := fz.start - kl
		// A slip of characters, not of structure: the relative
		// indentation must agree.
		im, ok, why := mt.indentFor(start, S3, R3)
		if ok {
			return plan{tier: TierFuzzy, start: start, end: start + len(S3), out: mt.merge(start, S3, R3, im)}, nil
		}
		detail = why
		if why == "" {
			detail = fmt.Sprintf("lines %d-%d are close but indented differently relative to each other", fz.start+1, fz.start+len(S2))
		}
	}
	if fz.gaveUp && detail == "" {
		detail = "too many similar places for an approximate search"
	}
	return plan{}, mt.noMatch("block", i, S2, detail)
}

// finish plans the match of S at lines [start, end) found by rule ut
// (reported as tier t).
func (mt *matcher) finish(i int, t, ut Tier, start, end int, S, R []string) (plan, error) {
	var im *indentMap
	if ut == TierIndentation {
		var ok bool
		var why string
		if im, ok, why = mt.indentFor(start, S, R); !ok {
			return plan{}, mt.noMatch("block", i, S, why)
		}
	} else if line, ok := mt.insertedAround(S, R, start); ok {
		return plan{}, &AlreadyAppliedError{Block: i, Line: line, Around: true}
	}
	return plan{tier: t, start: start, end: end, out: mt.merge(start, S, R, im)}, nil
}

func allBlank(ls []string) bool {
	for _, l := range ls {
		if !isBlank(l) {
			return false
		}
	}
	return true
}

func ambiguous(i int, t Tier, starts []int) *AmbiguousError {
	lines := make([]int, len(starts))
	for k, s := range starts {
		lines[k] = s + 1
	}
	sort.Ints(lines)
	return &AmbiguousError{Kind: "block", Block: i, Tier: t, Lines: lines}
}

// insertedAround reports whether R (which is longer than S) is in the
// content exactly once, around the match of S at start: applying the block
// again would add its new lines a second time.
func (mt *matcher) insertedAround(S, R []string, start int) (int, bool) {
	if len(R) <= len(S) {
		return 0, false
	}
	for _, t := range []Tier{TierExact, TierTrailingWhitespace} {
		c := mt.find(t, R)
		if len(c) == 0 {
			continue
		}
		if len(c) == 1 && c[0] <= start && start+len(S) <= c[0]+len(R) {
			return c[0] + 1, true
		}
		return 0, false
	}
	return 0, false
}

// present reports whether REPLACE (without blank lines around it) is in
// the content exactly once, by the first three tiers.
func (mt *matcher) present(S, R []string) (int, bool) {
	if hasElision(S) {
		return 0, false
	}
	R2 := trimBlanks(R, len(R), len(R))
	if allBlank(R2) {
		return 0, false
	}
	if t, c := mt.firstTier(R2); t != "" && len(c) == 1 {
		return c[0] + 1, true
	}
	return 0, false
}
