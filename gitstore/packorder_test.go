package gitstore

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lunad/lunad"
)

// packDirState checks the pack directory at one instant: no index is
// there without its pack (an index is what makes a pack visible to
// readers), and real git fsck --strict passes. It returns what is wrong.
func packDirState(root string) []string {
	var bad []string
	idxs, _ := filepath.Glob(filepath.Join(root, ".git", "objects", "pack", "pack-*.idx"))
	for _, idx := range idxs {
		if _, err := os.Stat(packName(idx)); err != nil {
			bad = append(bad, fmt.Sprintf("index %s without its pack", filepath.Base(idx)))
		}
	}
	cmd := exec.Command("git", "fsck", "--strict", "--no-progress")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		bad = append(bad, fmt.Sprintf("git fsck --strict: %v\n%s", err, out))
	}
	return bad
}

// TestPackRenameOrder: between the renames of a new pack and its index,
// and between the removals of an old pack's index and the pack, the pack
// directory never holds an index without its pack and git fsck --strict
// passes — the order git uses (the pack first, the index last; the index
// removed first). Written the other way round, each hook would find an
// index whose pack is not there.
func TestPackRenameOrder(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		edits int // edits after the create: consolidateAt+1 makes one consolidation
		// want: the hooks that must have run
		renamed, removed int
	}{
		{"one write", 0, 1, 0},
		{"consolidation", consolidateAt + 1, consolidateAt + 3, consolidateAt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			var (
				mu               sync.Mutex
				problems         []string
				renamed, removed int
			)
			check := func(kind *int, what, idx string) {
				bad := packDirState(s.root)
				mu.Lock()
				defer mu.Unlock()
				*kind++
				if _, err := os.Stat(idx); what == "renamed" && !os.IsNotExist(err) {
					bad = append(bad, "the index is in place before its pack's rename returned")
				}
				for _, b := range bad {
					problems = append(problems, fmt.Sprintf("%s %s: %s", what, filepath.Base(idx), b))
				}
			}
			testHookPackRenamed = func(idx string) { check(&renamed, "renamed", idx) }
			testHookIndexRemoved = func(idx string) { check(&removed, "removed", idx) }
			t.Cleanup(func() { testHookPackRenamed, testHookIndexRemoved = nil, nil })

			r, err := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "docs/a.md", Content: []byte("v0\n")})
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= tc.edits; i++ {
				if _, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{}, replace(fmt.Sprintf("v%d", i-1), fmt.Sprintf("v%d", i))); err != nil {
					t.Fatal(err)
				}
				s.bg.Wait() // a consolidation the edit started
			}
			mu.Lock()
			defer mu.Unlock()
			if len(problems) > 0 {
				t.Fatalf("%d instants went wrong:\n%s", len(problems), strings.Join(problems, "\n"))
			}
			if renamed < tc.renamed || removed < tc.removed {
				t.Fatalf("the hooks ran %d times between renames and %d between removals; want at least %d and %d", renamed, removed, tc.renamed, tc.removed)
			}
		})
	}
}
