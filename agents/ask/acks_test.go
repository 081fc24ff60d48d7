package ask_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/internal/wstest"
)

// TestReviewerAcks: a reviewer that checked a stale reference
// acknowledges it; the engine records the ack with the run's provenance,
// Stale no longer lists the reference, and a live replay acks nothing
// again.
func TestReviewerAcks(t *testing.T) {
	e := newEnv(t, memory.Options{}, 0)
	codeID := wstest.Create(t, e.s, "src/config.py", code)
	articleID := wstest.Create(t, e.s, "docs/config.md", article)
	wstest.MustEdit(t, e.s, codeID, "        return tomllib.load(f)\n", "        data = tomllib.load(f)\n        return data\n")
	if st := wstest.StaleSet(t, e.s); len(st) != 1 || !strings.HasPrefix(st[0], "docs/config.md code -> src/config.py#parse_config stale") {
		t.Fatalf("stale before the review: %v", st)
	}
	e.models["supervisor"].add(route(lunad.AskRoute{Intent: "review", Worker: "reviewer", Target: ptr(articleID), ReadDeps: []string{codeID}, Reason: "check the docs"}))
	e.models["reviewer"].add(
		tool("acknowledge", map[string]string{"id": articleID, "symbol": "parse_config"}),
		finish("the article still describes parse_config rightly"))
	info, res := e.ask("check that the docs are still right", "", false)
	if res.Status != lunad.AskDone || res.Summary != "the article still describes parse_config rightly" {
		t.Fatalf("%s: %+v", info.Status, res)
	}
	if st := wstest.StaleSet(t, e.s); len(st) != 0 {
		t.Errorf("still stale after the reviewer's ack: %v", st)
	}
	log := wstest.GitRun(t, e.s.Root(), "log", "-1", "--format=%an|%(trailers:key=Luna-Op,key=Luna-Artifact,key=Luna-Symbol,key=Luna-Run,key=Luna-Stage,key=Luna-Prompt,separator=%x2c,valueonly)")
	if want := "reviewer|" + articleID + ",ack,reviewer@1," + info.ID + ",reviewer,parse_config\n"; log != want {
		t.Errorf("the ack's commit: %q, want %q", log, want)
	}
	head := e.head()
	rep, err := e.s.ReplayRun(context.Background(), info.ID, true)
	if err != nil || !rep.Identical {
		t.Fatalf("live replay: %+v %v", rep, err)
	}
	if e.head() != head {
		t.Error("the replay committed")
	}
	if n := strings.Count(wstest.GitRun(t, e.s.Root(), "log", "--format=%(trailers:key=Luna-Op,valueonly)"), "ack"); n != 1 {
		t.Errorf("%d ack commits, want 1", n)
	}
}
