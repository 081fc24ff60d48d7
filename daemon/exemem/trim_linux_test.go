//go:build linux

package exemem

import (
	"regexp"
	"strings"
	"testing"
)

// TestTrim trims the test binary's own mappings (Trim's work on a
// snapshot of them): every clean read-only
// mapping of the executable is then marked "nh" (no PMD mapping of its
// file folios), none is PMD-mapped any more even after code runs again, and
// the process still runs the code it dropped.
func TestTrim(t *testing.T) {
	before, err := Mappings()
	if err != nil {
		t.Fatal(err)
	}
	if len(before) < 2 {
		t.Fatalf("%d read-only mappings of the test binary, want its text and read-only data: %+v", len(before), before)
	}
	var rss uint64
	for _, m := range before {
		rss += m.Rss
	}
	// trim on this snapshot: the test's own code faults pages in between
	// two readings of smaps, so Trim's reading could hold more.
	r, err := trim(before)
	if err != nil {
		t.Fatal(err)
	}
	if r.Mappings != len(before) || r.Released != rss {
		t.Errorf("Trim = %+v, want %d mappings and %d bytes released", r, len(before), rss)
	}
	// Run code and read data the trim dropped.
	re := regexp.MustCompile(`(a+)(b*)`)
	if got := re.ReplaceAllString(strings.Repeat("aab", 3), "$2"); got != "bbb" {
		t.Fatalf("regexp after Trim = %q", got)
	}
	after, err := Mappings()
	if err != nil {
		t.Fatal(err)
	}
	var rssAfter uint64
	for _, m := range after {
		rssAfter += m.Rss
		if !m.NoHugePage {
			t.Errorf("mapping %#x-%#x %s not marked nh after Trim", m.Start, m.End, m.Perms)
		}
		if m.FilePmdMapped != 0 {
			t.Errorf("mapping %#x-%#x %s has %d bytes PMD-mapped after Trim", m.Start, m.End, m.Perms, m.FilePmdMapped)
		}
	}
	t.Logf("executable read-only RSS %d KiB before Trim, %d KiB after it and some work", rss>>10, rssAfter>>10)
}
