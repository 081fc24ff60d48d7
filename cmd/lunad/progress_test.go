package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
			w := newDir(t)
			for i := range files {
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
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			var asked []io.Writer
			m := &Main{
				Getenv: func(k string) string {
					return map[string]string{"LUNAD_AUTHOR_NAME": "Ada", "LUNAD_AUTHOR_EMAIL": "ada@example.com", "HOME": w.home}[k]
				},
				IsTerminal: func(s io.Writer) bool { asked = append(asked, s); return tc.terminal },
				Now:        func() time.Time { now = now.Add(time.Second); return now },
			}
			args := []string{"init", "--dir", w.dir}
			if tc.json {
				args = append(args, "--json")
			}
			out, errs, err := runMain(m, "", args...)
			if err != nil {
				t.Fatalf("init: %v\n%s", err, errs)
			}
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
			full := strings.Repeat("#", barWidth)
			for _, want := range []string{
				fmt.Sprintf("\r\x1b[Kadopting files [#%s] 1/%d", strings.Repeat("-", barWidth-1), files),
				fmt.Sprintf("\r\x1b[Kadopting files [%s] %d/%d\r\x1b[K", full, files, files),
				fmt.Sprintf("\r\x1b[Kindexing references [%s] %d/%d\r\x1b[K", full, files, files),
			} {
				if !strings.Contains(errs, want) {
					t.Errorf("stderr lacks %q:\n%q", want, errs)
				}
			}
			if got := strings.Count(errs, "\r\x1b[K"); got != 2*files+2 {
				t.Errorf("%d frames and clears, want %d (a frame per file and per artifact, two clears)", got, 2*files+2)
			}
			if !strings.HasSuffix(errs, "\r\x1b[K") {
				t.Errorf("stderr does not end cleared: %q", errs)
			}
		})
	}
}
