package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestProgressBar: the first and the last frame are always drawn, the
// others at most every barEvery; clear erases the line only if a frame
// was drawn.
func TestProgressBar(t *testing.T) {
	for _, tc := range []struct {
		name   string
		step   time.Duration // the clock's advance per call
		total  int
		frames int
	}{
		{"clock stopped: first and last", 0, 100, 2},
		{"every 50ms: every other", 50 * time.Millisecond, 10, 6},
		{"every second: all", time.Second, 10, 10},
		{"one unit", 0, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			b := &progressBar{w: &out, label: "work", now: func() time.Time { now = now.Add(tc.step); return now }}
			for i := 1; i <= tc.total; i++ {
				b.draw(i, tc.total)
			}
			frames := strings.Split(out.String(), "\r\x1b[K")[1:]
			if len(frames) != tc.frames {
				t.Fatalf("%d frames, want %d: %q", len(frames), tc.frames, frames)
			}
			if last, want := frames[len(frames)-1], fmt.Sprintf("work [%s] %d/%d", strings.Repeat("#", barWidth), tc.total, tc.total); last != want {
				t.Errorf("last frame %q, want %q", last, want)
			}
			b.clear()
			if !strings.HasSuffix(out.String(), "/"+fmt.Sprint(tc.total)+"\r\x1b[K") {
				t.Errorf("not cleared at the end: %q", out.String())
			}
		})
	}
	t.Run("nothing drawn, nothing cleared", func(t *testing.T) {
		var out bytes.Buffer
		(&progressBar{w: &out, now: time.Now}).clear()
		var none *progressBar
		none.clear()
		if out.Len() != 0 || none.report() != nil {
			t.Fatalf("wrote %q", out.String())
		}
	})
}

// docsRepo is a git repository (not a workspace yet) of n Markdown pages.
func docsRepo(t *testing.T, n int) *ws {
	t.Helper()
	w := newDir(t)
	for i := range n {
		p := filepath.Join(w.dir, "docs", fmt.Sprintf("p%02d.md", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "# Page %d\n\nSee `main`.\n", i), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.git("init", "-q", "-b", "main")
	w.git("add", ".")
	w.git("commit", "-q", "-m", "docs")
	return w
}

// runTerm runs `lunad ARGS --dir DIR` (and --json with asJSON) in this
// process with w's environment, stderr a terminal as terminal says, and a
// clock that moves a second at each reading, so that a bar draws every
// frame. It returns the outputs, the Main, and the writers asked whether
// they are a terminal.
func runTerm(t *testing.T, w *ws, terminal, asJSON bool, args ...string) (stdout, stderr string, m *Main, asked []io.Writer) {
	t.Helper()
	vars := map[string]string{}
	for _, kv := range env(w.home, w.env...) {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m = &Main{
		Getenv:     func(k string) string { return vars[k] },
		IsTerminal: func(s io.Writer) bool { asked = append(asked, s); return terminal },
		Now:        func() time.Time { now = now.Add(time.Second); return now },
	}
	args = append(args, "--dir", w.dir)
	if asJSON {
		args = append(args, "--json")
	}
	stdout, stderr, err := runMain(m, "", args...)
	if err != nil {
		t.Fatalf("lunad %q: %v\n%s", args, err, stderr)
	}
	return stdout, stderr, m, asked
}

// TestInitProgress: `lunad init` on a repository draws a bar for the
// adoption and one for the index on stderr when it is a terminal, and
// clears them; nothing when stderr is not a terminal or with --json. The
// standard output is the same either way.
func TestInitProgress(t *testing.T) {
	const files = 25
	for _, tc := range []struct {
		name     string
		terminal bool
		json     bool
		bars     bool
	}{
		{"terminal", true, false, true},
		{"not a terminal", false, false, false},
		{"terminal, --json", true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := docsRepo(t, files)
			out, errs, m, asked := runTerm(t, w, tc.terminal, tc.json, "init")
			if tc.json {
				var rep initJSON
				if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Adopted) != files {
					t.Fatalf("--json output %q: %v", out, err)
				}
			} else if !strings.Contains(out, fmt.Sprintf("adopted %d files\n", files)) {
				t.Fatalf("stdout %q", out)
			}
			if !tc.bars {
				if errs != "" {
					t.Fatalf("stderr %q, want nothing", errs)
				}
				return
			}
			for _, s := range asked {
				if s != m.Stderr {
					t.Errorf("asked whether %T is a terminal, want stderr", s)
				}
			}
			// The adoption draws a frame per file; the index build is told
			// at most once per whole percentage, figures coalescing when
			// the bar is slower than the parse workers.
			adopting, indexing, ok := strings.Cut(errs, "\r\x1b[Kindexing references")
			if !ok {
				t.Fatalf("no index bar: %q", errs)
			}
			checkBar(t, adopting, "adopting files", files)
			if got := strings.Count(adopting, "\r\x1b[K"); got != files+1 {
				t.Errorf("%d adoption frames and clears, want %d (a frame per file, a clear)", got, files+1)
			}
			checkBar(t, "\r\x1b[Kindexing references"+indexing, "indexing references", files)
		})
	}
}

// TestIndexBar: a command that waits for the reference index — `lunad
// stale` through a `lunad serve` daemon that has not built it yet, or in
// a process of its own — draws the build on stderr when it is a terminal:
// frames of a rising count of the same total, the last with every
// artifact parsed, then the line erased. Nothing when stderr is not a
// terminal or with --json, and nothing once the daemon has built its
// index. The standard output is the same either way.
func TestIndexBar(t *testing.T) {
	const files = 40
	for _, tc := range []struct {
		name      string
		daemon    bool
		terminal  bool
		json      bool
		warmFirst bool // the daemon built its index before the command
		bar       bool
	}{
		{"daemon, terminal", true, true, false, false, true},
		{"daemon, terminal, index built", true, true, false, true, false},
		{"daemon, not a terminal", true, false, false, false, false},
		{"daemon, terminal, --json", true, true, true, false, false},
		{"in-process, terminal", false, true, false, false, true},
		{"in-process, not a terminal", false, false, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := docsRepo(t, files)
			w.ok("init")
			want := w.ok("stale") // in a process of its own, no terminal
			if tc.json {
				want = w.ok("stale", "--json")
			}
			served := uint64(0)
			if tc.daemon {
				w.serve()
				if tc.warmFirst {
					// refs needs the index; stale may be answered from
					// what the in-process run above saved, building none.
					w.ok("refs", "docs/p00.md")
				}
				served = w.served()
			}
			out, errs, _, _ := runTerm(t, w, tc.terminal, tc.json, "stale")
			if out != want {
				t.Errorf("stdout %q, want %q as without a terminal", out, want)
			}
			if tc.daemon && w.served() <= served+1 { // this check's own hello, and the command's calls
				t.Errorf("the command did not go through the daemon: %d calls served before, %d after", served, w.served())
			}
			if !tc.bar {
				if errs != "" {
					t.Fatalf("stderr %q, want nothing", errs)
				}
				return
			}
			checkBar(t, errs, "indexing references", files)
		})
	}
}

// checkBar fails unless stderr is frames of one bar labelled label — a
// count rising to total, the last frame full — and then the line erased.
func checkBar(t *testing.T, stderr, label string, total int) {
	t.Helper()
	frames := strings.Split(stderr, "\r\x1b[K")
	if len(frames) < 3 || frames[0] != "" || frames[len(frames)-1] != "" {
		t.Fatalf("stderr %q is not frames followed by an erased line", stderr)
	}
	frame := regexp.MustCompile(`^` + regexp.QuoteMeta(label) + ` \[([#-]{` + fmt.Sprint(barWidth) + `})\] (\d+)/(\d+)$`)
	last := -1
	for _, f := range frames[1 : len(frames)-1] {
		m := frame.FindStringSubmatch(f)
		if m == nil {
			t.Fatalf("frame %q is not %q [BAR] DONE/TOTAL", f, label)
		}
		done, _ := strconv.Atoi(m[2])
		n, _ := strconv.Atoi(m[3])
		if n != total || done <= last || strings.Count(m[1], "#") != barWidth*done/total {
			t.Fatalf("frame %q after %d done: want a rising count of %d and its bar", f, last, total)
		}
		last = done
	}
	if last != total {
		t.Fatalf("last frame at %d of %d: %q", last, total, stderr)
	}
}
