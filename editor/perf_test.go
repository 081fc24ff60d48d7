package editor

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// bigFile is an n-line Go-like file of varied lines (a fixed pseudo-random
// choice of words), like real code.
func bigFile(n int) []byte {
	words := strings.Fields("alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega " +
		"config request handler buffer stream parse render index cursor token writer reader cache")
	seed := uint32(12345)
	next := func(k int) int {
		seed = seed*1664525 + 1013904223
		return int(seed>>8) % k
	}
	var b strings.Builder
	for i := 0; i < n; i++ {
		switch next(6) {
		case 0:
			b.WriteString("\n")
		case 1:
			fmt.Fprintf(&b, "func %s%s(%s %s) error {\n", words[next(len(words))], words[next(len(words))], words[next(len(words))], words[next(len(words))])
		case 2:
			b.WriteString("\t}\n")
		default:
			fmt.Fprintf(&b, "\t%s := %s.%s(%s, %d)\n", words[next(len(words))], words[next(len(words))], words[next(len(words))], words[next(len(words))], next(1000))
		}
	}
	return []byte(b.String())
}

// blockAt returns lines [from, from+n) of content as text.
func blockAt(content []byte, from, n int) string {
	lines := strings.SplitAfter(string(content), "\n")
	return strings.Join(lines[from:from+n], "")
}

func perfCases() map[string]struct {
	content []byte
	block   Block
	tier    Tier
} {
	big := bigFile(5000)
	search := blockAt(big, 4000, 10)
	i := strings.Index(search, ":=")
	slipped := search[:i] + "=:" + search[i+2:]
	return map[string]struct {
		content []byte
		block   Block
		tier    Tier
	}{
		"exact":       {big, Block{Search: search, Replace: strings.ToUpper(search)}, TierExact},
		"indentation": {big, Block{Search: strings.ReplaceAll(search, "\t", "    "), Replace: "x\n"}, TierIndentation},
		"fuzzy":       {big, Block{Search: slipped, Replace: "x\n"}, TierFuzzy},
	}
}

func BenchmarkApplyBlocks(b *testing.B) {
	for name, c := range perfCases() {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := ApplyBlocks(c.content, []Block{c.block}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("no-match", func(b *testing.B) {
		big := bigFile(5000)
		for b.Loop() {
			ApplyBlocks(big, []Block{{Search: "nothing like this\nis in the file at all\n", Replace: "x\n"}})
		}
	})
}

// TestPerformance checks the time budgets loosely (10x the targets: 1 ms
// exact, 50 ms fuzzy on 5,000 lines), so that a slow machine does not fail.
func TestPerformance(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	budget := map[Tier]time.Duration{TierExact: 10 * time.Millisecond, TierIndentation: 100 * time.Millisecond, TierFuzzy: 500 * time.Millisecond}
	for name, c := range perfCases() {
		t.Run(name, func(t *testing.T) {
			best := time.Hour
			for range 5 {
				start := time.Now()
				r, err := ApplyBlocks(c.content, []Block{c.block})
				if err != nil {
					t.Fatal(err)
				}
				if r.Matches[0].Tier != c.tier || r.Matches[0].StartLine != 4001 {
					t.Fatalf("matched %+v, want tier %s at line 4001", r.Matches[0], c.tier)
				}
				best = min(best, time.Since(start))
			}
			if best > budget[c.tier] {
				t.Errorf("took %v, budget %v", best, budget[c.tier])
			}
		})
	}
}
