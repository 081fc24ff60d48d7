package editor

import (
	"fmt"
	"strings"
)

const diffContext = 3

// Diff returns a unified diff from a to b in git's style: "--- a/oldName"
// and "+++ b/newName" headers, hunks with 3 lines of context and
// "@@ -start,count +start,count @@" headers (",1" left out), and
// "\ No newline at end of file" after a last line without a newline. Lines
// are compared with their endings, so a CRLF/LF change is a change; a
// line's CR is printed as part of it. It returns "" when a and b are equal.
// ApplyPatch(a, Diff(oldName, newName, a, b)) == b for all UTF-8 a and b.
func Diff(oldName, newName string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	da, db := newDoc(a), newDoc(b)
	ra, rb := rawLines(da), rawLines(db)
	ia, ib := intern(ra, rb)
	pairs := lcs(ia, ib)
	// Sentinel pair past both ends closes the last gap.
	pairs = append(pairs, [2]int{len(ra), len(rb)})

	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", oldName, newName)
	// An edit is a gap between matched pairs: old lines [a0,a1), new [b0,b1).
	type edit struct{ a0, a1, b0, b1 int }
	var edits []edit
	pa, pb := 0, 0
	for _, p := range pairs {
		if p[0] > pa || p[1] > pb {
			edits = append(edits, edit{pa, p[0], pb, p[1]})
		}
		pa, pb = p[0]+1, p[1]+1
	}
	for i := 0; i < len(edits); {
		// Group edits whose context would touch or overlap.
		j := i
		for j+1 < len(edits) && edits[j+1].a0-edits[j].a1 <= 2*diffContext {
			j++
		}
		first, last := edits[i], edits[j]
		a0 := max(first.a0-diffContext, 0)
		b0 := first.b0 - (first.a0 - a0)
		a1 := min(last.a1+diffContext, len(ra))
		b1 := last.b1 + (a1 - last.a1)
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(a0, a1-a0), hunkRange(b0, b1-b0))
		ka := a0
		for _, e := range edits[i : j+1] {
			for ; ka < e.a0; ka++ {
				writeLine(&out, ' ', ra[ka])
			}
			for k := e.a0; k < e.a1; k++ {
				writeLine(&out, '-', ra[k])
			}
			for k := e.b0; k < e.b1; k++ {
				writeLine(&out, '+', rb[k])
			}
			ka = e.a1
		}
		for ; ka < a1; ka++ {
			writeLine(&out, ' ', ra[ka])
		}
		i = j + 1
	}
	return out.String()
}

// rawLines is every line of d with its ending.
func rawLines(d *doc) []string {
	out := make([]string, len(d.lines))
	for i := range out {
		out[i] = d.raw(i)
	}
	return out
}

// hunkRange formats a hunk side: "start,count", "start" for one line, and
// for no lines the line before them ("3,0", or "0,0" at the top).
func hunkRange(start, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}

func writeLine(out *strings.Builder, prefix byte, raw string) {
	out.WriteByte(prefix)
	out.WriteString(raw)
	if !strings.HasSuffix(raw, "\n") {
		out.WriteString("\n\\ No newline at end of file\n")
	}
}
