package lunad

import (
	"errors"
	"testing"
)

// TestCheckError: a problem keeps its message on one line, the error
// lists the problems sorted by file, line and column (problems at one
// place in the order reported), one `file:line:col: message` line each,
// and wraps ErrInvalid; the list given is not reordered.
func TestCheckError(t *testing.T) {
	for _, tc := range []struct {
		name string
		list []Problem
		want string
	}{
		{"one", []Problem{ProblemAt("a.toml", 3, 7, "bad value")}, "a.toml:3:7: bad value"},
		{"line breaks quoted", []Problem{ProblemAt("a.toml", 1, 1, "toml: expected \"x\r\ny\nz\rw\"")}, `a.toml:1:1: toml: expected "x\ny\nz\rw"`},
		{"sorted by file, line, column", []Problem{
			ProblemAt("b.toml", 1, 1, "b1"), ProblemAt("a.toml", 9, 2, "a9.2"), ProblemAt("a.toml", 9, 1, "a9.1"), ProblemAt("a.toml", 2, 5, "a2"),
		}, "a.toml:2:5: a2\na.toml:9:1: a9.1\na.toml:9:2: a9.2\nb.toml:1:1: b1"},
		{"stable at one place", []Problem{ProblemAt("a.toml", 4, 1, "first"), ProblemAt("a.toml", 4, 1, "second")},
			"a.toml:4:1: first\na.toml:4:1: second"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			given := append([]Problem(nil), tc.list...)
			err := NewCheckError(tc.list)
			if got := err.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Error("does not wrap ErrInvalid")
			}
			for i := range given {
				if tc.list[i] != given[i] {
					t.Fatalf("NewCheckError reordered its argument: %v", tc.list)
				}
			}
		})
	}
}
