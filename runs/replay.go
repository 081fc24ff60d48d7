package runs

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/runs/workflow"
)

// Replay re-drives a run's workflow with the engine's own decision rules,
// feeding each attempt the outcome the log recorded (or, with live, the
// outcome of running the stage's agent again), and compares the state
// path, the terminal status and the tree of files the run wrote with the
// original. It writes nothing: the replay's tree is computed in memory.
func (e *Engine) Replay(ctx context.Context, id string, live bool) (lunad.ReplayReport, error) {
	st, events, err := e.read(ctx, id)
	if err != nil {
		return lunad.ReplayReport{}, err
	}
	rep := lunad.ReplayReport{Run: id, Live: live, Path: st.info.Path, Status: st.info.Status}
	if events[0].Type == lunad.EventRunPruned {
		return rep, fmt.Errorf("%w: run %s was pruned; only its summary is left, which cannot be replayed", lunad.ErrInvalid, id)
	}
	if !st.info.Status.Finished() {
		return rep, fmt.Errorf("%w: run %s is still running; replay it once it has finished (lunad run show %s)", lunad.ErrInvalid, id, id)
	}
	data, err := e.opts.Store.RunFile(ctx, id, 1, fileWorkflow)
	if err != nil {
		return rep, err
	}
	wf, err := workflow.Parse(st.info.Workflow+".toml", data)
	if err != nil {
		return rep, err
	}
	rec, err := e.recorded(ctx, id, events)
	if err != nil {
		return rep, err
	}
	orig := map[string][]byte{}
	for _, w := range st.writes {
		b, _, err := e.opts.Effects.Read(ctx, w.ID, w.Commit)
		if err != nil {
			return rep, fmt.Errorf("reading %s as run %s wrote it: %w", w.Path, id, err)
		}
		orig[w.Path] = b
	}
	sim := &simulation{e: e, wf: wf, rec: rec, live: live, tree: map[string][]byte{}, conflicts: map[[2]int]string{}, committed: map[int][]lunad.ArtifactRef{}}
	for _, ev := range events {
		switch ev.Type {
		case lunad.EventStageConflict:
			sim.conflicts[[2]int{ev.Visit, ev.Attempt}] = ev.Error
		case lunad.EventStageCommitted:
			sim.committed[ev.Visit] = ev.Writes
		}
	}
	got, err := sim.run(ctx, events)
	if err != nil {
		return rep, err
	}
	rep.ReplayPath, rep.ReplayStatus = got.info.Path, got.info.Status
	rep.Tree, rep.ReplayTree = treeHash(orig), treeHash(sim.tree)
	if !slices.Equal(rep.Path, rep.ReplayPath) {
		rep.Differences = append(rep.Differences, fmt.Sprintf("state path: %s, replayed: %s", strings.Join(rep.Path, " → "), strings.Join(rep.ReplayPath, " → ")))
	}
	if rep.Status != rep.ReplayStatus {
		rep.Differences = append(rep.Differences, fmt.Sprintf("status: %s, replayed: %s", rep.Status, rep.ReplayStatus))
	}
	if rep.Tree != rep.ReplayTree {
		rep.Differences = append(rep.Differences, "the tree the run wrote differs")
	}
	rep.Differences = append(rep.Differences, sim.diffs...)
	rep.Divergence = sim.divergence()
	if last := func(p []string) string {
		if len(p) == 0 {
			return ""
		}
		return p[len(p)-1]
	}; last(rep.Path) != last(rep.ReplayPath) || rep.Status != rep.ReplayStatus {
		rep.Divergence = 1
	}
	rep.Identical = len(rep.Differences) == 0
	return rep, nil
}

// recordedOutcome is an attempt's outcome as the log holds it.
type recordedOutcome struct {
	o   outcome
	req lunad.StageRequest
	// files are the Files of a successful attempt, as stored beside it.
	files map[string]string
}

// recorded reads the outcome of every attempt the engine decided on
// (interrupted attempts are not decisions), per stage visit, in order.
func (e *Engine) recorded(ctx context.Context, id string, events []lunad.RunEvent) (map[int][]recordedOutcome, error) {
	out := map[int][]recordedOutcome{}
	for _, ev := range events {
		if (ev.Type != lunad.EventStageSucceeded && ev.Type != lunad.EventStageFailed) || ev.Interrupted {
			continue
		}
		var r recordedOutcome
		if b, err := e.opts.Store.RunFile(ctx, id, ev.Seq, fileRequest); err == nil {
			json.Unmarshal(b, &r.req)
		}
		b, err := e.opts.Store.RunFile(ctx, id, ev.Seq, fileResponse)
		switch {
		case err == nil:
			var sr storedResponse
			if err := json.Unmarshal(b, &sr); err != nil {
				return nil, fmt.Errorf("run %s event %d: %s: %w", id, ev.Seq, fileResponse, err)
			}
			r.o.resp = sr.StageResponse
			for _, name := range sr.FileNames {
				f, err := e.opts.Store.RunFile(ctx, id, ev.Seq, filesDir+name)
				if err != nil {
					return nil, err
				}
				if r.files == nil {
					r.files = map[string]string{}
				}
				r.files[name] = string(f)
			}
		case ev.Type == lunad.EventStageFailed:
			r.o.err = &lunad.AgentError{Permanent: ev.Permanent, Err: fmt.Errorf("%s", ev.Error)}
		default:
			return nil, err
		}
		out[ev.Visit] = append(out[ev.Visit], r)
	}
	return out, nil
}

// simulation re-drives a run in memory.
type simulation struct {
	e    *Engine
	wf   *workflow.Workflow
	rec  map[int][]recordedOutcome
	live bool
	tree map[string][]byte
	// conflicts are the original's STAGE_CONFLICT errors by visit and
	// attempt, committed its STAGE_COMMITTED writes by visit: a person's
	// concurrent change is a fact of the run, as an agent's output is.
	conflicts map[[2]int]string
	committed map[int][]lunad.ArtifactRef
	diffs     []string
	// outputs compared in a live replay: how many, how many differed.
	compared, differed int
}

// run drives a fresh state from the original RUN_CREATED with the
// recorded outcomes, applying the original's hand-made steps (retry,
// cancel) where the replay reaches them.
func (s *simulation) run(ctx context.Context, events []lunad.RunEvent) (*state, error) {
	st := fold(events[:1], "")
	var manual []lunad.RunEvent
	for _, ev := range events {
		if ev.Type == lunad.EventRunRetried || ev.Type == lunad.EventRunCancelled {
			manual = append(manual, ev)
		}
	}
	used := map[int]int{}
	apply := func(evs []lunad.RunEvent) {
		for _, ev := range evs {
			ev.Seq = st.seq + 1
			st.apply(ev)
		}
	}
	for steps := 0; steps < 100000; steps++ {
		now := st.info.Updated
		switch st.phase {
		case phaseCreated:
			apply(st.enqueue(s.wf.Start, 1, 1, "", now))
		case phaseRetry, phaseRetried:
			apply(st.enqueue(st.stage, st.visit, st.attempt+1, "", now))
		case phaseEnqueued:
			apply([]lunad.RunEvent{st.stageEvent(lunad.EventStageStarted, now)})
		case phaseStarted:
			recs := s.rec[st.visit]
			if used[st.visit] >= len(recs) {
				if len(manual) > 0 && manual[0].Type == lunad.EventRunCancelled {
					apply(manual[:1])
					manual = manual[1:]
					continue
				}
				return st, fmt.Errorf("replay of run %s reached attempt %d of stage %s (visit %d), which the log has no outcome for", st.info.ID, st.attempt, st.stage, st.visit)
			}
			i := used[st.visit]
			used[st.visit]++
			o := recs[i].o
			if s.live {
				o = s.rerun(ctx, st, recs[i])
				recs[i].o = o // the replay's tree takes the new writes
			}
			// The jitter only sets RetryAt, never the path.
			apply(st.onOutcome(s.wf, o, now, 0))
		case phaseSucceeded:
			if why, ok := s.conflicts[[2]int{st.visit, st.attempt}]; ok {
				apply(st.onConflict(s.wf, why, now, 0))
				continue
			}
			recs := s.rec[st.visit]
			resp := recs[used[st.visit]-1].o.resp
			var refs []lunad.ArtifactRef
			for _, w := range withBases(resp.Writes, st.inputs()) {
				content, err := s.written(ctx, st.visit, w)
				if err != nil {
					return st, err
				}
				s.tree[w.Path] = content
				refs = append(refs, lunad.ArtifactRef{Path: w.Path})
			}
			apply(st.afterCommit(refs, "", now))
		case phaseFinished:
			if len(manual) > 0 && manual[0].Type == lunad.EventRunRetried {
				apply(manual[:1])
				manual = manual[1:]
				continue
			}
			return st, nil
		default:
			return st, fmt.Errorf("replay of run %s stopped in a state the engine never leaves a run in", st.info.ID)
		}
	}
	return st, fmt.Errorf("replay of run %s did not finish", st.info.ID)
}

// rerun runs the stage's agent again on the replay's request (live
// replay) and compares its output with the recorded one.
func (s *simulation) rerun(ctx context.Context, st *state, r recordedOutcome) outcome {
	req := request(s.wf, st)
	req.Replay, req.Recorded = true, s.original(st.visit)
	if req.Branch != "" && s.e.opts.Isolation != nil {
		req.Dir = s.e.opts.Isolation.Dir(st.info.ID) // as the run had it; it may be gone
	}
	var o outcome
	agent, err := s.e.agent(s.wf.Stages[st.stage])
	if err != nil {
		o.err = err
	} else {
		actx, cancel := context.WithTimeout(ctx, s.wf.Stages[st.stage].Timeout)
		o.resp, o.err = agent.Process(actx, req)
		cancel()
	}
	s.compared++
	if !sameOutcome(r.o, o) {
		s.differed++
		s.diffs = append(s.diffs, fmt.Sprintf("stage %s (visit %d, attempt %d): output %s, replayed: %s", st.stage, st.visit, st.attempt, describe(r.o), describe(o)))
	}
	return o
}

// original is the Files of visit's successful attempt, as the log holds
// them (nil if it has none).
func (s *simulation) original(visit int) map[string]string {
	for _, r := range s.rec[visit] {
		if r.files != nil { // stored for a success only
			return maps.Clone(r.files)
		}
	}
	return nil
}

func (s *simulation) divergence() float64 {
	if s.compared == 0 {
		return 0
	}
	return float64(s.differed) / float64(s.compared)
}

func sameOutcome(a, b outcome) bool {
	fa, pa, _ := a.failed()
	fb, pb, _ := b.failed()
	if fa != fb || pa != pb {
		return false
	}
	return fa || jsonEqual(a.resp.Output, b.resp.Output)
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	json.Unmarshal(a, &x)
	json.Unmarshal(b, &y)
	bx, _ := json.Marshal(x)
	by, _ := json.Marshal(y)
	return bytes.Equal(bx, by)
}

func describe(o outcome) string {
	if failed, _, why := o.failed(); failed {
		return "failure (" + why + ")"
	}
	if len(o.resp.Output) == 0 {
		return "{}"
	}
	return string(o.resp.Output)
}

// treeHash is the git tree hash of files (paths relative to the root),
// as `git write-tree` would compute it; "" for no files.
func treeHash(files map[string][]byte) string {
	if len(files) == 0 {
		return ""
	}
	return hex.EncodeToString(writeTree(files))
}

func writeTree(files map[string][]byte) []byte {
	type entry struct {
		name string
		dir  bool
		hash []byte
	}
	subs := map[string]map[string][]byte{}
	var entries []entry
	for p, content := range files {
		if dir, rest, ok := strings.Cut(p, "/"); ok {
			if subs[dir] == nil {
				subs[dir] = map[string][]byte{}
			}
			subs[dir][rest] = content
			continue
		}
		entries = append(entries, entry{name: p, hash: object("blob", content)})
	}
	for dir, sub := range subs {
		entries = append(entries, entry{name: dir, dir: true, hash: writeTree(sub)})
	}
	// git sorts a directory as if its name ended with "/".
	key := func(e entry) string {
		if e.dir {
			return e.name + "/"
		}
		return e.name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	var buf bytes.Buffer
	for _, e := range entries {
		mode := "100644"
		if e.dir {
			mode = "40000"
		}
		fmt.Fprintf(&buf, "%s %s\x00", mode, e.name)
		buf.Write(e.hash)
	}
	return object("tree", buf.Bytes())
}

func object(kind string, content []byte) []byte {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(content))
	h.Write(content)
	return h.Sum(nil)
}

// written is what write w of visit put in the workspace: its content, or,
// when the original merged it into a version made since its base, the
// same merge of the version before the visit's commit.
func (s *simulation) written(ctx context.Context, visit int, w lunad.StageWrite) ([]byte, error) {
	if w.Base == "" || s.e.opts.Merge == nil {
		return []byte(w.Content), nil
	}
	var ref lunad.ArtifactRef
	for _, c := range s.committed[visit] {
		if c.Path == w.Path {
			ref = c
		}
	}
	if ref.Version <= 1 {
		return []byte(w.Content), nil // created by the write, or never committed
	}
	base, _, err := s.e.opts.Effects.Read(ctx, ref.ID, w.Base)
	if err != nil {
		return nil, fmt.Errorf("reading %s at the base its write was computed from: %w", w.Path, err)
	}
	ours, _, err := s.e.opts.Effects.Read(ctx, ref.ID, strconv.Itoa(ref.Version-1))
	if err != nil {
		return nil, fmt.Errorf("reading %s as it was before the stage's commit: %w", w.Path, err)
	}
	if bytes.Equal(base, ours) {
		return []byte(w.Content), nil
	}
	merged, conflicts := s.e.opts.Merge(base, ours, []byte(w.Content), w.Edits)
	if len(conflicts) > 0 {
		return []byte(w.Content), nil // the original could not have committed it: the tree comparison tells
	}
	return merged, nil
}
