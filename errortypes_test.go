package lunad_test

import (
	"errors"
	"fmt"
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

// TestBranchMovedError: the refusal to accept a run whose base branch
// moved is ErrConflict, names both commits and says what to do; an adapter
// rewords it with its own way to discard the run and keeps the context.
func TestBranchMovedError(t *testing.T) {
	e := &lunad.BranchMovedError{Branch: "main", Base: "1111111111111111111111111111111111111111",
		Now: "2222222222222222222222222222222222222222", Run: "r1", RunBranch: "luna/goal/r1"}
	if !errors.Is(e, lunad.ErrConflict) {
		t.Fatal("not ErrConflict")
	}
	want := "conflict: branch main moved since run r1 started (111111111111 → 222222222222); merge luna/goal/r1 yourself with git (git merge luna/goal/r1), or discard the run"
	if e.Error() != want {
		t.Fatalf("Error = %q\nwant    %q", e.Error(), want)
	}
	wrapped := fmt.Errorf("accept r1: %w", e)
	var got *lunad.BranchMovedError
	if !errors.As(wrapped, &got) {
		t.Fatal("errors.As")
	}
	reworded := lunad.Reword(wrapped, got, got.Facts()+"; `lunad goal discard r1` drops it")
	if reworded != "accept r1: branch main moved since run r1 started (111111111111 → 222222222222); `lunad goal discard r1` drops it" {
		t.Fatalf("reworded: %q", reworded)
	}
}
