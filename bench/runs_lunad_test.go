package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/runs"
)

// rbEffects commits a stage's writes through the store, as the workspace
// service does, and counts the commits each idempotency key made: a key
// with two commits is a stage's effects applied twice.
type rbEffects struct {
	s       *gitstore.Store
	mu      sync.Mutex
	commits map[string]int
	d       *rbDurations
}

func (e *rbEffects) ApplyWrites(ctx context.Context, writes []lunad.StageWrite, ch lunad.Change) ([]lunad.ArtifactRef, error) {
	return e.apply(ctx, writes, ch, e.s.ApplyWrites)
}

// ApplyWritesDeferred is the workspace service's too: the engine leaves a
// stage commit's last sync to its append of STAGE_COMMITTED.
func (e *rbEffects) ApplyWritesDeferred(ctx context.Context, writes []lunad.StageWrite, ch lunad.Change) ([]lunad.ArtifactRef, error) {
	return e.apply(ctx, writes, ch, e.s.ApplyWritesDeferred)
}

func (e *rbEffects) apply(ctx context.Context, writes []lunad.StageWrite, ch lunad.Change,
	commit func(context.Context, []lunad.StageWrite, lunad.Change) ([]lunad.ArtifactRef, string, bool, error)) ([]lunad.ArtifactRef, error) {
	t0 := time.Now()
	refs, _, replayed, err := commit(ctx, writes, ch)
	e.d.add(time.Since(t0))
	if err == nil && !replayed {
		e.mu.Lock()
		e.commits[ch.IdempotencyKey]++
		e.mu.Unlock()
	}
	return refs, err
}
func (e *rbEffects) Ack(ctx context.Context, ref, symbol string, ch lunad.Change) (lunad.ArtifactRef, error) {
	res, err := e.s.Ack(ctx, ref, symbol, ch)
	if err == nil && !res.Replayed {
		e.mu.Lock()
		e.commits[ch.IdempotencyKey]++
		e.mu.Unlock()
	}
	return res.Ref(), err
}
func (e *rbEffects) Artifact(ctx context.Context, ref string) (lunad.Artifact, error) {
	return e.s.Artifact(ctx, ref)
}
func (e *rbEffects) Read(ctx context.Context, ref, at string) ([]byte, lunad.Artifact, error) {
	return e.s.Read(ctx, ref, at)
}

// rbStore times the engine's appends to the run log, deferred ones
// (gitstore.Store.AppendRunDeferred, which the engine uses for a stage's
// outcome) included.
type rbStore struct {
	*gitstore.Store
	d *rbDurations
}

func (s rbStore) AppendRun(ctx context.Context, runID, after string, recs []lunad.RunRecord) (string, error) {
	t0 := time.Now()
	tip, err := s.Store.AppendRun(ctx, runID, after, recs)
	s.d.add(time.Since(t0))
	return tip, err
}

func (s rbStore) AppendRunDeferred(ctx context.Context, runID, after string, recs []lunad.RunRecord) (string, error) {
	t0 := time.Now()
	tip, err := s.Store.AppendRunDeferred(ctx, runID, after, recs)
	s.d.add(time.Since(t0))
	return tip, err
}

// rbLunad runs workload w under lunad's engine in a fresh gitstore
// workspace (durable run events in git) and measures it.
func rbLunad(b *testing.B, w *rbWorkload) *rbResult {
	ctx := context.Background()
	root := b.TempDir()
	store, _, err := gitstore.Init(root, gitstore.Options{Human: gitstore.Signature{Name: "Bench", Email: "bench@example.com"},
		LockTimeout: 30 * time.Second, IndexSyncDelay: 50 * time.Millisecond}) // as the daemon opens its store
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	dir := filepath.Join(root, ".luna", "workflows")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, w.wfName()+".toml"), []byte(w.toml()), 0o644); err != nil {
		b.Fatal(err)
	}
	rec := &rbRecorder{on: true}
	agent := &rbAgent{faults: w.faults, work: rbWork, slow: rbSlowFor(w), rec: rec}
	res := &rbResult{system: "lunad engine", runs: w.runs}
	eff := &rbEffects{s: store, commits: map[string]int{}, d: &res.writes}
	eng, err := runs.Open(ctx, runs.Options{Root: root, Store: rbStore{store, &res.appends}, Effects: eff,
		Agents: map[string]lunad.Agent{"bench": agent}, Config: []byte("[runs]\nslots = " + strconv.Itoa(w.slots) + "\n"),
		Jitter: newJitter(rbSeed).next, Slots: w.slots, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()

	type started struct {
		id    string
		start time.Time
		end   time.Time
	}
	all := make([]started, w.runs)
	var wg sync.WaitGroup
	wait := func(i int) {
		defer wg.Done()
		wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		if _, err := eng.Wait(wctx, all[i].id); err != nil {
			b.Errorf("wait %s: %v", all[i].id, err)
		}
		all[i].end = time.Now()
	}
	t0 := time.Now()
	for i := range w.runs {
		start := time.Now()
		info, err := eng.Start(ctx, lunad.RunRequest{Workflow: w.wfName(), Params: map[string]string{"seed": strconv.FormatUint(w.seed(i), 10)}})
		if err != nil {
			b.Fatalf("%s: start: %v", w.name, err)
		}
		all[i] = started{id: info.ID, start: start}
		wg.Add(1)
		if w.parallel {
			go wait(i)
		} else {
			wait(i)
		}
	}
	wg.Wait()
	res.wall = time.Since(t0)
	rec.set(false) // live replays below run the agents again: not executions of the runs

	calls := rec.byRun()
	for _, r := range all {
		info, err := eng.Run(ctx, r.id)
		if err != nil {
			b.Fatal(err)
		}
		run := rbRun{id: r.id, start: r.start, end: r.end, status: string(info.Status), path: info.Path}
		startedAt := map[string]int{}
		for _, ev := range info.Events {
			res.events++
			switch ev.Type {
			case lunad.EventStageStarted:
				startedAt[fmt.Sprintf("%s/%d", ev.Stage, ev.Attempt)]++
			case lunad.EventDuplicateIgnored:
				res.dupIgnored++
			case lunad.EventDeadLettered:
				res.deadLetters++
			case lunad.EventRetryScheduled:
				run.busy = append(run.busy, rbSpan{ev.Time, ev.RetryAt})
			}
		}
		// Orphans: invocations of the agent that no STAGE_STARTED event
		// of the run's log explains.
		for _, c := range calls[r.id] {
			k := fmt.Sprintf("%s/%d", c.stage, c.attempt)
			if startedAt[k] > 0 {
				startedAt[k]--
			} else {
				res.orphans++
			}
			run.busy = append(run.busy, rbSpan{c.start, c.end})
			run.execs++
		}
		for k, n := range startedAt {
			if n > 0 {
				res.unrun += n
				b.Logf("lunad %s: run %s has %d STAGE_STARTED %s with no agent invocation", w.name, r.id, n, k)
			}
		}
		res.add(run)
	}
	for _, n := range eff.commits {
		res.appliedTwice += max(0, n-1)
	}
	// Replay every run from its log, then re-execute its agents (live).
	for _, live := range []bool{false, true} {
		rp := &res.replayLog
		if live {
			rp = &res.replayLive
		}
		for _, r := range all {
			rep, err := eng.Replay(ctx, r.id, live)
			if err != nil {
				b.Errorf("lunad %s: replay (live %v) of %s: %v", w.name, live, r.id, err)
				rp.add(false, false, 1)
				continue
			}
			same := slices.Equal(rep.Path, rep.ReplayPath)
			if !same || !rep.Identical {
				b.Logf("lunad %s: replay (live %v) of %s differs: %s", w.name, live, r.id, strings.Join(rep.Differences, "; "))
			}
			rp.add(same, rep.ReplayStatus == lunad.RunCompleted, rep.Divergence)
			if !live && res.success[r.id] && rep.ReplayStatus == lunad.RunCompleted {
				res.replayOK++
			}
		}
	}
	// Bytes: the objects reachable from the workload's run refs.
	var refs []string
	for _, r := range all {
		refs = append(refs, "refs/luna/runs/"+r.id)
	}
	res.bytes, err = gitObjectBytes(root, refs)
	if err != nil {
		b.Fatal(err)
	}
	return res
}

// gitObjectBytes sums the (uncompressed) sizes of the objects reachable
// from refs.
func gitObjectBytes(root string, refs []string) (int, error) {
	list := exec.Command("git", "rev-list", "--objects", "--stdin")
	list.Dir = root
	list.Stdin = strings.NewReader(strings.Join(refs, "\n") + "\n")
	objs, err := list.Output()
	if err != nil {
		return 0, fmt.Errorf("git rev-list: %v", err)
	}
	var ids strings.Builder
	for _, l := range strings.Split(string(objs), "\n") {
		if id, _, _ := strings.Cut(l, " "); id != "" {
			ids.WriteString(id + "\n")
		}
	}
	cat := exec.Command("git", "cat-file", "--batch-check=%(objectsize)")
	cat.Dir = root
	cat.Stdin = strings.NewReader(ids.String())
	out, err := cat.Output()
	if err != nil {
		return 0, fmt.Errorf("git cat-file: %v", err)
	}
	total := 0
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		n, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
		if err != nil {
			return 0, fmt.Errorf("git cat-file: %q", sc.Text())
		}
		total += n
	}
	return total, nil
}
