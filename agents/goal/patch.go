package goal

import (
	"fmt"
	"strconv"
	"strings"
)

// filePatch is one file's part of a unified diff over several files.
type filePatch struct {
	Path    string // the file, relative to the workspace root
	Created bool   // "--- /dev/null"
	Text    string // its headers and hunks, as editor.ApplyPatch reads them
	Line    int    // the 1-based line of the patch where it starts
}

// splitPatch cuts a unified diff into its files, at each "--- "/"+++ "
// header pair (a "diff --git" line before one is left out); a header pair
// inside a hunk whose @@ line counts its lines is hunk content, as git
// reads it, unless an @@ line follows it (a model's counts are often
// wrong). Paths lose git's a/ and b/ prefixes and any timestamp.
// Errors (wrapping lunad.ErrInvalid via the caller) say what to write:
// hunks before any header, a file deleted or renamed, a file twice.
func splitPatch(patch string) ([]filePatch, error) {
	lines := strings.Split(strings.ReplaceAll(patch, "\r\n", "\n"), "\n")
	var out []filePatch
	var cur *filePatch
	var body []string
	flush := func() {
		if cur != nil {
			cur.Text = strings.Join(body, "\n") + "\n"
			out = append(out, *cur)
		}
		cur, body = nil, nil
	}
	oldLeft, newLeft := 0, 0 // lines left in the current hunk, when its header counts them
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		header := strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ")
		if header && i+2 < len(lines) && strings.HasPrefix(lines[i+2], "@@") {
			oldLeft, newLeft = 0, 0 // a header, whatever the last hunk's counts said
		}
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case strings.HasPrefix(l, "-"):
				oldLeft--
			case strings.HasPrefix(l, "+"):
				newLeft--
			case strings.HasPrefix(l, `\`):
			default:
				oldLeft--
				newLeft--
			}
			body = append(body, l)
			continue
		}
		switch {
		case header:
			flush()
			from, to := headerPath(l[4:]), headerPath(lines[i+1][4:])
			from, to = stripPrefixes(from, to)
			switch {
			case to == "":
				return nil, fmt.Errorf("the patch deletes %s (line %d): a goal does not delete files; empty it with write_file if it must go", from, i+1)
			case from != "" && from != to:
				return nil, fmt.Errorf("the patch renames %s to %s (line %d): renames are not done; write the new file with write_file", from, to, i+1)
			}
			for _, f := range out {
				if f.Path == to {
					return nil, fmt.Errorf("the patch changes %s twice (line %d): give each file's hunks once, under one header", to, i+1)
				}
			}
			cur = &filePatch{Path: to, Created: from == "", Line: i + 1}
			body = []string{l, lines[i+1]}
			i++
		case strings.HasPrefix(l, "diff --git "):
			flush()
		case strings.HasPrefix(l, "@@"):
			if cur == nil {
				return nil, fmt.Errorf("hunk at line %d comes before any file header: start each file's hunks with the lines --- a/PATH and +++ b/PATH", i+1)
			}
			oldLeft, newLeft = hunkCounts(l)
			body = append(body, l)
		default:
			if cur != nil {
				body = append(body, l)
			}
		}
	}
	flush()
	if len(out) == 0 {
		return nil, fmt.Errorf("the patch names no file: a unified diff has --- a/PATH and +++ b/PATH lines, then @@ hunks")
	}
	return out, nil
}

// headerPath is the path of a ---/+++ header ("" for /dev/null).
func headerPath(s string) string {
	s, _, _ = strings.Cut(s, "\t")
	s = strings.TrimSpace(s)
	if s == "/dev/null" {
		return ""
	}
	return s
}

// stripPrefixes drops git's a/ and b/ prefixes when both sides have
// them (or the one side a created or deleted file has).
func stripPrefixes(from, to string) (string, string) {
	fa := from == "" || strings.HasPrefix(from, "a/")
	tb := to == "" || strings.HasPrefix(to, "b/")
	if fa && tb && !(from == "" && to == "") {
		from, to = strings.TrimPrefix(from, "a/"), strings.TrimPrefix(to, "b/")
	}
	return from, to
}

// hunkCounts reads the line counts of "@@ -a,b +c,d @@" (0, 0 when the
// header gives none: the hunk is then read up to the next header).
func hunkCounts(l string) (int, int) {
	f := strings.Fields(strings.TrimPrefix(l, "@@"))
	if len(f) < 2 || !strings.HasPrefix(f[0], "-") || !strings.HasPrefix(f[1], "+") {
		return 0, 0
	}
	count := func(r string) int {
		_, c, ok := strings.Cut(r[1:], ",")
		if !ok {
			return 1
		}
		n, err := strconv.Atoi(c)
		if err != nil || n < 0 {
			return 0
		}
		return n
	}
	return count(f[0]), count(f[1])
}
