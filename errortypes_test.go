package lunad_test

import (
	"errors"
	"testing"

	"github.com/lunad/lunad"
)

// TestTypedErrors: each typed error is its sentinel, and its message puts
// an adapter's hint where it reads best.
func TestTypedErrors(t *testing.T) {
	cases := []struct {
		name     string
		err      *lunad.NotFoundError
		hint     string
		want     string
		wantBare string
	}{
		{"artifact", &lunad.NotFoundError{Kind: "artifact", Ref: "nope.md"}, "see `lunad list`",
			"not found: no artifact \"nope.md\" (see `lunad list`)", "not found: no artifact \"nope.md\""},
		{"version", &lunad.NotFoundError{Kind: "version", Ref: "9", Artifact: "a1", Latest: 2}, "see `lunad log a1`",
			"not found: artifact a1 has no version 9 (it is at version 2; see `lunad log a1`)", "not found: artifact a1 has no version 9 (it is at version 2)"},
		{"branch", &lunad.NotFoundError{Kind: "branch", Ref: "nope"}, "see `lunad branches`",
			"not found: branch nope (see `lunad branches`)", "not found: branch nope"},
		{"symbol reference", &lunad.NotFoundError{Kind: "symbol reference", Ref: "f", Artifact: "a1"}, "see `lunad refs a1`",
			"not found: a1 has no reference to a symbol \"f\" (see `lunad refs a1`)", "not found: a1 has no reference to a symbol \"f\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.err.Message(c.hint); got != c.want {
				t.Errorf("Message = %q, want %q", got, c.want)
			}
			if got := c.err.Error(); got != c.wantBare {
				t.Errorf("Error = %q, want %q", got, c.wantBare)
			}
			if !errors.Is(c.err, lunad.ErrNotFound) {
				t.Error("not ErrNotFound")
			}
		})
	}
	if err := error(&lunad.KeyReusedError{Key: "k", Use: "edit of a1", Why: "another input"}); !errors.Is(err, lunad.ErrConflict) {
		t.Errorf("%v is not ErrConflict", err)
	}
	if err := error(&lunad.LinkExistsError{Src: "a", Dst: "b", Kind: "explains"}); !errors.Is(err, lunad.ErrExists) || err.Error() != "already exists: a already links to b (explains)" {
		t.Errorf("%v", err)
	}
}
