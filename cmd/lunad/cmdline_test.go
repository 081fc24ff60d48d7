package main

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

func TestGoalSplitCommandLine(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       []string
		err        string
	}{
		{"words", "go test ./...", []string{"go", "test", "./..."}, ""},
		{"runs of blanks", " \tpytest  -q\t", []string{"pytest", "-q"}, ""},
		{"single quotes keep all", `pytest 'tests/test a.py' '$HOME' 'a\b'`, []string{"pytest", "tests/test a.py", "$HOME", `a\b`}, ""},
		{"double quotes escape \" and \\ only", `echo "a \"b\" \\ \n $x"`, []string{"echo", `a "b" \ \n $x`}, ""},
		{"backslash outside quotes", `a\ b c\'d`, []string{"a b", "c'd"}, ""},
		{"empty quoted word", `prog '' ""`, []string{"prog", "", ""}, ""},
		{"quotes join a word", `go test -run='Test A'x`, []string{"go", "test", "-run=Test Ax"}, ""},
		{"nothing is special", "go test ./... | tee log; rm -rf /", []string{"go", "test", "./...", "|", "tee", "log;", "rm", "-rf", "/"}, ""},
		{"unclosed single", "pytest 'a", nil, "its ' quote is not closed"},
		{"unclosed double", `pytest "a`, nil, `its " quote is not closed`},
		{"trailing backslash", `pytest \`, nil, "it ends with a backslash"},
		{"blank", "  \t ", nil, "it names no program"},
		{"line break", "go test\nrm -rf /", nil, "it holds a NUL or a line break"},
		{"NUL", "go\x00test", nil, "it holds a NUL or a line break"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := splitCommandLine(tc.line)
			if tc.err != "" {
				if !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "--test 'go test ./...'") {
					t.Fatalf("splitCommandLine(%q) = %q, %v; want an error saying %q and what to give", tc.line, got, err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("splitCommandLine(%q) = %q, %v; want %q", tc.line, got, err, tc.want)
			}
		})
	}
}

// FuzzSplitCommandLine: any line splits into words or is refused, never
// panics; the words, each quoted back as a shell would, split again into
// the same words.
func FuzzSplitCommandLine(f *testing.F) {
	for _, s := range []string{"go test ./...", `pytest 'a b' "c\"d" e\ f`, `'`, `"\\"`, `a\`, "", "x\x00y", "\t\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, err := splitCommandLine(line)
		if err != nil {
			if !errors.Is(err, lunad.ErrInvalid) || len(words) != 0 {
				t.Fatalf("%q: %q, %v", line, words, err)
			}
			return
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		again, err := splitCommandLine(strings.Join(quoted, " "))
		if err != nil || !slices.Equal(again, words) {
			t.Fatalf("%q → %q → %q: %q, %v", line, words, strings.Join(quoted, " "), again, err)
		}
	})
}
