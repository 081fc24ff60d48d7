package goal

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/goal/tree"
)

// DefaultDisk is the default of Options.Disk: the bytes a goal's
// worktree may take on disk, .gitignore'd build output included.
const DefaultDisk = 2 << 30

// maxCount bounds the entries a disk walk goes through after a command
// (a walk that ends early would leave what a command made).
const maxCount = math.MaxInt32

// usage is what a worktree takes on disk: the bytes, and the size of
// each of its entries (directories included, at -1) while they are at
// most maxEntries. .git and .luna are left out: commands cannot write
// there.
type usage struct {
	bytes   int64
	entries map[string]int64
	partial bool // more than maxEntries: entries holds the first
}

// measure walks r for its usage.
func measure(r *tree.Root) (usage, error) {
	u := usage{entries: map[string]int64{}}
	err := r.Walk(".", maxCount, func(rel string, info tree.Info) error {
		if rel == ".git" || rel == ".luna" {
			return fs.SkipDir
		}
		u.bytes += info.Disk
		size := info.Size
		if info.Mode.IsDir() {
			size = -1
		}
		if len(u.entries) < maxEntries {
			u.entries[rel] = size
		} else {
			u.partial = true
		}
		return nil
	})
	return u, err
}

// fitDisk checks the worktree against the goal's disk budget after who
// (a command, the tests) ran: within it, or no larger than it was before
// who ran when it was past it already (a large checkout), it says "".
// Otherwise every change
// who made is undone — the files git would track as the snapshot before
// had them, every other file it made or made larger removed, and the
// directories it made — and the note says so, for the model.
func (a *Agents) fitDisk(r *tree.Root, before *snapshot, was usage, who string) string {
	budget := a.o.Disk
	if a.o.DiskNow != nil {
		if n := a.o.DiskNow(); n > 0 {
			budget = n
		}
	}
	now, err := measure(r)
	if err == nil && now.bytes <= max(budget, was.bytes) {
		return "" // within the budget, or no larger than a worktree already past it was
	}
	note := fmt.Sprintf("%s left the worktree taking %s on disk, over the goal's budget of %s: everything it wrote was undone (files .gitignore leaves out that it made or made larger were deleted); write less, or into fewer files", who, lunad.FormatSize(now.bytes), lunad.FormatSize(budget))
	if was.bytes > budget {
		note = fmt.Sprintf("%s made the worktree larger (%s on disk, from %s), and it was past the goal's budget of %s already: everything it wrote was undone (files .gitignore leaves out that it made or made larger were deleted); delete build output before building more", who, lunad.FormatSize(now.bytes), lunad.FormatSize(was.bytes), lunad.FormatSize(budget))
	}
	if err != nil {
		note = fmt.Sprintf("the worktree's size cannot be measured after %s (%v): everything it wrote was undone", who, err)
	}
	var left []string
	if after, err := snap(r); err == nil {
		for _, c := range before.changesTo(after) {
			if err := before.undo(r, c); err != nil {
				left = append(left, c.Path)
			}
		}
	}
	var dirs []string
	r.Walk(".", maxCount, func(rel string, info tree.Info) error {
		if rel == ".git" || rel == ".luna" {
			return fs.SkipDir
		}
		size, had := was.entries[rel]
		if _, tracked := before.files[rel]; tracked || rel == "." || (was.partial && !had) {
			return nil
		}
		switch {
		case info.Mode.IsDir():
			if !had {
				dirs = append(dirs, rel)
			}
		case !had || size < 0 || info.Size > size:
			if err := r.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
				left = append(left, rel)
			}
		}
		return nil
	})
	slices.Reverse(dirs) // a directory's own directories first
	for _, d := range dirs {
		if err := r.Remove(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			left = append(left, d+"/")
		}
	}
	if len(left) > 0 {
		note += fmt.Sprintf("; could not be undone: %s", strings.Join(firstN(left, 10), ", "))
	}
	return note
}

// firstN is the first n of list, and how many more there were.
func firstN(list []string, n int) []string {
	if len(list) <= n {
		return list
	}
	return append(slices.Clone(list[:n]), fmt.Sprintf("and %d more", len(list)-n))
}
