package gitstore

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// TestBranchNamesAsGit: checkBranch accepts exactly what the real
// `git check-ref-format --branch` accepts, for names that break each of
// git's rules and for their near misses.
func TestBranchNamesAsGit(t *testing.T) {
	names := []string{
		"main", "feature/x", "a-b_c.d", "é/ü", "@", "a@b", "v1.2", "x/y/z", "refs/heads/x", "a.lock.b", "lock", "lockx/y",
		"main.lock", "main.lock/y", "x/main.lock", "a/.b", ".a", "a/.", "a..b", "a.", "a/", "/a", "a//b",
		"@{x", "a@{1}", "HEAD", "-x", "x-", "a b", "a~1", "a^", "a:b", "a?", "a*", "a[b", `a\b`,
		"a\x01b", "a\x7fb", "a\tb", "a{b", "a}b", "a#b", "a'b", `a"b`, "a!b", "a|b", "a<b", "a>b", "a.b.",
		"x/HEAD", "HEAD/x", "-", "a/-b", ".", "..", "a/..", "a./b",
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			gitOK := exec.Command("git", "check-ref-format", "--branch", name).Run() == nil
			err := checkBranch(name)
			if (err == nil) != gitOK {
				t.Fatalf("checkBranch(%q) = %v; git check-ref-format --branch accepts it: %v", name, err, gitOK)
			}
			if err != nil && !errors.Is(err, lunad.ErrInvalid) {
				t.Fatalf("checkBranch(%q) = %v, want ErrInvalid", name, err)
			}
		})
	}
}

// FuzzBranchNames holds checkBranch to git's rules on any input git can
// be given (valid UTF-8 without NUL, at most lunad's length limits).
func FuzzBranchNames(f *testing.F) {
	for _, s := range []string{"main", "a.lock/b", "a..b", "@{", "x/.y", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if name == "" || strings.ContainsRune(name, 0) || len(name) > maxBranchComponent {
			return
		}
		if err := checkBranch(name); err != nil && strings.Contains(err.Error(), "UTF-8") {
			return
		}
		gitOK := exec.Command("git", "check-ref-format", "--branch", name).Run() == nil
		if err := checkBranch(name); (err == nil) != gitOK {
			t.Fatalf("checkBranch(%q) = %v; git accepts it: %v", name, err, gitOK)
		}
	})
}

// TestBranchNameCannotBlockWrites: a branch name with a .lock component is
// refused, so it cannot leave .git/refs/heads/main.lock/ behind to block
// every later write (lunad's and git's); a branch inside or above an
// existing one is refused with ErrExists naming both; a 300-byte component
// names the limit.
func TestBranchNameCannotBlockWrites(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "A", Path: "a.md", Content: []byte("one\n")})
	if err != nil {
		t.Fatal(err)
	}
	cur := strings.TrimSpace(git(t, s.root, "rev-parse", "--abbrev-ref", "HEAD"))
	if _, err := s.Branch(ctx, "ok/branch", ""); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		want error
		msg  string
	}{
		{cur + ".lock/y", lunad.ErrInvalid, "ends with '.lock'"},
		{cur + ".lock", lunad.ErrInvalid, "ends with '.lock'"},
		{"ok/branch/sub", lunad.ErrExists, "branch ok/branch exists, so ok/branch/sub cannot be made under it"},
		{"ok", lunad.ErrExists, "branch ok/branch exists, so ok cannot be made above it"},
		{"ok/branch", lunad.ErrExists, "branch ok/branch"},
		{strings.Repeat("c", 300), lunad.ErrInvalid, "component is 300 bytes; file systems allow 255"},
	}
	for _, c := range cases {
		t.Run(c.name[:min(len(c.name), 20)], func(t *testing.T) {
			_, err := s.Branch(ctx, c.name, "")
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("Branch(%q) = %v, want %v mentioning %q", c.name, err, c.want, c.msg)
			}
		})
	}
	if _, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{}, replace("one", "two")); err != nil {
		t.Fatalf("edit after the refused branches: %v", err)
	}
	writeFile(t, s.root, "hand.txt", "by hand\n")
	git(t, s.root, "add", "hand.txt")
	git(t, s.root, "commit", "-qm", "by hand")
	checkRepo(t, s)
}
