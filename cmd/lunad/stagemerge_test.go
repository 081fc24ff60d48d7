package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad"
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
	var saveErr error
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
				err = w.awaitHumanVersion("docs/config.md")
			}
			saveErr = err
		})
	}
	res := w.ask("change the second paragraph to mention JSON", "--artifact", "docs/config.md")
	if saveErr != nil {
		t.Fatalf("the person's save: %v", saveErr)
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

// awaitHumanVersion waits until the watcher has committed a person's
// save of path as a human version (at most 30 s), from any goroutine.
func (w *ws) awaitHumanVersion(path string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := w.gitRun("log", "-1", "--format=%(trailers:key=Luna-Op,valueonly,separator=)", "--", path)
		if err == nil && strings.TrimSpace(out) == "human" {
			return nil
		}
		if time.Now().After(deadline) {
			return os.ErrDeadlineExceeded
		}
		time.Sleep(20 * time.Millisecond)
	}
}
