package runs_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/runs"
)

const (
	docBase  = "# Config\n\nfirst\n\nsecond\n\nthird\n"
	docHand  = "# Config\n\nfirst\n\nsecond\n\nthird, typed by a person\n"
	docBoth  = "# Config\n\nfirst\n\nsecond, by the agent\n\nthird, typed by a person\n"
	docClash = "# Config\n\nfirst\n\nsecond\n\nthird, as the agent would have it\n"
)

// TestStageWriteKeepsPersonsSave attacks the overwrite of a person's save
// made while a stage ran: the stage read config.md at its version 1, the
// person saved a change to it, and the stage's whole-content result must
// not revert that change. A clean merge is committed; a conflict is a
// failed attempt (STAGE_CONFLICT) run again on the new content, or, at the
// stage's attempt limit, a dead letter naming both versions. Replay
// follows the same path to the same tree.
func TestStageWriteKeepsPersonsSave(t *testing.T) {
	for _, c := range []struct {
		name   string
		retry  string
		result string // the agent's content on its first attempt
		status lunad.RunStatus
		events []string
		want   string
	}{
		{"clean merge", "", "# Config\n\nfirst\n\nsecond, by the agent\n\nthird\n", lunad.RunCompleted,
			[]string{"RUN_CREATED", "STAGE_ENQUEUED s", "STAGE_STARTED s", "STAGE_SUCCEEDED s", "STAGE_COMMITTED s", "RUN_COMPLETED"}, docBoth},
		{"conflict, tried again on the new content", `retry = { max_attempts = 2, initial = "10ms", max = "20ms" }`, docClash, lunad.RunCompleted,
			[]string{"RUN_CREATED", "STAGE_ENQUEUED s", "STAGE_STARTED s", "STAGE_SUCCEEDED s", "STAGE_CONFLICT s", "RETRY_SCHEDULED s",
				"STAGE_ENQUEUED s", "STAGE_STARTED s", "STAGE_SUCCEEDED s", "STAGE_COMMITTED s", "RUN_COMPLETED"}, docBoth},
		{"conflict at the attempt limit", `retry = { max_attempts = 1 }`, docClash, lunad.RunDeadLettered,
			[]string{"RUN_CREATED", "STAGE_ENQUEUED s", "STAGE_STARTED s", "STAGE_SUCCEEDED s", "STAGE_CONFLICT s", "DEAD_LETTERED s", "RUN_ABORTED s"}, docHand},
	} {
		t.Run(c.name, func(t *testing.T) {
			var w *workspace
			var base atomic.Value
			a := &goAgent{fn: func(req lunad.StageRequest, call int) lunad.StageResponse {
				cur, art, err := w.store.Read(context.Background(), "config.md", "")
				if err != nil {
					return lunad.StageResponse{Status: "fail", Error: err.Error()}
				}
				if call == 1 {
					// The person saves while the stage works on what it read.
					base.Store(art.Commit)
					w.file("config.md", docHand)
					return lunad.StageResponse{Status: "ok", Writes: []lunad.StageWrite{{Path: "config.md", Content: c.result, Base: art.Commit}}}
				}
				// Run again: it reads the person's version and changes its own paragraph.
				out := strings.Replace(string(cur), "second\n", "second, by the agent\n", 1)
				return lunad.StageResponse{Status: "ok", Writes: []lunad.StageWrite{{Path: "config.md", Content: out, Base: art.Commit}}}
			}}
			w = newWorkspaceWith(t, nil, withAgent(a, nil))
			w.file(".luna/workflows/m.toml", agentWorkflow("m", c.retry+"\n"+toEnd))
			if _, err := w.store.Create(context.Background(), lunad.CreateSpec{Title: "config", Path: "config.md", Content: []byte(docBase)}); err != nil {
				t.Fatal(err)
			}
			info := w.run(lunad.RunRequest{Workflow: "m"})
			if got := wstest.EventTypes(info); info.Status != c.status || !slices.Equal(got, c.events) {
				t.Fatalf("run %s (%s), events:\n%s", info.Status, info.Error, strings.Join(got, "\n"))
			}
			if b, _ := os.ReadFile(filepath.Join(w.root, "config.md")); string(b) != c.want {
				t.Fatalf("config.md = %q, want %q", b, c.want)
			}
			if c.status == lunad.RunDeadLettered {
				// The report names the version the stage read and the one it met.
				first := base.Load().(string)
				now := strings.TrimSpace(w.git("log", "-1", "--format=%H", "--", "config.md"))
				if now == first || !strings.Contains(info.Error, first[:12]) || !strings.Contains(info.Error, now[:12]) || !strings.Contains(info.Error, "conflict") {
					t.Fatalf("error %q does not name the base %s and the person's version %s", info.Error, first, now)
				}
				w.fsck()
				return
			}
			if log := w.git("log", "--format=%an", "-3", "--", "config.md"); !strings.HasPrefix(log, "scribe\nAda\n") {
				t.Fatalf("config.md's history: %q, want the stage's commit over the person's", log)
			}
			rep, err := w.eng.Replay(context.Background(), info.ID, false)
			if err != nil || !rep.Identical {
				t.Fatalf("replay: %+v %v", rep, err)
			}
			w.fsck()
		})
	}
}

// TestStageWriteBaseFromInput: a write that names no base, to an artifact
// the stage was handed as an input, is merged from the input's version: an
// agent that does not say what it read still does not revert a person's
// save made while it worked.
func TestStageWriteBaseFromInput(t *testing.T) {
	var w *workspace
	a := &goAgent{fn: func(req lunad.StageRequest, call int) lunad.StageResponse {
		in := req.Inputs[0]
		old, _, err := w.store.Read(context.Background(), in.ID, in.Commit)
		if err != nil {
			return lunad.StageResponse{Status: "fail", Error: err.Error()}
		}
		w.file("config.md", docHand) // the person saves while the stage works
		out := strings.Replace(string(old), "second\n", "second, by the agent\n", 1)
		return lunad.StageResponse{Status: "ok", Writes: []lunad.StageWrite{{Path: in.Path, Content: out}}}
	}}
	w = newWorkspaceWith(t, nil, withAgent(a, nil))
	w.file(".luna/workflows/m.toml", agentWorkflow("m", toEnd))
	if _, err := w.store.Create(context.Background(), lunad.CreateSpec{Title: "config", Path: "config.md", Content: []byte(docBase)}); err != nil {
		t.Fatal(err)
	}
	info := w.run(lunad.RunRequest{Workflow: "m", Inputs: []string{"config.md"}})
	if info.Status != lunad.RunCompleted {
		t.Fatalf("run %s (%s)", info.Status, info.Error)
	}
	if b, _ := os.ReadFile(filepath.Join(w.root, "config.md")); string(b) != docBoth {
		t.Fatalf("config.md = %q, want %q", b, docBoth)
	}
	if rep, err := w.eng.Replay(context.Background(), info.ID, false); err != nil || !rep.Identical {
		t.Fatalf("replay: %+v %v", rep, err)
	}
	w.fsck()
}

// fullStore is a run log whose appends fail with ENOSPC while full is set
// (the disk holding the repository is full).
type fullStore struct {
	runs.Store
	full *atomic.Bool
}

func (s fullStore) AppendRun(ctx context.Context, id, after string, recs []lunad.RunRecord) (string, error) {
	if s.full.Load() {
		return "", fmt.Errorf("writing run %s: %w", id, &os.PathError{Op: "write", Path: "objects/tmp", Err: syscall.ENOSPC})
	}
	return s.Store.AppendRun(ctx, id, after, recs)
}

// TestFullDiskFailsRun attacks the endless stall of a run whose next event
// cannot be written: after SpaceRetries tries the run is reported aborted
// with the reason, and `run retry` takes it up once there is space.
func TestFullDiskFailsRun(t *testing.T) {
	var full atomic.Bool
	a := &goAgent{fn: func(req lunad.StageRequest, call int) lunad.StageResponse {
		if call == 1 {
			full.Store(true) // the disk fills while the stage runs
		}
		return lunad.StageResponse{Status: "ok", Writes: []lunad.StageWrite{{Path: "out.md", Content: "done\n"}}}
	}}
	w := newWorkspaceWith(t, nil, withAgent(a, func(o *runs.Options) {
		o.Store, o.SpaceRetries = fullStore{Store: o.Store, full: &full}, 2
	}))
	w.file(".luna/workflows/m.toml", agentWorkflow("m", toEnd))
	info := w.run(lunad.RunRequest{Workflow: "m"})
	if info.Status != lunad.RunAborted || !strings.Contains(info.Error, "disk holding the repository is full") || !strings.Contains(info.Error, "lunad run retry "+info.ID) {
		t.Fatalf("run %s: %q; want aborted for the full disk", info.Status, info.Error)
	}
	full.Store(false)
	if _, err := w.eng.Retry(context.Background(), info.ID); err != nil {
		t.Fatal(err)
	}
	info = w.wait(info.ID)
	if info.Status != lunad.RunCompleted {
		t.Fatalf("after retry: %s (%s)", info.Status, info.Error)
	}
	if b, _ := os.ReadFile(filepath.Join(w.root, "out.md")); string(b) != "done\n" {
		t.Fatalf("out.md = %q", b)
	}
	w.fsck()
}

// TestFullDiskFailsRunReal is TestFullDiskFailsRun on a real full disk:
// the repository on a 4 MiB tmpfs that the stage's agent fills, so that
// neither the stage's outcome nor the run's abort can be written. The run
// is reported aborted with the reason instead of retrying for ever, and
// once there is space again `run retry` finishes it.
func TestFullDiskFailsRunReal(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root (CI runs as root)")
	}
	root := filepath.Join(t.TempDir(), "ws")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", root, "tmpfs", 0, "size=4m"); err != nil {
		t.Fatalf("mount a tmpfs on %s: %v", root, err)
	}
	t.Cleanup(func() { syscall.Unmount(root, syscall.MNT_DETACH) })
	filler := filepath.Join(root, "filler.bin")
	a := &goAgent{fn: func(req lunad.StageRequest, call int) lunad.StageResponse {
		if call == 1 {
			if err := fillDisk(filler); err != nil {
				return lunad.StageResponse{Status: "fail", Permanent: true, Error: err.Error()}
			}
		}
		return lunad.StageResponse{Status: "ok", Writes: []lunad.StageWrite{{Path: "out.md", Content: "done\n"}}}
	}}
	w := newWorkspaceAt(t, root, nil, withAgent(a, func(o *runs.Options) { o.SpaceRetries = 2 }))
	w.file(".luna/workflows/m.toml", agentWorkflow("m", toEnd))
	info := w.run(lunad.RunRequest{Workflow: "m"})
	if info.Status != lunad.RunAborted || !strings.Contains(info.Error, "disk holding the repository is full") || !strings.Contains(info.Error, "no space left on device") {
		t.Fatalf("run %s: %q; want aborted for the full disk", info.Status, info.Error)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if _, err := w.eng.Retry(context.Background(), info.ID); err != nil {
		t.Fatal(err)
	}
	if info = w.wait(info.ID); info.Status != lunad.RunCompleted {
		t.Fatalf("after retry: %s (%s)", info.Status, info.Error)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "out.md")); string(b) != "done\n" {
		t.Fatalf("out.md = %q", b)
	}
	w.fsck()
}

// fillDisk writes path until the filesystem holding it is full.
func fillDisk(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	for _, size := range []int{64 << 10, 4 << 10, 1} {
		buf := make([]byte, size)
		for {
			if _, err := f.Write(buf); err != nil {
				if errors.Is(err, syscall.ENOSPC) {
					break
				}
				return err
			}
		}
	}
	return nil
}
