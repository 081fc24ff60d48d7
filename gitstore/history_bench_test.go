package gitstore

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

// BenchmarkHistory10k: per-artifact history on a branch of 10,000 commits,
// in a warm store, in a freshly opened store (cache load + ancestry walk),
// and `git log --format=%H -- PATH` for the same artifact.
func BenchmarkHistory10k(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	s, _, err := Init(dir, testOptions())
	if err != nil {
		b.Fatal(err)
	}
	const artifacts, commits = 50, 10000
	var ids []string
	for i := range artifacts {
		r, err := s.Create(ctx, lunad.CreateSpec{Title: fmt.Sprint("a", i), Path: fmt.Sprintf("d%d/a%d.md", i%7, i), Content: []byte("start\n")})
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, r.Artifact.ID)
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < commits-artifacts; i += 8 {
				id := ids[i%artifacts]
				line := fmt.Sprintf("line %d\n", i)
				if _, err := s.Edit(ctx, id, lunad.Change{}, func(c []byte) ([]byte, map[string]string, error) { return append(c, line...), nil, nil }); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	s.Close()
	target := ids[7]
	path := "d0/a7.md" // artifact i lives in d(i%7)
	measure := func(n int, f func()) time.Duration {
		start := time.Now()
		for range n {
			f()
		}
		return time.Since(start) / time.Duration(n)
	}
	s, err = Open(dir, testOptions())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var versions int
	warm := measure(20, func() {
		h, err := s.History(ctx, target)
		if err != nil {
			b.Fatal(err)
		}
		versions = len(h)
	})
	cold := measure(5, func() {
		c, err := Open(dir, testOptions())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.History(ctx, target); err != nil {
			b.Fatal(err)
		}
		c.Close()
	})
	gitLog := measure(5, func() {
		cmd := exec.Command("git", "log", "--format=%H", "--", path)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git log: %v %s", err, out)
		}
	})
	b.ReportMetric(float64(warm.Microseconds())/1000, "warm-ms")
	b.ReportMetric(float64(cold.Microseconds())/1000, "open+history-ms")
	b.ReportMetric(float64(gitLog.Microseconds())/1000, "git-log-ms")
	b.ReportMetric(float64(gitLog)/float64(cold), "git/open-ratio")
	fmt.Printf("history of 1 artifact (%d versions) on %d commits: warm %v, open+history %v, git log -- path %v (%.1fx)\n",
		versions, commits, warm, cold, gitLog, float64(gitLog)/float64(cold))
}
