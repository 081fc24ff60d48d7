package goal

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/goal/tree"
	"github.com/lunad/lunad/agents/policy"
	"github.com/lunad/lunad/editor"
)

// Limits of the file tools.
const (
	readLines   = 400      // lines of one read_artifact
	readBytes   = 48 << 10 // bytes of one read_artifact
	listEntries = 200      // entries of a directory listed
	searchHits  = 50       // lines search shows
	searchFile  = 1 << 20  // files larger are not searched
	maxWrite    = 1 << 20  // a file a step writes
	maxUndo     = 64 << 10 // an undo diff kept for the report
	maxRead     = 8 << 20  // a file the file tools read whole
)

// read is read_artifact: a file's lines, numbered, or a directory's
// entries.
func (x *executor) read(a readArgs, e *effect) {
	rel, _, err := resolve(x.dir, a.Path, false)
	if err != nil {
		e.fail("read_artifact: %v", err)
		return
	}
	info, err := x.root.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		e.fail("read_artifact: there is no %s in the workspace; list a directory (read_artifact with its path, \".\" for the root) or search for it", rel)
		return
	case err != nil:
		e.fail("read_artifact: %v", err)
		return
	case info.Mode.IsDir():
		x.list(rel, e)
		return
	case info.Mode&fs.ModeSymlink != 0:
		e.fail("read_artifact: %s is a symbolic link; lunad does not follow links in a goal's worktree", rel)
		return
	}
	data, _, err := x.root.ReadFile(rel, maxRead)
	if err != nil {
		e.fail("read_artifact: %v", err)
		return
	}
	if !isText(data) {
		e.fail("read_artifact: %s is not text (%d bytes of binary data)", rel, len(data))
		return
	}
	ls := strings.SplitAfter(string(data), "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	from, to := max(a.Start, 1), a.End
	if to < 1 || to > len(ls) {
		to = len(ls)
	}
	if from > len(ls) && len(ls) > 0 {
		e.fail("read_artifact: %s has %d lines; start_line %d is past its end", rel, len(ls), from)
		return
	}
	var b strings.Builder
	n := 0
	last := from - 1
	for i := from; i <= to && n < readLines && b.Len() < readBytes; i++ {
		fmt.Fprintf(&b, "%5d| %s", i, ls[i-1])
		if !strings.HasSuffix(ls[i-1], "\n") {
			b.WriteString("\n")
		}
		n, last = n+1, i
	}
	head := fmt.Sprintf("%s: lines %d-%d of %d", rel, min(from, last), last, len(ls))
	if last < to {
		head += fmt.Sprintf(" (read on with start_line %d)", last+1)
	}
	e.Observation.Status, e.Observation.Output = statusOK, head+"\n"+b.String()
}

// list lists a directory's entries as git would track them.
func (x *executor) list(rel string, e *effect) {
	entries, err := x.root.ReadDir(rel, maxEntries)
	if err != nil {
		e.fail("read_artifact: %v", err)
		return
	}
	slices.SortFunc(entries, func(a, b tree.Entry) int { return strings.Compare(a.Name, b.Name) })
	var names []string
	for _, d := range entries {
		switch {
		case d.Name == ".git" || (rel == "." && d.Name == ".luna"):
			continue
		case d.Info.Mode.IsDir():
			names = append(names, d.Name+"/")
		case d.Info.Mode&fs.ModeSymlink != 0:
			names = append(names, d.Name+" (a symbolic link, not followed)")
		default:
			names = append(names, d.Name)
		}
	}
	more := ""
	if len(names) > listEntries {
		more = fmt.Sprintf("\n… and %d more", len(names)-listEntries)
		names = names[:listEntries]
	}
	e.Observation.Status = statusOK
	e.Observation.Output = fmt.Sprintf("%s is a directory of %d entries:\n%s%s", rel, len(entries), strings.Join(names, "\n"), more)
}

// search is search: text over the worktree's files, or symbols through
// the workspace's index.
func (x *executor) search(a searchArgs, e *effect) {
	q := strings.TrimSpace(a.Query)
	if q == "" {
		e.fail("search: the query is empty: give a word or a name to look for")
		return
	}
	if a.Kind == "symbol" {
		x.symbols(q, e)
		return
	}
	lq := strings.ToLower(q)
	var hits []string
	total, files := 0, 0
	err := walk(x.root, func(rel string, info tree.Info) error {
		if !info.Mode.IsRegular() || info.Size > searchFile || x.hidden(rel) {
			return nil
		}
		data, _, err := x.root.ReadFile(rel, searchFile)
		if err != nil || !isText(data) || !strings.Contains(strings.ToLower(string(data)), lq) {
			return nil
		}
		files++
		for i, l := range strings.Split(string(data), "\n") {
			if strings.Contains(strings.ToLower(l), lq) {
				if total++; len(hits) < searchHits {
					hits = append(hits, fmt.Sprintf("%s:%d: %s", rel, i+1, clipLine(strings.TrimSpace(l), 200)))
				}
			}
		}
		return x.ctx.Err()
	}, nil)
	if err != nil {
		e.fail("search: %v", err)
		return
	}
	e.Observation.Status = statusOK
	if total == 0 {
		e.Observation.Output = fmt.Sprintf("no line of the workspace's files contains %q", q)
		return
	}
	out := fmt.Sprintf("%s in %s contain %q", count(total, "line"), count(files, "file"), q)
	if total > len(hits) {
		out += fmt.Sprintf(" (the first %d shown; search for something narrower)", len(hits))
	}
	e.Observation.Output = out + ":\n" + strings.Join(hits, "\n")
}

func (x *executor) symbols(q string, e *effect) {
	if x.a.o.Symbols == nil {
		e.fail("search: symbol search is not available here; search with kind \"text\"")
		return
	}
	hits, err := x.a.o.Symbols.SearchSymbols(x.ctx, q, 30)
	if err != nil {
		e.fail("search: %v", err)
		return
	}
	hits = slices.DeleteFunc(hits, func(h lunad.SymbolHit) bool { return x.hidden(h.Path) })
	e.Observation.Status = statusOK
	if len(hits) == 0 {
		e.Observation.Output = fmt.Sprintf("no definition's name contains %q (search with kind \"text\" for other uses)", q)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d definitions (lines as of the goal's start; read the file for its lines now):", len(hits))
	for _, h := range hits {
		fmt.Fprintf(&b, "\n%s:%d: %s %s", h.Path, h.Symbol.Span.Start.Line+1, h.Symbol.Kind, h.Symbol.Name)
		if h.Symbol.Container != "" {
			fmt.Fprintf(&b, " (in %s)", h.Symbol.Container)
		}
	}
	e.Observation.Output = b.String()
}

// pending is one file a step is about to write.
type pending struct {
	rel     string
	before  []byte
	existed bool
	after   []byte
}

// current reads the file at rel for a write: its content and whether it
// exists.
func (x *executor) current(rel string) ([]byte, bool, error) {
	info, err := x.root.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	case info.Mode.IsDir():
		return nil, true, fmt.Errorf("%s is a directory", rel)
	case info.Mode&fs.ModeSymlink != 0:
		return nil, true, fmt.Errorf("%s is a symbolic link; lunad does not follow links in a goal's worktree (write the file it names by its own path)", rel)
	}
	b, _, err := x.root.ReadFile(rel, maxRead)
	if err == nil && !isText(b) {
		return nil, true, fmt.Errorf("%s is not text: a goal changes text files only", rel)
	}
	return b, true, err
}

// edit is edit_artifact, through the edit engine (its errors carry the
// closest lines).
func (x *executor) edit(a editArgs, e *effect) {
	rel, _, err := resolve(x.dir, a.Path, true)
	if err != nil {
		e.fail("edit_artifact: %v", err)
		return
	}
	content, existed, err := x.current(rel)
	switch {
	case err != nil:
		e.fail("edit_artifact: %v", err)
		return
	case !existed:
		e.fail("edit_artifact: there is no %s in the workspace; create it with write_file", rel)
		return
	}
	blocks := make([]editor.Block, len(a.Blocks))
	for i, b := range a.Blocks {
		blocks[i] = editor.Block{Search: b.Search, Replace: b.Replace}
	}
	res, err := editor.ApplyBlocks(content, blocks)
	if err != nil {
		e.fail("edit_artifact %s not applied (nothing changed): %v", rel, err)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "edited %s:", rel)
	for _, m := range res.Matches {
		fmt.Fprintf(&b, " block %d at lines %d-%d (%s);", m.Block+1, m.StartLine, m.EndLine, m.Tier)
	}
	x.commit([]pending{{rel: rel, before: content, existed: true, after: res.Content}}, b.String(), e)
}

// patch is apply_patch: every file's hunks are checked before anything
// is written.
func (x *executor) patch(a patchArgs, e *effect) {
	files, err := splitPatch(a.Patch)
	if err != nil {
		e.fail("apply_patch not applied (nothing was written): %v", err)
		return
	}
	var ps []pending
	var b strings.Builder
	b.WriteString("patched")
	for _, f := range files {
		rel, _, err := resolve(x.dir, f.Path, true)
		if err != nil {
			e.fail("apply_patch not applied (nothing was written): %v", err)
			return
		}
		content, existed, err := x.current(rel)
		switch {
		case err != nil:
			e.fail("apply_patch not applied (nothing was written): %v", err)
			return
		case f.Created && existed:
			e.fail("apply_patch not applied (nothing was written): the patch creates %s (--- /dev/null, line %d), which exists; patch it as it is", rel, f.Line)
			return
		case !f.Created && !existed:
			e.fail("apply_patch not applied (nothing was written): there is no %s (the patch's line %d); create a file with --- /dev/null, or with write_file", rel, f.Line)
			return
		}
		res, err := editor.ApplyPatch(content, f.Text)
		if err != nil {
			e.fail("apply_patch not applied (nothing was written): %s (from the patch's line %d): %v", rel, f.Line, err)
			return
		}
		fmt.Fprintf(&b, " %s (%d hunks);", rel, len(res.Matches))
		ps = append(ps, pending{rel: rel, before: content, existed: existed, after: res.Content})
	}
	x.commit(ps, b.String(), e)
}

// write is write_file.
func (x *executor) write(a writeArgs, e *effect) {
	rel, _, err := resolve(x.dir, a.Path, true)
	if err != nil {
		e.fail("write_file: %v", err)
		return
	}
	content, existed, err := x.current(rel)
	if err != nil {
		e.fail("write_file: %v", err)
		return
	}
	verb := "wrote"
	if !existed {
		verb = "created"
	}
	x.commit([]pending{{rel: rel, before: content, existed: existed, after: []byte(a.Content)}}, fmt.Sprintf("%s %s:", verb, rel), e)
}

// commit makes ps the step's writes, each with the diff that undoes it,
// or fails the step (nothing written) when one cannot be written.
func (x *executor) commit(ps []pending, said string, e *effect) {
	what := strings.TrimSuffix(said, ":")
	changed := 0
	for _, p := range ps {
		switch {
		case !isText(p.after):
			e.fail("%s: %s would not be text (a NUL byte or invalid UTF-8); nothing was written", what, p.rel)
			return
		case len(p.after) > maxWrite:
			e.fail("%s: %s would be %d bytes, over the %d a step may write; nothing was written", what, p.rel, len(p.after), maxWrite)
			return
		}
		if p.existed && string(p.before) == string(p.after) {
			continue
		}
		changed++
	}
	if changed == 0 {
		e.fail("%s: nothing changed: the new content is the file's content already", what)
		return
	}
	for _, p := range ps {
		if p.existed && string(p.before) == string(p.after) {
			continue
		}
		e.Writes = append(e.Writes, lunad.StageWrite{Path: p.rel, Content: string(p.after)})
		e.Changes = append(e.Changes, newChange(x.step, p))
		e.Observation.Files = append(e.Observation.Files, p.rel)
	}
	slices.Sort(e.Observation.Files)
	var b strings.Builder
	b.WriteString(said)
	for _, c := range e.Changes {
		fmt.Fprintf(&b, " %s +%d -%d;", c.Path, c.Added, c.Removed)
	}
	b.WriteString(" committed as this step")
	e.Observation.Status, e.Observation.Output = statusOK, b.String()
}

// newChange is p as the state keeps it: its line counts and its undo.
func newChange(step int, p pending) change {
	c := change{Step: step, Path: p.rel, Created: !p.existed}
	undo := editor.Diff(p.rel, p.rel, p.after, p.before)
	for _, l := range strings.Split(undo, "\n") {
		switch {
		case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "):
		case strings.HasPrefix(l, "-"):
			c.Added++
		case strings.HasPrefix(l, "+"):
			c.Removed++
		}
	}
	if len(undo) > maxUndo {
		c.Lost = true
	} else {
		c.Undo = undo
	}
	return c
}

// absorb turns what a command changed in the worktree into the step's
// writes: each text file it created or changed is put back as it was
// and written by the engine (so the branch's commit is the step's); what
// cannot be committed (binary, too large, a symbolic link, a FIFO or a
// device, a file with another name elsewhere, a deletion) or what the
// policy's write rules deny (a dotfile, a CI config, a [[deny]] writes
// path: the built-in rules and the workspace's, checked on every path as
// if written by write_file, a confirm rule asked) is undone where it can
// be, and said in a note; a denial is the step's.
func (x *executor) absorb(before *snapshot, who string, e *effect) {
	after, err := snap(x.root)
	if err != nil {
		e.Notes = append(e.Notes, fmt.Sprintf("what %s changed cannot be followed: %v", who, err))
		return
	}
	var ps []pending
	for _, c := range before.changesTo(after) {
		why := ""
		switch {
		case c.After == nil:
			why = fmt.Sprintf("deleted %s; a goal does not delete files yet", c.Path)
		case c.After.Link || (c.Before != nil && c.Before.Link):
			why = fmt.Sprintf("made %s a symbolic link, which a goal does not commit (lunad does not follow it)", c.Path)
		case c.After.Special:
			why = fmt.Sprintf("made %s a %s, which a goal does not commit (lunad does not open it)", c.Path, c.After.Hash)
		case c.After.Links > 1:
			why = fmt.Sprintf("made %s a file with %d names (a hard link, maybe to a file outside the worktree), which a goal does not commit", c.Path, c.After.Links)
		case !c.After.Kept:
			why = fmt.Sprintf("made %s %d bytes, over the %d a step may write", c.Path, c.After.Size, maxWrite)
		case !isText(c.After.Content):
			why = fmt.Sprintf("wrote binary data to %s, which a goal does not commit (build into a directory .gitignore lists)", c.Path)
		}
		if why == "" {
			if d := x.writeRule(c.Path); d.Verdict != policy.Allow {
				msg := d.Message()
				why = fmt.Sprintf("wrote %s, denied by the write rules (%s)", c.Path, msg)
				if e.Denial == nil {
					e.Observation.Rule = d.Rule
					e.Denial = &lunad.GoalDenial{Step: x.step, Tool: ToolRun, Rule: d.Rule, Message: fmt.Sprintf("%s wrote %s: %s", who, c.Path, msg)}
				}
			}
		}
		if why == "" && c.Before != nil && !c.Before.Kept {
			// The old content was not kept: the change stays in the
			// worktree, and is committed as it is.
			ps = append(ps, pending{rel: c.Path, existed: true, after: c.After.Content})
			continue
		}
		if err := before.undo(x.root, c); err != nil {
			e.Notes = append(e.Notes, fmt.Sprintf("%s changed %s and it could not be undone (%v): it stays changed in the worktree, not on the branch", who, c.Path, err))
			continue
		}
		if why != "" {
			e.Notes = append(e.Notes, fmt.Sprintf("%s %s: it was undone", who, why))
			continue
		}
		p := pending{rel: c.Path, after: c.After.Content}
		if c.Before != nil {
			p.before, p.existed = c.Before.Content, true
		}
		ps = append(ps, p)
	}
	for _, p := range ps {
		if len(e.Writes) > 0 && totalWrites(e.Writes)+len(p.after) > 8*maxWrite {
			e.Notes = append(e.Notes, fmt.Sprintf("%s changed more than %d bytes of files; its change to %s is left out of the step and undone", who, 8*maxWrite, p.rel))
			continue
		}
		e.Writes = append(e.Writes, lunad.StageWrite{Path: p.rel, Content: string(p.after)})
		e.Changes = append(e.Changes, newChange(x.step, p))
		e.Observation.Files = append(e.Observation.Files, p.rel)
	}
}

// writeRule is the policy's decision on a write to rel (a path a
// command or the tests changed), a confirm rule asked.
func (x *executor) writeRule(rel string) policy.Decision {
	a := policy.Action{Tool: ToolWrite, Paths: []string{rel}, Writes: true}
	return policy.Ask(x.a.o.Confirm, a, x.a.o.Policy.Check(x.dir, a))
}

func totalWrites(ws []lunad.StageWrite) int {
	n := 0
	for _, w := range ws {
		n += len(w.Content)
	}
	return n
}
