package harness

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lunad/lunad"
)

// checkSummary holds what any parse must give, whatever the input:
// counts that are not negative, at most MaxFailures failures, names and
// messages that are valid UTF-8 and bounded.
func checkSummary(t *testing.T, s lunad.TestSummary) {
	t.Helper()
	if s.Passed < 0 || s.Failed < 0 || s.Errored < 0 || s.Skipped < 0 {
		t.Fatalf("negative counts: %+v", s)
	}
	if len(s.Failures) > MaxFailures || len(s.Failures) > s.Failed+s.Errored {
		t.Fatalf("%d failures kept for %d failed and %d errored", len(s.Failures), s.Failed, s.Errored)
	}
	for _, f := range s.Failures {
		if !utf8.ValidString(f.Name) || !utf8.ValidString(f.Message) {
			t.Fatalf("invalid UTF-8 in %q: %q", f.Name, f.Message)
		}
		// A message: at most MaxMessageLines lines of at most
		// maxLineBytes, the line saying what was left out, and the
		// prefix a parser adds.
		if len(f.Name) > maxName+len("…") || len(f.Message) > MaxMessageBytes+maxLineBytes+200 {
			t.Fatalf("unbounded failure: name %d bytes, message %d bytes", len(f.Name), len(f.Message))
		}
	}
	if c := Compact(s); !utf8.ValidString(c) {
		t.Fatalf("Compact is not valid UTF-8: %q", c)
	}
}

func FuzzParseGoTest(f *testing.F) {
	real, err := os.ReadFile("testdata/" + "gotest.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real)
	f.Add(real[:len(real)/2])
	f.Add([]byte(ev("run", "p", "T", "") + ev("run", "p", "T/a", "") + ev("fail", "p", "T/a", "") + ev("fail", "p", "T", "") + ev("fail", "p", "", "")))
	f.Add([]byte(`{"ImportPath":"x","Action":"build-output","Output":"# x\n"}` + "\n" + `{"Action":"fail","Package":"p","FailedBuild":"x"}`))
	f.Add([]byte(ev("output", "p", "T", "goroutine 1 [running]:\nmain.f(0x1)\n\t/x.go:1 +0x2\n")))
	f.Add([]byte("{\"Action\":\"run\",\"Package\":\"\xff\",\"Test\":\"\xfe/\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseGoTest(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		checkSummary(t, s)
	})
}

func FuzzParseJUnit(f *testing.F) {
	for _, name := range []string{"pytest.xml", "pytest-collect.xml"} {
		real, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(real)
		f.Add(real[:len(real)/2])
	}
	f.Add([]byte(`<testsuites><testsuite><testcase name="a"><failure message="m">E   x` + "\n" + `f.py:1: E</failure><error/></testcase></testsuite></testsuites>`))
	f.Add([]byte(`<testsuite><testcase><testcase name="nested"><skipped/></testcase></testcase></testsuite>`))
	f.Add([]byte(`<testsuite><testcase name="twice"><failure/><failure/><error/><error/></testcase></testsuite>`))
	f.Add([]byte(`<!DOCTYPE x [<!ENTITY a "aaaa">]><testsuite>&a;</testsuite>`))
	f.Add([]byte("<testsuite><testcase name=\"\xff\"><error message=\"\xfe\"/></testcase></testsuite>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseJUnit(data)
		if err != nil && !errors.Is(err, lunad.ErrInvalid) {
			t.Fatalf("error %v does not wrap ErrInvalid", err)
		}
		checkSummary(t, s)
	})
}

// generated is an input made as it is read: first, then unit(0),
// unit(1), … until left bytes were given. peak is the most heap in use
// after a collection seen meanwhile: what the reader of the input holds.
type generated struct {
	first []byte
	unit  func(i int) []byte
	left  int
	i     int
	pend  []byte
	reads int
	peak  uint64
}

func (g *generated) Read(p []byte) (int, error) {
	if g.reads++; g.reads%4 == 0 {
		// What the parser holds, without the garbage a collection frees.
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		g.peak = max(g.peak, m.HeapInuse)
	}
	n := 0
	for n < len(p) {
		if len(g.pend) == 0 {
			switch {
			case g.first != nil:
				g.pend, g.first = g.first, nil
			case g.left <= 0:
				if n == 0 {
					return 0, io.EOF
				}
				return n, nil
			default:
				g.pend = g.unit(g.i)
				g.i++
				g.left -= len(g.pend)
			}
		}
		c := copy(p[n:], g.pend)
		g.pend, n = g.pend[c:], n+c
	}
	return n, nil
}

// TestParseGoTestBoundedMemory feeds ParseGoTest inputs of 12 MiB, made
// as they are read, that a parser keeping what it reads would hold: a
// test writing without end, tests that never end, one endless line,
// builds that never fail, a package writing without end. The live heap
// while it reads stays far below the input's size.
func TestParseGoTestBoundedMemory(t *testing.T) {
	const size, bound = 12 << 20, 4 << 20
	pad := strings.Repeat("x", 900)
	flood := strings.Repeat("flood ", 150) + "\n"
	cases := []struct {
		name  string
		first string
		unit  func(i int) []byte
	}{
		{"a test writing without end", ev("run", "p", "TestFlood", ""), func(int) []byte { return []byte(ev("output", "p", "TestFlood", flood)) }},
		{"tests that never end", "", func(i int) []byte { return []byte(ev("run", "p", fmt.Sprintf("Test%s%09d", pad, i), "")) }},
		{"one endless line", `{"Action":"output","Output":"`, func(int) []byte { return []byte(flood[:len(flood)-1]) }},
		{"builds that never fail", "", func(i int) []byte {
			return []byte(fmt.Sprintf(`{"ImportPath":"p%s%09d","Action":"build-output","Output":%q}`+"\n", pad, i, flood))
		}},
		{"a package writing without end", "", func(i int) []byte { return []byte(ev("output", fmt.Sprintf("p%d", i%(4*maxPackages)), "", flood)) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := &generated{first: []byte(c.first), unit: c.unit, left: size}
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			s, err := ParseGoTest(g)
			if err != nil {
				t.Fatal(err)
			}
			checkSummary(t, s)
			if grew := g.peak - min(g.peak, m.HeapInuse); grew > bound {
				t.Errorf("the heap in use grew by %d MiB reading %d MiB; want at most %d MiB", grew>>20, size>>20, bound>>20)
			}
			t.Logf("heap in use grew by at most %.1f MiB reading %d MiB (%d reads)", float64(g.peak-min(g.peak, m.HeapInuse))/(1<<20), size>>20, g.reads)
		})
	}
}
