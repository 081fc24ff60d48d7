package gitstore

import (
	"bytes"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lunad/lunad"
)

// A stage's write computed from an older version of its artifact: the
// content the stage read is its Base, and when the artifact moved since —
// a person's save the watcher recorded, another run's stage — the write is
// merged into the artifact as it is now rather than put over it, so that
// nothing a person typed is overwritten by an agent. The store does not
// merge text itself (Options.Merge does, the service gives it the edit
// engine's); without a merger every moved artifact is a conflict.

// Merger merges a stage's write: base is the content it was computed from,
// ours the artifact's content now, theirs the write's content, edits the
// SEARCH/REPLACE edits that took base to theirs (none for a rewrite). It
// returns the merged content, or the 1-based lines of ours where the two
// changes conflict (then merged is ignored). It must be a pure function of
// its arguments: a resumed commit merges again and must get the same.
type Merger func(base, ours, theirs []byte, edits []lunad.Block) (merged []byte, conflicts []int)

// mergeWrite is the content to commit for write wr of existing artifact
// id, whose content now is cur: wr's content when it names no base or
// the artifact has not moved since its base, else the merge. A base that
// is not a commit holding the artifact is ErrInvalid; a conflicting merge
// a *lunad.MergeConflictError.
func (t *txn) mergeWrite(id string, cur []byte, wr lunad.StageWrite) ([]byte, error) {
	theirs := []byte(wr.Content)
	if wr.Base == "" {
		return theirs, nil
	}
	base, err := t.baseContent(id, wr.Base)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", wr.Path, err)
	}
	if bytes.Equal(base, cur) {
		return theirs, nil
	}
	if bytes.Equal(base, theirs) {
		return cur, nil // the stage did not change it: what is there stays
	}
	var now string
	if e := t.s.latest(id); e != nil {
		now = e.Commit
	}
	var conflicts []int
	merged := cur
	if t.s.opts.Merge == nil {
		conflicts = []int{1}
	} else {
		merged, conflicts = t.s.opts.Merge(base, cur, theirs, wr.Edits)
	}
	if len(conflicts) > 0 {
		return nil, &lunad.MergeConflictError{Path: wr.Path, Base: wr.Base, Current: now, Lines: conflicts}
	}
	if err := t.s.checkContent(merged); err != nil {
		return nil, fmt.Errorf("%s: the merge of the stage's write with the current content: %w", wr.Path, err)
	}
	return merged, nil
}

// baseContent is artifact id's content at commit base, found by its ID
// wherever it was then.
func (t *txn) baseContent(id, base string) ([]byte, error) {
	if !plumbing.IsHash(base) {
		return nil, fmt.Errorf("%w: the write's base %q is not a commit hash", lunad.ErrInvalid, base)
	}
	root, err := t.s.treeOf(plumbing.NewHash(base))
	if err != nil {
		return nil, fmt.Errorf("%w: the write's base %.12s is not a commit of this repository", lunad.ErrInvalid, base)
	}
	mb, _, err := t.s.readFile(root, metaPath(id))
	if err != nil {
		return nil, fmt.Errorf("%w: artifact %s does not exist at the write's base %.12s", lunad.ErrInvalid, id, base)
	}
	m, err := decodeMeta(mb)
	if err != nil {
		return nil, err
	}
	b, _, err := t.s.readFile(root, m.Path)
	if err != nil {
		return nil, fmt.Errorf("%w: artifact %s has no content at the write's base %.12s", lunad.ErrInvalid, id, base)
	}
	return b, nil
}
