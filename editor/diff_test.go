package editor

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or writes it there with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file\n got:\n%s\nwant:\n%s", name, got, want)
	}
}

// numbered is lines "1".."n", each with eol.
func numbered(n int, eol string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d%s", i, eol)
	}
	return b.String()
}

var diffCases = []struct{ name, a, b string }{
	{"change-middle", numbered(10, "\n"), strings.Replace(numbered(10, "\n"), "5\n", "five\n", 1)},
	{"two-hunks", numbered(30, "\n"), strings.Replace(strings.Replace(numbered(30, "\n"), "\n3\n", "\nthree\n", 1), "\n25\n", "\n", 1)},
	{"merged-hunks", numbered(20, "\n"), strings.Replace(strings.Replace(numbered(20, "\n"), "\n5\n", "\nfive\n", 1), "\n11\n", "\neleven\n", 1)},
	{"insert-top", numbered(5, "\n"), "0\n" + numbered(5, "\n")},
	{"append", numbered(5, "\n"), numbered(7, "\n")},
	{"add-final-newline", "a\nb", "a\nb\n"},
	{"remove-final-newline", "a\nb\n", "a\nb"},
	{"change-last-line-no-newline", "a\nb\nc", "a\nb\nC"},
	{"crlf", numbered(6, "\r\n"), strings.Replace(numbered(6, "\r\n"), "3\r\n", "three\r\n", 1)},
	{"crlf-to-lf", "a\r\nb\r\n", "a\nb\n"},
	{"create", "", "x\ny\n"},
	{"delete-all", "x\ny\n", ""},
	{"create-no-newline", "", "x"},
}

func TestDiffGolden(t *testing.T) {
	for _, c := range diffCases {
		t.Run(c.name, func(t *testing.T) {
			d := Diff("f.txt", "f.txt", []byte(c.a), []byte(c.b))
			golden(t, filepath.Join("diff", c.name+".diff"), d)
			r, err := ApplyPatch([]byte(c.a), d)
			if err != nil {
				t.Fatalf("ApplyPatch(a, Diff(a, b)): %v", err)
			}
			if string(r.Content) != c.b {
				t.Errorf("round trip: got %q, want %q", r.Content, c.b)
			}
		})
	}
	if d := Diff("a", "b", []byte("same\n"), []byte("same\n")); d != "" {
		t.Errorf("Diff of equal texts = %q", d)
	}
}

func TestDiffRoundTrip(t *testing.T) {
	pairs := [][2]string{
		{"", ""}, {"a", "a\n"}, {"a\n", "a"}, {"a", "b"}, {"a\r", "a\r\nb"}, {"x\r\r\n", "x\r\n"},
		{"a\r\nb\r\nc", "a\nb\nc\n"}, {"\n\n\n", "\n"}, {"-- x\n++ y\n", "--- x\n+++ y\n"},
		{"@@ -1 +1 @@\n", "\\ No newline at end of file\n"}, {"- \n", "-- \n"},
	}
	// Random texts over a small alphabet of lines, so that there is a lot
	// in common and a lot of ways to match it up.
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"a\n", "b\n", "c\r\n", "\n", "d", "e\n", "a\r\n"}
	gen := func() string {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.String()
	}
	for range 2000 {
		pairs = append(pairs, [2]string{gen(), gen()})
	}
	for _, p := range pairs {
		a, b := p[0], p[1]
		d := Diff("x", "x", []byte(a), []byte(b))
		if a == b {
			if d != "" {
				t.Fatalf("Diff(%q, %q) = %q", a, b, d)
			}
			continue
		}
		r, err := ApplyPatch([]byte(a), d)
		if err != nil || string(r.Content) != b {
			t.Fatalf("ApplyPatch(%q, Diff(%q)) = %q, %v\ndiff:\n%s", a, b, r.Content, err, d)
		}
	}
}

// TestLCS checks the Myers implementation against dynamic programming.
func TestLCS(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		a, b := make([]int, rng.IntN(30)), make([]int, rng.IntN(30))
		k := 1 + rng.IntN(5)
		for i := range a {
			a[i] = rng.IntN(k)
		}
		for i := range b {
			b[i] = rng.IntN(k)
		}
		pairs := lcs(a, b)
		pi, pj := -1, -1
		for _, p := range pairs {
			if p[0] <= pi || p[1] <= pj || a[p[0]] != b[p[1]] {
				t.Fatalf("lcs(%v, %v) = %v: not a common subsequence", a, b, pairs)
			}
			pi, pj = p[0], p[1]
		}
		dp := make([][]int, len(a)+1)
		for i := range dp {
			dp[i] = make([]int, len(b)+1)
		}
		for i := len(a) - 1; i >= 0; i-- {
			for j := len(b) - 1; j >= 0; j-- {
				if a[i] == b[j] {
					dp[i][j] = dp[i+1][j+1] + 1
				} else {
					dp[i][j] = max(dp[i+1][j], dp[i][j+1])
				}
			}
		}
		if len(pairs) != dp[0][0] {
			t.Fatalf("lcs(%v, %v) has %d pairs, want %d", a, b, len(pairs), dp[0][0])
		}
	}
}
