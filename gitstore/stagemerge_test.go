package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/lunad/lunad"
)

// storeWithMerge is a fresh workspace whose Merger is m, with config.md at
// version 1 (its commit returned) and a person's save to it in the working
// tree, not yet recorded: what the watcher would commit.
func storeWithMerge(t *testing.T, m Merger) (*Store, string) {
	t.Helper()
	opts := testOptions()
	opts.Merge = m
	s, _, err := Init(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	res, err := s.Create(context.Background(), lunad.CreateSpec{Title: "config", Path: "config.md", Content: []byte(cfgBase)})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, s.root, "config.md", cfgPerson)
	return s, res.Version.Commit
}

const (
	cfgBase   = "# Config\n\nfirst\n\nsecond\n\nthird\n"
	cfgPerson = "# Config\n\nfirst\n\nsecond\n\nthird, as the person saved it\n"
	cfgAgent  = "# Config\n\nfirst\n\nsecond, as the agent wrote it\n\nthird\n"
	cfgMerged = "# Config\n\nfirst\n\nsecond, as the agent wrote it\n\nthird, as the person saved it\n"
)

// TestApplyWritesMergesMovedArtifact attacks the overwrite of a person's
// save by a stage's write computed from the version before it: the write
// names its base, and what is committed is the merger's result over the
// person's version, which stays in history as a human version.
func TestApplyWritesMergesMovedArtifact(t *testing.T) {
	var got [3]string
	s, base := storeWithMerge(t, func(b, o, th []byte, _ []lunad.Block) ([]byte, []int) {
		got = [3]string{string(b), string(o), string(th)}
		return []byte(cfgMerged), nil
	})
	ctx := context.Background()
	_, _, _, err := s.ApplyWrites(ctx, []lunad.StageWrite{{Path: "config.md", Content: cfgAgent, Base: base}}, stageChange("run-merge"))
	if err != nil {
		t.Fatal(err)
	}
	if got != [3]string{cfgBase, cfgPerson, cfgAgent} {
		t.Fatalf("merger got base/ours/theirs %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(s.root, "config.md")); string(b) != cfgMerged {
		t.Fatalf("working tree %q, want the merge", b)
	}
	h, err := s.History(ctx, "config.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 3 || h[1].Op != lunad.OpHuman || h[2].Op != lunad.OpEdit {
		t.Fatalf("history %+v, want create, the person's human save, the stage's edit", h)
	}
	checkRepo(t, s)
}

// TestApplyWritesConflictWritesNothing: a write that conflicts with the
// person's save (or any moved artifact, without a merger) is refused with
// both versions named, and the person's content stays.
func TestApplyWritesConflictWritesNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    Merger
	}{
		{"no merger", nil},
		{"conflicting merge", func(_, _, _ []byte, _ []lunad.Block) ([]byte, []int) { return nil, []int{7} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, base := storeWithMerge(t, tc.m)
			_, _, _, err := s.ApplyWrites(context.Background(), []lunad.StageWrite{{Path: "config.md", Content: cfgAgent, Base: base}}, stageChange("run-conflict"))
			var mc *lunad.MergeConflictError
			if !errors.As(err, &mc) || !errors.Is(err, lunad.ErrConflict) {
				t.Fatalf("err %v, want a *MergeConflictError", err)
			}
			if mc.Base != base || mc.Current == "" || mc.Current == base || mc.Path != "config.md" {
				t.Fatalf("conflict %+v does not name both versions", mc)
			}
			if b, _ := os.ReadFile(filepath.Join(s.root, "config.md")); string(b) != cfgPerson {
				t.Fatalf("working tree %q, want the person's save", b)
			}
			// The person's save is recorded: the version the conflict names.
			h, err := s.History(context.Background(), "config.md")
			if err != nil || len(h) != 2 || h[1].Op != lunad.OpHuman || h[1].Commit != mc.Current {
				t.Fatalf("history %+v, %v: want the person's save as version 2, named by the conflict", h, err)
			}
			checkRepo(t, s)
		})
	}
}

// TestApplyWritesBadBase: a base that is no commit holding the artifact
// is refused rather than taken as "unchanged".
func TestApplyWritesBadBase(t *testing.T) {
	s, _ := storeWithMerge(t, nil)
	for _, base := range []string{"HEAD", "0123456789012345678901234567890123456789"} {
		_, _, _, err := s.ApplyWrites(context.Background(), []lunad.StageWrite{{Path: "config.md", Content: cfgAgent, Base: base}}, stageChange("run-bad-"+base[:4]))
		if !errors.Is(err, lunad.ErrInvalid) {
			t.Fatalf("base %q: err %v, want ErrInvalid", base, err)
		}
	}
}
