package editor

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestApplyRandomized makes thousands of files and edits from a small
// vocabulary (so that lines repeat), damages SEARCH the ways the tiers are
// meant to repair, and checks that every edit is either exactly the
// intended one or refused: never a wrong edit. It also checks that the
// repairs do happen for most cases.
func TestApplyRandomized(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	vocab := []string{"alpha()", "beta := compute(x)", "if x > 0 {", "}", "return y", "gamma(a, b)", "delta", "// note", "", "for i := range items {"}
	damages := []string{"none", "trailing", "dedent", "spaces", "blank", "elide", "slip", "dedent+blank", "trailing+slip"}
	applied, tried := map[string]int{}, map[string]int{}
cases:
	for n := range 4000 {
		tabs := rng.IntN(2) == 0
		unit := "\t"
		if !tabs {
			unit = "    "
		}
		var lines []string
		for i := range 8 + rng.IntN(30) {
			w := vocab[rng.IntN(len(vocab))]
			if w != "" && rng.IntN(3) > 0 {
				w = fmt.Sprintf("%s // %d", w, i) // mostly unique
			}
			if w != "" {
				w = strings.Repeat(unit, 1+rng.IntN(3)) + w
			}
			lines = append(lines, w)
		}
		L := 2 + rng.IntN(5)
		if L > len(lines) {
			continue
		}
		s := rng.IntN(len(lines) - L + 1)
		block := lines[s : s+L]
		if len(norm(block)) == 0 || len(windows(norm(lines), norm(block), nil)) != 1 {
			continue // not a unique block: no right answer to check against
		}
		newBlock := append([]string{}, block...)
		k := rng.IntN(L)
		ind := leading(block[k])
		if block[k] == "" { // indent a line put in place of a blank one like the block
			ind = leading(strings.TrimLeft(text(block), "\n"))
		}
		newBlock[k] = ind + fmt.Sprintf("changed(%d)", n)
		want := text(append(append(append([]string{}, lines[:s]...), newBlock...), lines[s+L:]...))
		search, replace := block, newBlock
		damage := damages[rng.IntN(len(damages))]
		for _, d := range strings.Split(damage, "+") {
			block := search
			switch d {
			case "trailing":
				search = mapLines(block, func(l string) string { return l + "  " })
			case "dedent":
				search, replace = mapLines(block, dedent(unit)), mapLines(newBlock, dedent(unit))
			case "spaces":
				sp := func(l string) string { return strings.ReplaceAll(leading(l), "\t", "  ") + strings.TrimLeft(l, " \t") }
				search, replace = mapLines(block, sp), mapLines(newBlock, sp)
			case "blank":
				// A blank line where the content has none (else it is no
				// damage: SEARCH and REPLACE would just differ by it).
				at := rng.IntN(L + 1)
				if at > 0 && block[at-1] == "" || at < L && block[at] == "" || at == 0 && s > 0 && lines[s-1] == "" || at == L && s+L < len(lines) && lines[s+L] == "" {
					continue cases
				}
				search = append(append(append([]string{}, block[:at]...), ""), block[at:]...)
			case "elide":
				if L < 4 || k == 1 || k == 2 {
					continue cases
				}
				search = append([]string{block[0], "..."}, block[3:]...)
				replace = append([]string{newBlock[0], "..."}, newBlock[3:]...)
			case "slip":
				j := rng.IntN(L)
				if len(strings.TrimSpace(block[j])) < 8 {
					continue cases
				}
				search = append([]string{}, block...)
				search[j] = search[j][:len(search[j])-1] + "#"
			}
		}
		if damage != "none" && len(windows(lines, search, nil)) > 0 {
			continue // the damage made it another place's exact text
		}
		content := text(lines)
		switch rng.IntN(4) {
		case 0:
			content, want = strings.ReplaceAll(content, "\n", "\r\n"), strings.ReplaceAll(want, "\n", "\r\n")
		case 1: // (a last line that is empty would just be lost)
			if lines[len(lines)-1] != "" && (s+L < len(lines) || newBlock[L-1] != "") {
				content, want = strings.TrimSuffix(content, "\n"), strings.TrimSuffix(want, "\n")
			}
		}
		tried[damage]++
		r, err := ApplyBlocks([]byte(content), []Block{{Search: text(search), Replace: text(replace)}})
		if err != nil {
			if !errors.Is(err, ErrNoMatch) && !errors.Is(err, ErrAmbiguous) {
				t.Fatalf("case %d (%s): unexpected error %v", n, damage, err)
			}
			continue
		}
		if string(r.Content) != want {
			t.Fatalf("case %d (%s): wrong edit (%+v)\ncontent:\n%s\nsearch:\n%s\nreplace:\n%s\ngot:\n%s\nwant:\n%s",
				n, damage, r.Matches, content, text(search), text(replace), r.Content, want)
		}
		applied[damage]++
	}
	t.Logf("applied/tried by damage: %v / %v", applied, tried)
	for _, d := range damages {
		if applied[d] < 50 {
			t.Errorf("only %d edits with damage %q applied", applied[d], d)
		}
	}
}

func text(ls []string) string { return strings.Join(ls, "\n") + "\n" }

// norm is the lines without blank ones, trimmed.
func norm(ls []string) []string {
	var out []string
	for _, l := range ls {
		if t := strings.TrimSpace(l); t != "" {
			out = append(out, t)
		}
	}
	return out
}

func dedent(unit string) func(string) string {
	return func(l string) string { return strings.TrimPrefix(l, unit) }
}
