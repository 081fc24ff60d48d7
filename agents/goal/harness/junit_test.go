package harness

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

func TestParseJUnit(t *testing.T) {
	many := "<testsuite>"
	for i := range MaxFailures + 3 {
		many += fmt.Sprintf(`<testcase classname="t" name="test_%02d"><failure message="no %d"/></testcase>`, i, i)
	}
	many += "</testsuite>"
	cases := []struct {
		name    string
		input   func(t *testing.T) []byte
		want    lunad.TestSummary
		wantErr string // a substring of the error; "" for none
	}{
		{
			name:  "real pytest report: passed, failed, errored, skipped",
			input: func(t *testing.T) []byte { return capture(t, "pytest.xml") },
			want: lunad.TestSummary{Passed: 1, Failed: 1, Errored: 1, Skipped: 1, Failures: []lunad.TestFailure{
				{Name: "test_calc.test_sub", Message: "assert 8 == 2\ntest_calc.py:17: AssertionError"},
				{Name: "test_calc.test_lookup", Message: "failed on setup with \"RuntimeError: the table fixture cannot load table.csv\"\ntest_calc.py:8: RuntimeError"},
			}},
		},
		{
			name:  "real pytest report of a module that does not import",
			input: func(t *testing.T) []byte { return capture(t, "pytest-collect.xml") },
			want: lunad.TestSummary{Errored: 1, Failures: []lunad.TestFailure{
				{Name: "test_shapes", Message: "collection failure\n  File \"$SAMPLE/shapes.py\", line 4\n    def area(w, h)\n                  ^\nSyntaxError: expected ':'"},
			}},
		},
		{
			name: "a case that failed and errored in teardown counts as both",
			input: func(*testing.T) []byte {
				return []byte(`<testsuites><testsuite><testcase classname="m" name="t"><failure message="boom"/><error message="teardown">E   OSError: busy
x.py:3: OSError</error></testcase></testsuite></testsuites>`)
			},
			want: lunad.TestSummary{Failed: 1, Errored: 1, Failures: []lunad.TestFailure{
				{Name: "m.t", Message: "boom"}, {Name: "m.t", Message: "teardown\nOSError: busy\nx.py:3: OSError"},
			}},
		},
		{
			name: "a failure without a message attribute keeps its text's head",
			input: func(*testing.T) []byte {
				return []byte(`<testsuite><testcase name="t"><failure>expected 1
got 2</failure></testcase><testcase name="u"><skipped/></testcase><testcase name="v"/></testsuite>`)
			},
			want: lunad.TestSummary{Passed: 1, Failed: 1, Skipped: 1, Failures: []lunad.TestFailure{{Name: "t", Message: "expected 1\ngot 2"}}},
		},
		{
			name:  "the first failures are kept, all are counted",
			input: func(*testing.T) []byte { return []byte(many) },
			want: func() lunad.TestSummary {
				s := lunad.TestSummary{Failed: MaxFailures + 3}
				for i := range MaxFailures {
					s.Failures = append(s.Failures, lunad.TestFailure{Name: fmt.Sprintf("t.test_%02d", i), Message: fmt.Sprintf("no %d", i)})
				}
				return s
			}(),
		},
		{
			name: "a long message is bounded",
			input: func(*testing.T) []byte {
				return []byte(`<testsuite><testcase name="t"><failure message="` + strings.Repeat("x", 3*maxLineBytes) + `">` + strings.Repeat("line\n", 100) + `</failure></testcase></testsuite>`)
			},
			want: lunad.TestSummary{Failed: 1, Failures: []lunad.TestFailure{{Name: "t", Message: strings.Repeat("x", maxLineBytes) + " …"}}},
		},
		{
			name: "cut in the middle: what was read, and where",
			input: func(t *testing.T) []byte {
				b := capture(t, "pytest.xml")
				return b[:strings.Index(string(b), `name="test_lookup"`)]
			},
			want:    lunad.TestSummary{Passed: 1, Failed: 1, Failures: []lunad.TestFailure{{Name: "test_calc.test_sub", Message: "assert 8 == 2\ntest_calc.py:17: AssertionError"}}},
			wantErr: "not well-formed XML at line",
		},
		{
			name:    "another root element",
			input:   func(*testing.T) []byte { return []byte(`<?xml version="1.0"?><html><testcase name="t"/></html>`) },
			wantErr: "the JUnit report's root is <html>, not <testsuites> or <testsuite>",
		},
		{
			name:    "empty",
			input:   func(*testing.T) []byte { return nil },
			wantErr: "the JUnit report is empty",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseJUnit(c.input(t))
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatal(err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr) || !errors.Is(err, lunad.ErrInvalid)):
				t.Fatalf("error %v, want one wrapping ErrInvalid with %q", err, c.wantErr)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("ParseJUnit:\ngot  %#v\nwant %#v", got, c.want)
			}
		})
	}
}
