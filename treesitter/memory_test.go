package treesitter

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// rssKiB is the resident set size from /proc (C allocations included, which
// runtime.MemStats does not see).
func rssKiB(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatalf("read /proc/self/status: %v (this test needs Linux)", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	t.Fatal("no VmRSS line in /proc/self/status")
	return 0
}

// TestMemoryBounded parses and updates the snippets many times and checks
// that resident memory stops growing: trees, parsers and cursors are freed.
func TestMemoryBounded(t *testing.T) {
	var srcs [][]byte
	for _, tc := range languageCases {
		b, err := os.ReadFile("testdata/snippets/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, []byte(strings.Repeat(string(b), 5)))
	}
	round := func() {
		p := NewParser()
		for i, tc := range languageCases {
			if _, err := p.Parse(tc.typ, srcs[i]); err != nil {
				t.Fatal(err)
			}
			d, err := p.Open(tc.typ, srcs[i])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.Update(append([]byte("\n"), srcs[i]...)); err != nil {
				t.Fatal(err)
			}
			d.Close()
		}
		p.Close()
	}
	for range 10 { // warm up: grammars, queries, Go heap
		round()
	}
	runtime.GC()
	before := rssKiB(t)
	for range 60 {
		round()
	}
	runtime.GC()
	after := rssKiB(t)
	t.Logf("RSS %d KiB -> %d KiB after 60 rounds", before, after)
	// A leak of even one tree per parse would be hundreds of MiB here.
	if after-before > 16<<10 {
		t.Fatalf("RSS grew by %d KiB over 60 rounds", after-before)
	}
}
