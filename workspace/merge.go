package workspace

import (
	"bytes"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/editor"
	"github.com/lunad/lunad/gitstore"
)

// mergeStageWrite is the store's gitstore.Merger: how a stage's write
// computed from base lands on an artifact that a person (or another run)
// changed since. Its SEARCH/REPLACE edits are applied again to the content
// as it is now when they are the whole of the write (they take base to
// theirs) and each still matches exactly, at one place; otherwise the
// lines are merged three ways (editor.Merge3).
func mergeStageWrite(base, ours, theirs []byte, edits []lunad.Block) ([]byte, []int) {
	if out, ok := reapply(base, ours, theirs, edits); ok {
		return out, nil
	}
	merged, conflicts := editor.Merge3(base, ours, theirs)
	if len(conflicts) == 0 {
		return merged, nil
	}
	lines := make([]int, len(conflicts))
	for i, c := range conflicts {
		lines[i] = c.Line
	}
	return nil, lines
}

// maxReapplied bounds the edits applied again (under the workspace's
// write lock): a write with more is merged by lines.
const maxReapplied = 64

// reapply applies edits to ours when they take base to theirs exactly and
// each matches ours exactly.
func reapply(base, ours, theirs []byte, edits []lunad.Block) ([]byte, bool) {
	if len(edits) == 0 || len(edits) > maxReapplied {
		return nil, false
	}
	blocks := make([]editor.Block, len(edits))
	for i, e := range edits {
		blocks[i] = editor.Block{Search: e.Search, Replace: e.Replace}
	}
	if r, err := editor.ApplyBlocks(base, blocks); err != nil || !bytes.Equal(r.Content, theirs) {
		return nil, false // the edits are not the whole of the write
	}
	r, err := editor.ApplyBlocks(ours, blocks)
	if err != nil {
		return nil, false
	}
	for _, m := range r.Matches {
		if m.Tier != editor.TierExact {
			return nil, false
		}
	}
	return r.Content, true
}

// withMerge is opts with the stage-write merger set.
func withMerge(opts gitstore.Options) gitstore.Options {
	if opts.Merge == nil {
		opts.Merge = mergeStageWrite
	}
	return opts
}
