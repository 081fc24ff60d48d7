package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/wstest"
)

const (
	mergeArticle = "# Reading a config\n\nThe first paragraph.\n\nThe second paragraph.\n\nThe third paragraph.\n"
	personsLine  = "The third paragraph, as the person typed it while the writer worked.\n"
)

// TestAskKeepsPersonsSave attacks a stage's write silently reverting a
// person's save: a real daemon and its watcher, an ask whose writer edits
// the second paragraph of an article, and — while the writer's model call
// is in flight (a slow stand-in model) — a person's save of the third
// paragraph, which the watcher commits as a human version. The ask's
// commit must keep the person's paragraph: the stage's write is merged
// into the version the person saved, not put over it.
func TestAskKeepsPersonsSave(t *testing.T) {
	m := &testModel{Key: scenarioKey}
	srv := openAIServer(t, m)
	w := askWS(t, "openai", srv.URL+"/v1", "gpt-test")
	w.create("docs/config.md", mergeArticle)
	path := filepath.Join(w.dir, "docs", "config.md")
	var once sync.Once
	saved := make(chan error, 1) // the save's outcome, from the model's handler
	// Set under the model's lock: the handler reads it from the HTTP
	// server's goroutine, and the ask that calls it runs in another
	// process, which gives the race detector no order between them.
	m.mu.Lock()
	m.Working = func(s seen) {
		if s.Role != "writer" {
			return
		}
		once.Do(func() {
			b, err := os.ReadFile(path)
			if err == nil {
				err = os.WriteFile(path, []byte(strings.Replace(string(b), "The third paragraph.\n", personsLine, 1)), 0o644)
			}
			if err == nil {
				// The watcher commits the save as a human version.
				err = w.awaitGit(func(op string) bool { return strings.TrimSpace(op) == "human" },
					"log", "-1", "--format=%(trailers:key=Luna-Op,valueonly,separator=)", "--", "docs/config.md")
			}
			saved <- err
		})
	}
	m.mu.Unlock()
	res := w.ask("change the second paragraph to mention JSON", "--artifact", "docs/config.md")
	select {
	case err := <-saved:
		if err != nil {
			t.Fatalf("the person's save: %v", err)
		}
	default:
	}
	if res.Status != lunad.AskDone || len(res.Changes) != 1 {
		t.Fatalf("ask: %+v", res)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), personsLine) || !strings.Contains(string(got), "and a JSON file through the json module works the same way.") {
		t.Fatalf("docs/config.md after the ask:\n%s\nwant the person's third paragraph and the writer's second", got)
	}
	if show := w.ok("show", "docs/config.md"); show != string(got) {
		t.Fatalf("lunad show differs from the file:\n%s", show)
	}
	if ops := w.git("log", "--format=%(trailers:key=Luna-Op,valueonly,separator=)", "--", "docs/config.md"); ops != "edit\nhuman\ncreate\n" {
		t.Fatalf("docs/config.md's history, newest first:\n%s", ops)
	}
	w.git("fsck", "--strict", "--no-progress")
}

// awaitGit waits until git's output for args satisfies ok (at most 30 s),
// from any goroutine: what the watcher has recorded.
func (w *ws) awaitGit(ok func(out string) bool, args ...string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := w.gitRun(args...)
		if err == nil && ok(out) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("git %s: still %q after 30 s", strings.Join(args, " "), out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// markStage is a workflow stage's process agent: it reads a.md as HEAD
// has it, works a while (a slow agent), and writes it back with its
// run's marker before the first paragraph, naming HEAD as its base.
const markStage = `import json, subprocess, sys, time
req = json.load(sys.stdin)
base = subprocess.check_output(["git", "rev-parse", "HEAD"]).decode().strip()
text = subprocess.check_output(["git", "show", base + ":a.md"]).decode()
time.sleep(0.3)
text = text.replace("The first paragraph.\n", req["params"]["marker"] + "\nThe first paragraph.\n", 1)
print(json.dumps({"status": "ok", "writes": [{"path": "a.md", "content": text, "base": base}]}))
`

// TestHandAndStages is TestHandAndAgent for stage writes: a real daemon
// and watcher, a person saving a.md over and over (a line appended, by
// temp file and rename, as editors save) while asks edit its second
// paragraph and workflow runs insert lines before its first, each stage
// computing its write from a version the person has saved past.
// Afterwards every line the person saved is in a.md — no stage's write
// put an older version over it — and every completed ask's and run's
// marker is in a.md's history; git fsck --strict is clean.
func TestHandAndStages(t *testing.T) {
	const asks, stages = 4, 6
	m := &testModel{Key: scenarioKey}
	srv := openAIServer(t, m)
	w := askWS(t, "openai", srv.URL+"/v1", "gpt-test")
	w.create("a.md", "# A\n\nThe first paragraph.\n\nThe second paragraph.\n\ntail\n")
	for _, d := range []string{"agents", ".luna/workflows"} {
		if err := os.MkdirAll(filepath.Join(w.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(w.dir, "agents", "mark.py"), []byte(markStage), 0o644); err != nil {
		t.Fatal(err)
	}
	wf := "name = \"mark\"\nversion = \"1\"\nstart = \"s\"\n[stages.s]\ncommand = [\"" + wstest.Python(t) + "\", \"agents/mark.py\"]\n" +
		"retry = { max_attempts = 5, initial = \"10ms\", max = \"100ms\" }\n[[stages.s.next]]\nto = \"end\"\n"
	if err := os.WriteFile(filepath.Join(w.dir, ".luna", "workflows", "mark.toml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	var (
		mu     sync.Mutex
		acked  []string // markers of asks and runs that completed
		saved  []string // lines the person saved
		failed []string
	)
	note := func(list *[]string, s string) {
		mu.Lock()
		*list = append(*list, s)
		mu.Unlock()
	}
	var agents, person sync.WaitGroup
	agents.Go(func() {
		for i := range asks {
			marker := fmt.Sprintf("A-%d", i)
			out, err := w.lunadStdout("ask", "--json", "mark the second paragraph with "+marker, "--artifact", "a.md")
			var res lunad.AskResult
			if err != nil || json.Unmarshal([]byte(out), &res) != nil || res.Status != lunad.AskDone {
				note(&failed, fmt.Sprintf("ask %s: %v: %s", marker, err, out))
				continue
			}
			note(&acked, marker)
		}
	})
	agents.Go(func() {
		for i := range stages {
			marker := fmt.Sprintf("S-%d", i)
			out, err := w.lunad("run", "start", "mark", "--param", "marker="+marker, "--wait")
			if err != nil {
				note(&failed, fmt.Sprintf("run %s: %v: %s", marker, err, out))
				continue
			}
			note(&acked, marker)
		}
	})
	done := make(chan struct{})
	person.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			marker := fmt.Sprintf("H-%d", i)
			if err := saveByHand(filepath.Join(w.dir, "a.md"), marker); err != nil {
				note(&failed, fmt.Sprintf("save %s: %v", marker, err))
			} else {
				note(&saved, marker)
			}
			time.Sleep(40 * time.Millisecond) // a person's pace
		}
	})
	agents.Wait()
	close(done)
	person.Wait()
	// The person's last save recorded: git sees no change to a.md.
	if err := w.awaitGit(func(st string) bool { return strings.TrimSpace(st) == "" }, "status", "--porcelain", "--", "a.md"); err != nil {
		t.Fatal(err)
	}
	if len(acked) < (asks+stages)/2 || len(saved) < 10 {
		t.Fatalf("too little happened: %d asks and runs completed, %d saves\nfailures:\n%s", len(acked), len(saved), strings.Join(failed, "\n"))
	}
	final, err := os.ReadFile(filepath.Join(w.dir, "a.md"))
	if err != nil {
		t.Fatal(err)
	}
	var lost []string
	for _, m := range saved {
		if !bytes.Contains(final, []byte("\n"+m+"\n")) {
			lost = append(lost, m)
		}
	}
	if len(lost) > 0 {
		t.Fatalf("%d of the person's %d saved lines are no longer in a.md: %v\na.md:\n%s", len(lost), len(saved), lost, final)
	}
	history := w.git("log", "-p", "--format=%H", "--", "a.md")
	for _, m := range acked {
		if !strings.Contains(history, m) {
			t.Errorf("completed %s is not in a.md's history", m)
		}
	}
	w.git("fsck", "--strict", "--no-progress")
	t.Logf("%d asks and runs completed, %d saves, %d failures", len(acked), len(saved), len(failed))
	for _, f := range failed {
		t.Logf("failed (a conflict with a save the person made over the stage's work is one): %.400s", f)
	}
}

// lunadStdout runs lunad in the workspace from any goroutine and returns
// its stdout; its stderr is in the error.
func (w *ws) lunadStdout(args ...string) (string, error) {
	cmd := exec.Command(lunadBin, append(args, "--dir", w.dir)...)
	cmd.Dir = w.dir
	cmd.Env = env(w.home, w.env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		err = fmt.Errorf("%w: %s", err, stderr.String())
	}
	return string(out), err
}
