package window_test

import (
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/lunad/lunad/agents/window"
)

// longestRun is the length in bytes of s's longest run of letters (and
// marks), digits, white space or other characters: what bounds the cost of
// tiktoken's byte-pair merge. It is written apart from the package's own
// classes so that the test does not check the code with itself.
func longestRun(s string) int {
	class := func(r rune) int {
		switch {
		case unicode.In(r, unicode.L, unicode.M):
			return 1
		case unicode.In(r, unicode.N):
			return 2
		case unicode.IsSpace(r):
			return 3
		}
		return 4
	}
	best, start, prev := 0, 0, 0
	for i, r := range s {
		if c := class(r); c != prev {
			prev, start = c, i
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		best = max(best, i+size-start)
	}
	return best
}

// hostileRuns are texts an attacker can put in an artifact or a model's
// answer: one long run of each class, and runs in ordinary text.
func hostileRuns(n int) map[string]string {
	return map[string]string{
		"letters":       strings.Repeat("a", n),
		"mixed letters": strings.Repeat("antidisestablishmentarianism", n/28),
		"accented":      strings.Repeat("é", n/2),
		"letter+mark":   strings.Repeat("e\u0301", n/3),
		"cjk":           strings.Repeat("漢字", n/6),
		"spaces":        strings.Repeat(" ", n),
		"newlines":      "x" + strings.Repeat("\n", n),
		"punctuation":   strings.Repeat("=", n) + "\n" + strings.Repeat("-", n),
		"digits":        strings.Repeat("7", n),
		"in prose":      "The key is " + strings.Repeat("Zq", n/2) + " and then the text goes on as usual.\n",
	}
}

// TestCountNeverHandsTiktokenALongRun is the defence against quadratic
// token counting: whatever the text, no part handed to tiktoken holds a run
// of one class longer than MaxRun bytes, and the parts are the text.
func TestCountNeverHandsTiktokenALongRun(t *testing.T) {
	for name, text := range hostileRuns(1 << 20) {
		t.Run(name, func(t *testing.T) {
			var parts strings.Builder
			longest := 0
			window.CountBounded(text, func(part string) int {
				parts.WriteString(part)
				longest = max(longest, longestRun(part))
				return 1
			})
			if longest > window.MaxRun {
				t.Errorf("tiktoken was handed a run of %d bytes, want at most %d", longest, window.MaxRun)
			}
			if parts.String() != text {
				t.Errorf("the parts (%d bytes) are not the text (%d bytes)", parts.Len(), len(text))
			}
		})
	}
}

// TestCountOrdinaryTextWhole checks that text without a long run is handed
// to tiktoken in one piece: its count is exactly tiktoken's.
func TestCountOrdinaryTextWhole(t *testing.T) {
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog; func main() { return 42 }\n\t", 500)
	calls := 0
	window.CountBounded(prose, func(string) int { calls++; return 0 })
	if calls != 1 {
		t.Fatalf("%d bytes of ordinary text were handed to tiktoken in %d parts, want 1", len(prose), calls)
	}
	for _, enc := range []string{window.CL100k, window.O200k} {
		if got, want := window.CountUncached(enc, prose), window.EncodeWhole(enc, prose); got != want {
			t.Errorf("%s: Count = %d, tiktoken whole = %d", enc, got, want)
		}
	}
}

// TestCountLongRunEstimate checks what cutting costs in accuracy: a long
// run counts at least what tiktoken gives it whole (a budget is never
// underestimated) and at most one token more per MaxRun bytes.
func TestCountLongRunEstimate(t *testing.T) {
	for name, text := range hostileRuns(2 << 10) {
		for _, enc := range []string{window.CL100k, window.O200k} {
			t.Run(name+"/"+enc, func(t *testing.T) {
				whole := window.EncodeWhole(enc, text)
				got := window.CountUncached(enc, text)
				if slack := len(text)/window.MaxRun + 1; got < whole || got > whole+slack {
					t.Errorf("Count = %d, tiktoken whole = %d: want between %d and %d", got, whole, whole, whole+slack)
				}
			})
		}
	}
}

// TestCountMegabyteRun counts a 1 MiB run of letters with the real
// encoding. Whole, tiktoken took over five minutes of CPU; cut, it takes
// half a second (14 s with -race on a loaded 2-core machine), so the
// bound is generous and still far below the quadratic cost.
func TestCountMegabyteRun(t *testing.T) {
	text := strings.Repeat("a", 1<<20)
	window.CountUncached(window.O200k, "warm") // load the vocabulary outside the timing
	start := time.Now()
	if n := window.CountUncached(window.O200k, text); n <= 0 {
		t.Fatalf("Count = %d", n)
	}
	if d := time.Since(start); d > 2*time.Minute {
		t.Errorf("counting 1 MiB of letters took %s, want well under 2m", d)
	}
}

func FuzzBoundedRuns(f *testing.F) {
	for _, s := range []string{"", "hello world", strings.Repeat("a", 600), strings.Repeat("é", 300) + "x", "\xff\xfe" + strings.Repeat(" ", 700)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var parts strings.Builder
		window.CountBounded(text, func(part string) int {
			if part == "" {
				t.Fatal("an empty part")
			}
			if n := longestRun(part); n > window.MaxRun {
				t.Fatalf("a part holds a run of %d bytes", n)
			}
			parts.WriteString(part)
			return 0
		})
		if parts.String() != text {
			t.Fatalf("the parts are not the text")
		}
	})
}
