package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// ev is one test2json event line.
func ev(action, pkg, test, output string) string {
	b, err := json.Marshal(goEvent{Action: action, Package: pkg, Test: test, Output: output})
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

// only is the lines of data that contain substr.
func only(data []byte, substr string) []byte {
	var out []byte
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if bytes.Contains(l, []byte(substr)) {
			out = append(out, l...)
		}
	}
	return out
}

// byName sorts a summary's failures: go test interleaves the events of
// the packages it runs at once, so the order of a capture's failures
// across packages is its run's.
func byName(s lunad.TestSummary) lunad.TestSummary {
	s.Failures = slices.Clone(s.Failures)
	slices.SortStableFunc(s.Failures, func(a, b lunad.TestFailure) int { return strings.Compare(a.Name, b.Name) })
	return s
}

// upTo is data up to (without) the first line containing marker.
func upTo(t testing.TB, data []byte, marker string) []byte {
	t.Helper()
	i := bytes.Index(data, []byte(marker))
	if i < 0 {
		t.Fatalf("the capture has no line with %q; recapture with -update or fix the test", marker)
	}
	return data[:bytes.LastIndexByte(data[:i], '\n')+1]
}

func TestParseGoTest(t *testing.T) {
	const pkg = "example.com/m"
	crash := lunad.TestFailure{Name: "example.com/sample/crash.TestStore", Message: "panic: assignment to entry in nil map [recovered, repanicked]\n" +
		"example.com/sample/crash.Store\n  example.com/sample/crash/crash.go:7\n" +
		"example.com/sample/crash.TestStore\n  example.com/sample/crash/crash_test.go:6"}
	many := ""
	for i := range MaxFailures + 5 {
		name := fmt.Sprintf("Test%02d", i)
		many += ev("run", pkg, name, "") + ev("output", pkg, name, fmt.Sprintf("    x_test.go:%d: wrong\n", i)) + ev("fail", pkg, name, "")
	}
	cases := []struct {
		name   string
		input  func(t *testing.T) []byte
		sorted bool // compare the failures sorted by name
		want   lunad.TestSummary
	}{
		{
			name:   "real go test -json of the sample module",
			input:  func(t *testing.T) []byte { return capture(t, "gotest.json") },
			sorted: true,
			want: lunad.TestSummary{Passed: 2, Failed: 3, Errored: 1, Skipped: 1, Failures: []lunad.TestFailure{
				{Name: "example.com/sample/broken", Message: "build failed\nbroken/broken.go:5:28: undefined: answer"},
				{Name: "example.com/sample/calc.TestDiv/rounds_down", Message: "calc_test.go:31: Div(7, 2) = 3, want 4"},
				{Name: "example.com/sample/calc.TestSub", Message: "calc_test.go:13: Sub(5, 3) = 8, want 2"},
				crash,
			}},
		},
		{
			name: "real go test -json of one package, in order",
			input: func(t *testing.T) []byte {
				return only(capture(t, "gotest.json"), `"Package":"example.com/sample/calc"`)
			},
			want: lunad.TestSummary{Passed: 2, Failed: 2, Skipped: 1, Failures: []lunad.TestFailure{
				{Name: "example.com/sample/calc.TestSub", Message: "calc_test.go:13: Sub(5, 3) = 8, want 2"},
				{Name: "example.com/sample/calc.TestDiv/rounds_down", Message: "calc_test.go:31: Div(7, 2) = 3, want 4"},
			}},
		},
		{
			// The command was stopped while TestSub ran: the stream ends
			// without its verdict nor its package's.
			name: "real stream ended while a test ran",
			input: func(t *testing.T) []byte {
				return upTo(t, only(capture(t, "gotest.json"), `"Package":"example.com/sample/calc"`), `"Output":"--- FAIL: TestSub`)
			},
			want: lunad.TestSummary{Passed: 1, Errored: 1, Failures: []lunad.TestFailure{
				{Name: "example.com/sample/calc.TestSub", Message: "did not finish: the output ended while it ran (the command was stopped)\ncalc_test.go:13: Sub(5, 3) = 8, want 2"},
			}},
		},
		{
			name: "a test with subtests fails by its own assertion",
			input: func(*testing.T) []byte {
				return []byte(ev("run", pkg, "TestP", "") + ev("run", pkg, "TestP/a", "") + ev("pass", pkg, "TestP/a", "") +
					ev("output", pkg, "TestP", "    p_test.go:9: cleanup left files\n") + ev("fail", pkg, "TestP", "") + ev("fail", pkg, "", ""))
			},
			want: lunad.TestSummary{Passed: 1, Failed: 1, Failures: []lunad.TestFailure{{Name: pkg + ".TestP", Message: "p_test.go:9: cleanup left files"}}},
		},
		{
			name: "a subtest's name holds a slash",
			input: func(*testing.T) []byte {
				return []byte(ev("run", pkg, "TestP", "") + ev("run", pkg, "TestP/a/b", "") + ev("fail", pkg, "TestP/a/b", "") + ev("fail", pkg, "TestP", "") + ev("fail", pkg, "", ""))
			},
			want: lunad.TestSummary{Failed: 1, Failures: []lunad.TestFailure{{Name: pkg + ".TestP/a/b"}}},
		},
		{
			name: "a package fails outside any test",
			input: func(*testing.T) []byte {
				return []byte(ev("start", pkg, "", "") + ev("run", pkg, "TestA", "") + ev("pass", pkg, "TestA", "") +
					ev("output", pkg, "", "setup: database unreachable\n") + ev("output", pkg, "", "FAIL\texample.com/m\t0.01s\n") + ev("fail", pkg, "", ""))
			},
			want: lunad.TestSummary{Passed: 1, Errored: 1, Failures: []lunad.TestFailure{{Name: pkg, Message: "the test binary failed outside any test (TestMain, init or a crash)\nsetup: database unreachable"}}},
		},
		{
			name: "a test running when its package failed",
			input: func(*testing.T) []byte {
				return []byte(ev("run", pkg, "TestExit", "") + ev("output", pkg, "TestExit", "=== RUN   TestExit\n") + ev("fail", pkg, "", ""))
			},
			want: lunad.TestSummary{Failed: 1, Failures: []lunad.TestFailure{{Name: pkg + ".TestExit"}}},
		},
		{
			name: "lines that are not events are skipped",
			input: func(*testing.T) []byte {
				return []byte("go: downloading example.com/x v1.0.0\n{not json\n\n" + ev("run", pkg, "TestA", "") + "[… 123 bytes cut …]\n" + ev("pass", pkg, "TestA", ""))
			},
			want: lunad.TestSummary{Passed: 1},
		},
		{
			name: "a line over the bound is skipped",
			input: func(*testing.T) []byte {
				return []byte(ev("run", pkg, "TestA", "") + ev("output", pkg, "TestA", strings.Repeat("x", maxEventLine)) + ev("skip", pkg, "TestA", ""))
			},
			want: lunad.TestSummary{Skipped: 1},
		},
		{
			name:  "the first failures are kept, all are counted",
			input: func(*testing.T) []byte { return []byte(many + ev("fail", pkg, "", "")) },
			want: func() lunad.TestSummary {
				s := lunad.TestSummary{Failed: MaxFailures + 5}
				for i := range MaxFailures {
					s.Failures = append(s.Failures, lunad.TestFailure{Name: fmt.Sprintf("%s.Test%02d", pkg, i), Message: fmt.Sprintf("x_test.go:%d: wrong", i)})
				}
				return s
			}(),
		},
		{
			name: "a name over the bound is cut",
			input: func(*testing.T) []byte {
				long := "Test" + strings.Repeat("n", 2*maxName)
				return []byte(ev("run", pkg, long, "") + ev("output", pkg, long, "not kept\n") + ev("fail", pkg, long, "") + ev("fail", pkg, "", ""))
			},
			want: lunad.TestSummary{Failed: 1, Failures: []lunad.TestFailure{{Name: (pkg + ".Test" + strings.Repeat("n", 2*maxName))[:maxName] + "…"}}},
		},
		{name: "no input", input: func(*testing.T) []byte { return nil }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseGoTest(bytes.NewReader(c.input(t)))
			if err != nil {
				t.Fatal(err)
			}
			if c.sorted {
				got = byName(got)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("ParseGoTest:\ngot  %#v\nwant %#v", got, c.want)
			}
		})
	}
}
