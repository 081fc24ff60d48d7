package editor

import "strings"

// Codex's apply_patch envelope, as its models write it:
//
//	*** Begin Patch
//	*** Update File: src/app.py
//	@@ def main():
//	 context line
//	-old line
//	+new line
//	*** End Patch
//
// An Update File section's hunks are SEARCH/REPLACE blocks in another
// dress: a hunk's context and '-' lines are SEARCH, its context and '+'
// lines REPLACE, and the engine finds the place the same way (one place,
// or a refusal). So ParseBlocks takes them: one block per hunk, with the
// section's path. The text after "@@" (a line above the hunk that the
// model names as an anchor) is not used to place it, nor is "*** End of
// File"; a hunk that fits more than one place is ambiguous, as any block.
// What is not an edit of one existing file (Add File, Delete File, Move to)
// is refused with a message that says what lunad does instead.

// applyPatchStart is the index of the "*** Begin Patch" line, or -1.
func applyPatchStart(lines []string) int {
	for i, l := range lines {
		if strings.TrimSpace(l) == "*** Begin Patch" {
			return i
		}
	}
	return -1
}

// parseApplyPatch reads the envelope that starts at lines[begin].
func parseApplyPatch(lines []string, begin int) ([]Block, error) {
	var (
		blocks []Block
		path   string
		s, r   []string
		open   bool // the current hunk has a line
	)
	flush := func() {
		if open {
			blocks = append(blocks, Block{Path: path, Search: joinLines(s), Replace: joinLines(r)})
		}
		s, r, open = nil, nil, false
	}
	for i := begin + 1; i < len(lines); i++ {
		l := lines[i]
		switch t := strings.TrimSpace(l); {
		case t == "*** End Patch":
			flush()
			if len(blocks) == 0 {
				return nil, badBlocks(-1, i+1, "the apply_patch envelope has no hunk to apply; put the changed lines, with ' ', '-' and '+' in front, after *** Update File: PATH and @@")
			}
			return blocks, nil
		case strings.HasPrefix(l, "*** Update File:"):
			flush()
			path = strings.TrimSpace(strings.TrimPrefix(l, "*** Update File:"))
		case strings.HasPrefix(l, "*** Add File:"), strings.HasPrefix(l, "*** Delete File:"), strings.HasPrefix(l, "*** Move to:"):
			verb, _, _ := strings.Cut(strings.TrimPrefix(l, "*** "), ":")
			return nil, badBlocks(len(blocks), i+1, "apply_patch's %s is not an edit of this artifact; edit one existing artifact per call (create, move and archive artifacts with their own commands)", verb)
		case t == "*** End of File":
		case path == "":
			return nil, badBlocks(-1, i+1, "%q before the *** Update File: line that names the file", l)
		case strings.HasPrefix(l, "@@"):
			flush()
		case l == "":
			s, r, open = append(s, ""), append(r, ""), true
		case l[0] == ' ':
			s, r, open = append(s, l[1:]), append(r, l[1:]), true
		case l[0] == '-':
			s, open = append(s, l[1:]), true
		case l[0] == '+':
			r, open = append(r, l[1:]), true
		default:
			return nil, badBlocks(len(blocks), i+1, "%q in an apply_patch hunk: each line starts with ' ' (context), '-' (removed) or '+' (added)", l)
		}
	}
	return nil, badBlocks(-1, begin+1, "the apply_patch envelope has no *** End Patch line")
}
