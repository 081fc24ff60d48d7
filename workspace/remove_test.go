package workspace_test

import (
	"context"
	"slices"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/wstest"
)

// TestRemovedTargetIsBroken checks that references to a removed artifact
// — by its path, to one of its symbols, and an explicit link by its ID —
// are broken and named, whether the removal is lunad's or a `git rm`
// committed outside lunad, and that an undo makes them whole again.
func TestRemovedTargetIsBroken(t *testing.T) {
	for _, how := range []string{"lunad rm", "git rm"} {
		t.Run(how, func(t *testing.T) {
			ctx := context.Background()
			s := newService(t)
			cfg := wstest.Create(t, s, "config.py", src)
			wstest.Create(t, s, "guide.md", "# Guide\n\nUse `parse_config` from [config](config.py).\n")
			if _, err := s.Link(ctx, lunad.LinkRequest{Src: "guide.md", Dst: cfg}); err != nil {
				t.Fatal(err)
			}
			if got := staleSet(t, s); len(got) != 0 {
				t.Fatalf("before: %v", got)
			}
			if how == "lunad rm" {
				if _, err := s.Remove(ctx, lunad.RefRequest{Ref: cfg}); err != nil {
					t.Fatal(err)
				}
			} else {
				wstest.GitRun(t, s.Root(), "add", "-A") // .git/index follows lunad's commits lazily
				wstest.GitRun(t, s.Root(), "rm", "-q", "config.py")
				wstest.GitRun(t, s.Root(), "commit", "-q", "-m", "drop config")
			}
			// The code span `parse_config` is broken since the recorded
			// removal; unrecorded (git rm), it names no definition and is
			// no reference, as for any unknown name, until recorded.
			recorded := []string{
				"guide.md code -> config.py#parse_config broken",
				"guide.md explicit -> config.py# broken",
				"guide.md link -> config.py# broken",
			}
			want := recorded
			if how == "git rm" {
				want = recorded[1:]
			}
			if got := sortedStale(t, s); !slices.Equal(got, want) {
				t.Fatalf("stale: %v\nwant %v", got, want)
			}
			rep, err := s.Refs(ctx, "guide.md")
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Outgoing {
				if r.Kind == "explicit" && r.Reason != "config.py (artifact "+cfg+") was removed" {
					t.Errorf("explicit link's reason: %q", r.Reason)
				}
			}
			list, err := s.List(ctx)
			if err != nil || len(list) != 1 || list[0].Path != "guide.md" {
				t.Fatalf("list: %+v %v", list, err)
			}
			if how == "git rm" {
				if _, err := s.Remove(ctx, lunad.RefRequest{Ref: cfg}); err != nil {
					t.Fatal(err)
				}
				if got := sortedStale(t, s); !slices.Equal(got, recorded) {
					t.Fatalf("stale once recorded: %v\nwant %v", got, recorded)
				}
			}
			if _, err := s.Undo(ctx, lunad.RefRequest{Ref: cfg}); err != nil {
				t.Fatal(err)
			}
			if got := staleSet(t, s); len(got) != 0 {
				t.Fatalf("after undo: %v", got)
			}
		})
	}
}

func sortedStale(t *testing.T, s lunad.Referencer) []string {
	t.Helper()
	got := staleSet(t, s)
	slices.Sort(got)
	return got
}
