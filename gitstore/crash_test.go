package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sys/unix"

	"github.com/lunad/lunad"
)

// Crash and multi-process tests re-execute the test binary as a helper
// process (TestCrashHelper with the environment variable below set). The
// helper opens the store with gitstore.Open, as any lunad process does, and
// prints one line to stdout after each call that returned successfully:
//
//	ACK <artifact> <version> <commit>
//
// Other lines: READY once the store is open, INBATCH when an edit's apply
// function runs (the workspace lock is held), LOCKED <pid> when it holds the
// lock on purpose, ERR <text> when a call failed unexpectedly, DONE at the end.

const (
	helperModeEnv = "LUNAD_GITSTORE_HELPER"      // mode; unset in normal test runs
	helperDirEnv  = "LUNAD_GITSTORE_HELPER_DIR"  // the workspace
	helperSeedEnv = "LUNAD_GITSTORE_HELPER_SEED" // the helper's random seed
	helperArgsEnv = "LUNAD_GITSTORE_HELPER_ARGS" // mode-specific, space-separated
	crashSeedEnv  = "LUNAD_CRASH_SEED"           // replays a TestCrashSIGKILL run
)

// ack is one acknowledged write.
type ack struct {
	artifact string
	version  int
	commit   string
}

func (a ack) String() string { return fmt.Sprintf("ACK %s %d %s", a.artifact, a.version, a.commit) }

// parseAck reads an ACK line; a torn or foreign line is not one.
func parseAck(line string) (ack, bool) {
	f := strings.Fields(line)
	if len(f) != 4 || f[0] != "ACK" || !validID(f[1]) || !plumbing.IsHash(f[3]) || !isNumber(f[2]) {
		return ack{}, false
	}
	v, _ := strconv.Atoi(f[2])
	return ack{f[1], v, f[3]}, v > 0
}

// TestCrashHelper is the helper process when helperModeEnv is set. In a
// normal run it checks the line protocol the parent relies on.
func TestCrashHelper(t *testing.T) {
	mode := os.Getenv(helperModeEnv)
	if mode == "" {
		a := ack{"a0000001", 12, strings.Repeat("0123456789", 4)}
		if got, ok := parseAck(a.String()); !ok || got != a {
			t.Fatalf("round trip %q: %+v %v", a.String(), got, ok)
		}
		for _, torn := range []string{"", "ACK", "ACK a0000001 12", "ACK a0000001 12 0123", "ACK a0000001 0 " + a.commit,
			"ACK A-B 1 " + a.commit, "READY", "ERR edit: boom"} {
			if _, ok := parseAck(torn); ok {
				t.Errorf("parseAck(%q) accepted a torn or foreign line", torn)
			}
		}
		return
	}
	runHelper(mode)
	os.Exit(0)
}

// helperOut serialises the helper's stdout: each line is one write(2), so
// a kill never leaves half a line followed by another.
type helperOut struct{ mu sync.Mutex }

func (o *helperOut) line(format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	os.Stdout.Write([]byte(fmt.Sprintf(format, args...) + "\n"))
}

func helperOptions() Options {
	return Options{Human: Signature{Name: "Ada", Email: "ada@example.com"}, LockTimeout: 20 * time.Second}
}

// appendLine returns an apply function that appends one line.
func appendLine(line string) func([]byte) ([]byte, map[string]string, error) {
	return func(b []byte) ([]byte, map[string]string, error) {
		out := append([]byte(nil), b...)
		return append(out, line+"\n"...), nil, nil
	}
}

func runHelper(mode string) {
	out := &helperOut{}
	dir := os.Getenv(helperDirEnv)
	seed, _ := strconv.ParseUint(os.Getenv(helperSeedEnv), 10, 64)
	args := strings.Fields(os.Getenv(helperArgsEnv))
	s, err := Open(dir, helperOptions())
	if err != nil {
		out.line("ERR open: %v", err)
		os.Exit(1)
	}
	out.line("READY")
	ctx := context.Background()
	switch mode {
	case "crash-seq", "crash-group", "crash-midbatch":
		workers := 1
		if mode != "crash-seq" {
			workers = 4
		}
		w := &crashWorkload{s: s, out: out}
		if w.ids, err = listIDsOf(s); err != nil {
			out.line("ERR list: %v", err)
			os.Exit(1)
		}
		if mode == "crash-midbatch" {
			// After a few acknowledged writes, one edit stops inside its
			// batch, with the workspace lock held and other writes queued.
			after, _ := strconv.Atoi(args[0])
			go func() {
				for w.acked() < after {
					time.Sleep(time.Millisecond)
				}
				id := w.pick(rand.New(rand.NewPCG(seed, 99)))
				s.Edit(ctx, id, lunad.Change{Agent: "stuck"}, func(b []byte) ([]byte, map[string]string, error) {
					out.line("INBATCH %s", id)
					time.Sleep(time.Hour)
					return nil, nil, errors.New("unreachable")
				})
			}()
		}
		for g := range workers {
			go w.run(ctx, g, rand.New(rand.NewPCG(seed, uint64(g))))
		}
		select {} // until SIGKILL
	case "procs":
		// args: index, number of edits, then the artifact IDs; an ID
		// prefixed with = is edited by this process only.
		k, _ := strconv.Atoi(args[0])
		n, _ := strconv.Atoi(args[1])
		ids := args[2:]
		for i := range n {
			id := ids[i%len(ids)]
			line := fmt.Sprintf("proc %d edit %d", k, i)
			r, err := s.Edit(ctx, id, lunad.Change{Agent: fmt.Sprintf("proc%d", k)}, appendLine(line))
			if err != nil {
				out.line("ERR edit %s %q: %v", id, line, err)
				continue
			}
			out.line("%s", ack{r.Artifact.ID, r.Version.Number, r.Version.Commit})
		}
		if err := s.Close(); err != nil {
			out.line("ERR close: %v", err)
		}
		out.line("DONE")
	case "hold":
		if err := s.lock.lock(ctx, time.Second); err != nil {
			out.line("ERR lock: %v", err)
			os.Exit(1)
		}
		out.line("LOCKED %d", os.Getpid())
		for {
			time.Sleep(time.Hour) // until killed (a bare select{} would be a deadlock the runtime ends)
		}
	default:
		out.line("ERR unknown helper mode %q", mode)
		os.Exit(1)
	}
}

func listIDsOf(s *Store) ([]string, error) {
	as, err := s.List(context.Background())
	var ids []string
	for _, a := range as {
		ids = append(ids, a.ID)
	}
	return ids, err
}

// crashWorkload edits, creates and moves artifacts until the process dies.
type crashWorkload struct {
	s   *Store
	out *helperOut

	mu   sync.Mutex
	ids  []string
	acks int
}

func (w *crashWorkload) pick(rng *rand.Rand) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ids[rng.IntN(len(w.ids))]
}

func (w *crashWorkload) acked() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.acks
}

func (w *crashWorkload) run(ctx context.Context, g int, rng *rand.Rand) {
	pid := os.Getpid()
	for i := 0; ; i++ {
		var r lunad.Result
		var err error
		what := ""
		switch n := rng.IntN(25); {
		case n == 0:
			what = "create"
			r, err = w.s.Create(ctx, lunad.CreateSpec{Title: fmt.Sprintf("new %d %d %d", pid, g, i),
				Path: fmt.Sprintf("new/p%d-g%d-%d.md", pid, g, i), Content: []byte("# new\n"), Change: lunad.Change{Agent: "crash"}})
			if err == nil {
				w.mu.Lock()
				w.ids = append(w.ids, r.Artifact.ID)
				w.mu.Unlock()
			}
		case n == 2:
			// A workflow stage's commit, whose last sync waits for the
			// next write's syncfs (the killed process loses nothing).
			what = "stage writes"
			p := fmt.Sprintf("stage/p%d-g%d-%d.md", pid, g, i)
			var refs []lunad.ArtifactRef
			var commit string
			refs, commit, _, err = w.s.ApplyWritesDeferred(ctx, []lunad.StageWrite{{Path: p, Content: "# stage\n"}},
				lunad.Change{Agent: "stage", IdempotencyKey: fmt.Sprintf("crash-%d-%d-%d", pid, g, i)})
			if err == nil {
				r.Artifact.ID, r.Version.Number, r.Version.Commit = refs[0].ID, refs[0].Version, commit
				w.mu.Lock()
				w.ids = append(w.ids, refs[0].ID)
				w.mu.Unlock()
			}
		case n == 1:
			id := w.pick(rng)
			what = "move " + id
			var a lunad.Artifact
			if a, err = w.s.Artifact(ctx, id); err == nil {
				r, err = w.s.Move(ctx, id, fmt.Sprintf("moved/p%d-g%d-%d%s", pid, g, i, path.Ext(a.Path)), lunad.Change{Agent: "crash"})
			}
		default:
			id := w.pick(rng)
			what = "edit " + id
			r, err = w.s.Edit(ctx, id, lunad.Change{Agent: fmt.Sprintf("g%d", g)}, appendLine(fmt.Sprintf("pid %d g%d i%d", pid, g, i)))
		}
		if err != nil {
			w.out.line("ERR %s: %v", what, err)
			time.Sleep(5 * time.Millisecond)
			continue
		}
		w.out.line("%s", ack{r.Artifact.ID, r.Version.Number, r.Version.Commit})
		w.mu.Lock()
		w.acks++
		w.mu.Unlock()
	}
}

// helperProc is a running helper process.
type helperProc struct {
	cmd    *exec.Cmd
	lines  chan string
	stderr bytes.Buffer
}

func startHelper(t *testing.T, mode, dir string, seed uint64, args ...string) *helperProc {
	t.Helper()
	h := &helperProc{lines: make(chan string, 1<<16)}
	h.cmd = exec.Command(os.Args[0], "-test.run=^TestCrashHelper$", "-test.count=1")
	h.cmd.Env = append(os.Environ(), helperModeEnv+"="+mode, helperDirEnv+"="+dir,
		helperSeedEnv+"="+strconv.FormatUint(seed, 10), helperArgsEnv+"="+strings.Join(args, " "))
	h.cmd.Stderr = &h.stderr
	stdout, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			h.lines <- sc.Text()
		}
		close(h.lines)
	}()
	return h
}

// waitFor reads lines until one starts with prefix, collecting ACKs and
// ERRs on the way. It fails the test on timeout or end of output.
func (h *helperProc) waitFor(t *testing.T, prefix string, timeout time.Duration, acks *[]ack, errs *[]string) string {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case line, ok := <-h.lines:
			if !ok {
				t.Fatalf("helper ended before %q; stderr:\n%s", prefix, h.stderr.String())
			}
			h.collect(line, acks, errs)
			if strings.HasPrefix(line, prefix) {
				return line
			}
		case <-deadline:
			h.cmd.Process.Kill()
			t.Fatalf("no %q from the helper within %v", prefix, timeout)
		}
	}
}

func (h *helperProc) collect(line string, acks *[]ack, errs *[]string) {
	if a, ok := parseAck(line); ok {
		*acks = append(*acks, a)
	} else if strings.HasPrefix(line, "ERR") {
		*errs = append(*errs, line)
	}
}

// killAndDrain SIGKILLs the helper and collects the lines it wrote before dying.
func (h *helperProc) killAndDrain(acks *[]ack, errs *[]string) {
	h.cmd.Process.Signal(unix.SIGKILL)
	for line := range h.lines {
		h.collect(line, acks, errs)
	}
	h.cmd.Wait()
}

// lockHeld reports whether some process holds the workspace lock now.
func lockHeld(dir string) bool {
	f, err := os.OpenFile(filepath.Join(dir, ".git", "luna", "lock"), os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		return true
	}
	unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return false
}

// crashWorkspace makes a workspace with a few artifacts in nested directories.
func crashWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	s, _, err := Init(dir, helperOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ path, content string }{
		{"notes/plan.md", "# Plan\n\n- first\n"},
		{"src/main.go", "package main\n\nfunc main() {}\n"},
		{"src/deep/util.py", "def util():\n    return 1\n"},
		{"README.txt", "readme\n"},
	} {
		if _, err := s.Create(context.Background(), lunad.CreateSpec{Title: f.path, Path: f.path, Content: []byte(f.content)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// crashStats sums what the kills hit, to show the test reaches the windows
// that matter.
type crashStats struct {
	mu                                        sync.Mutex
	kills, acks, lockHeld, unacked, repairs   int
	staleRefLock, staleIndexLock, childErrors int
}

func TestCrashSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes for ~30 s")
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv(crashSeedEnv); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("seed %d (replay with %s=%d)", seed, crashSeedEnv, seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	start := time.Now()
	var st crashStats
	// Each mode keeps its workspace across iterations, so later children
	// open (and recover) what earlier ones left.
	dirs := map[string]string{}
	for i := range 48 {
		// At least 30 kills; more while the whole test stays well under a
		// minute on a loaded machine.
		if i >= 30 && time.Since(start) > 40*time.Second {
			t.Logf("stopping after %d iterations to stay within the time budget", i)
			break
		}
		mode := []string{"crash-seq", "crash-group", "crash-midbatch"}[i%3]
		if dirs[mode] == "" {
			dirs[mode] = crashWorkspace(t)
		}
		delay := time.Duration(5+rng.IntN(76)) * time.Millisecond
		childSeed := rng.Uint64()
		double := i%4 == 1 // a second child is killed before the parent looks
		daemon := i%5 == 3 // the parent keeps a Store open while the child runs and dies
		name := fmt.Sprintf("%02d-%s-%v", i, mode, delay)
		if double {
			name += "-double"
		}
		if daemon {
			name += "-daemon"
		}
		t.Run(name, func(t *testing.T) {
			crashOnce(t, &st, dirs[mode], mode, delay, childSeed, double, daemon, rng)
		})
	}
	t.Logf("%d kills in %v: %d ACKs; lock held at kill %d; commits in HEAD never acknowledged %d; "+
		"working-tree files recovery had to repair %d; stale ref locks %d; stale index locks %d; child errors %d",
		st.kills, time.Since(start).Round(time.Millisecond), st.acks, st.lockHeld, st.unacked, st.repairs,
		st.staleRefLock, st.staleIndexLock, st.childErrors)
}

// crashOnce runs one child (two with double) and kills it, then checks
// what it left. With daemon, a Store the parent opened before the child
// started sees the crash and recovers from it on its next write (as lunad's
// daemon would after a CLI process died); otherwise a fresh Open recovers.
func crashOnce(t *testing.T, st *crashStats, dir, mode string, delay time.Duration, seed uint64, double, daemon bool, rng *rand.Rand) {
	ctx := context.Background()
	var s *Store
	if daemon {
		var err error
		if s, err = Open(dir, helperOptions()); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
	}
	var acks []ack
	var errs []string
	before := strings.TrimSpace(gitOut(t, dir, "rev-parse", "HEAD"))
	run := func(seed uint64, fromStart bool, delay time.Duration) {
		started := time.Now()
		h := startHelper(t, mode, dir, seed, strconv.Itoa(rng.IntN(20)))
		if !fromStart {
			h.waitFor(t, "READY", 20*time.Second, &acks, &errs)
		}
		if mode == "crash-midbatch" && !fromStart {
			h.waitFor(t, "INBATCH", 20*time.Second, &acks, &errs)
			if !lockHeld(dir) {
				t.Errorf("the helper is inside a batch but the workspace lock is free")
			}
		} else if fromStart {
			time.Sleep(delay - time.Since(started))
		} else {
			time.Sleep(delay)
		}
		if lockHeld(dir) {
			st.mu.Lock()
			st.lockHeld++
			st.mu.Unlock()
		}
		h.killAndDrain(&acks, &errs)
		st.mu.Lock()
		st.kills++
		st.mu.Unlock()
	}
	run(seed, false, delay)
	if double {
		// The second child may die while Open is still recovering.
		run(seed+1, true, time.Duration(5+rng.IntN(76))*time.Millisecond)
	}
	st.mu.Lock()
	st.acks += len(acks)
	st.childErrors += len(errs)
	st.mu.Unlock()
	for _, e := range errs {
		t.Errorf("child: %s", e)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "refs", "heads", "main.lock")); err == nil {
		st.mu.Lock()
		st.staleRefLock++
		st.mu.Unlock()
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "index.lock")); err == nil {
		st.mu.Lock()
		st.staleIndexLock++
		st.mu.Unlock()
	}
	// What did the kill leave in the working tree? (Counted, not asserted:
	// recovery is what must repair it.)
	repairs := 0
	for p, h := range headFiles(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil || plumbing.ComputeHash(plumbing.BlobObject, b) != h {
			repairs++
		}
	}
	st.mu.Lock()
	st.repairs += repairs
	st.mu.Unlock()

	var after lunad.Result
	if s == nil {
		var err error
		if s, err = Open(dir, helperOptions()); err != nil {
			t.Fatalf("open after the kill: %v", err)
		}
		defer s.Close()
	} else {
		// The daemon's next write finds what the dead process left.
		ids, err := listIDsOf(s)
		if err != nil {
			t.Fatal(err)
		}
		if after, err = s.Edit(ctx, ids[rng.IntN(len(ids))], lunad.Change{Agent: "daemon"}, appendLine("daemon after crash")); err != nil {
			t.Fatalf("daemon edit after the kill: %v", err)
		}
	}
	// A ref or index lock the dead writer left (it held the workspace lock
	// while it made them) is gone once a store has opened or written.
	for _, name := range []string{"refs/heads/main.lock", "index.lock"} {
		if _, err := os.Stat(filepath.Join(dir, ".git", name)); err == nil {
			t.Errorf("recovery left the dead writer's .git/%s behind: later commits would fail", name)
		}
	}
	// Every acknowledged write is in HEAD's history and in lunad's.
	acked := map[string]bool{}
	for _, a := range acks {
		acked[a.commit] = true
		c := exec.Command("git", "merge-base", "--is-ancestor", a.commit, "HEAD")
		c.Dir = dir
		if out, err := c.CombinedOutput(); err != nil {
			t.Errorf("acknowledged %v is not an ancestor of HEAD: %v %s", a, err, out)
		}
		hist, err := s.History(ctx, a.artifact)
		if err != nil {
			t.Errorf("history of %s: %v", a.artifact, err)
			continue
		}
		if !hasVersion(hist, a.version, a.commit) {
			t.Errorf("acknowledged %v missing from lunad's history %+v", a, hist)
		}
	}
	for _, c := range strings.Fields(gitOut(t, dir, "rev-list", before+"..HEAD")) {
		if !acked[c] {
			st.mu.Lock()
			st.unacked++ // committed, but the child died before it could say so
			st.mu.Unlock()
		}
	}
	// Nobody edits files by hand here: a "human" commit means lunad took
	// what a dead writer left in the working tree for a person's change.
	all, err := s.History(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range all {
		if v.Op == lunad.OpHuman {
			t.Errorf("%s committed %s as a human edit: %s", v.Commit, v.Artifact, v.Message)
		}
	}
	// Per artifact the versions run 1..N.
	arts, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range arts {
		hist, err := s.History(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range hist {
			if v.Number != i+1 {
				t.Errorf("%s: versions %v are not 1..N", a.ID, versionNumbers(hist))
				break
			}
		}
	}
	gitFsckOpen(t, s)
	checkWorkTreeMatchesHead(t, s, arts)
	if st := gitOut(t, dir, "status", "--porcelain"); st != "" && !daemon {
		// (The daemon's own edit reaches the index at Close, by design.)
		t.Errorf("git status after recovery:\n%s", st)
	}
	// A new edit works (the daemon made its own above), and leaves a clean
	// repository behind.
	if !daemon {
		target := arts[rng.IntN(len(arts))].ID
		if after, err = s.Edit(ctx, target, lunad.Change{Agent: "after-crash"}, appendLine("after crash "+strconv.Itoa(len(acks)))); err != nil {
			t.Fatalf("edit after recovery: %v", err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if gitOut(t, dir, "rev-parse", "HEAD") != after.Version.Commit+"\n" {
		t.Errorf("HEAD is not the new edit's commit %s", after.Version.Commit)
	}
	if st := gitOut(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status after Close:\n%s", st)
	}
	gitFsck(t, dir)
}

func hasVersion(hist []lunad.Version, n int, commit string) bool {
	for _, v := range hist {
		if v.Number == n && v.Commit == commit {
			return true
		}
	}
	return false
}

func versionNumbers(hist []lunad.Version) []int {
	var out []int
	for _, v := range hist {
		out = append(out, v.Number)
	}
	return out
}

// gitOut runs git in dir like git() but returns stdout and stderr together
// in errors, and does not stop the test on failure.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Errorf("git %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// gitFsck runs git fsck --strict and accepts only dangling objects (a
// killed batch leaves unreachable ones; git gc prunes them).
// gitFsckOpen runs gitFsck on an open store's repository once the store's
// background work (a pack consolidation) is done: git fsck reading the
// packs while a consolidation removes the ones it replaced reports the
// removed packs, as it would while git's own repack ran.
func gitFsckOpen(t *testing.T, s *Store) {
	t.Helper()
	s.bg.Wait()
	gitFsck(t, s.root)
}

func gitFsck(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command("git", "fsck", "--strict", "--no-progress")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	var bad []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line != "" && !strings.HasPrefix(line, "dangling ") {
			bad = append(bad, line)
		}
	}
	if err != nil || len(bad) > 0 {
		t.Errorf("git fsck --strict: %v\n%s", err, strings.Join(bad, "\n"))
	}
}

// headFiles lists HEAD's files outside .luna with their blob hashes.
func headFiles(t *testing.T, dir string) map[string]plumbing.Hash {
	t.Helper()
	out := map[string]plumbing.Hash{}
	for _, line := range strings.Split(strings.TrimSpace(gitOut(t, dir, "ls-tree", "-r", "HEAD")), "\n") {
		meta, p, ok := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || strings.HasPrefix(p, lunaDir+"/") {
			continue
		}
		out[p] = plumbing.NewHash(f[2])
	}
	return out
}

// checkWorkTreeMatchesHead compares every artifact's file with `git show
// HEAD:path` (one git cat-file --batch for all of them).
func checkWorkTreeMatchesHead(t *testing.T, s *Store, arts []lunad.Artifact) {
	t.Helper()
	var in bytes.Buffer
	for _, a := range arts {
		fmt.Fprintf(&in, "HEAD:%s\n", a.Path)
	}
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Dir = s.root
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file: %v", err)
	}
	r := bufio.NewReader(bytes.NewReader(out))
	for _, a := range arts {
		hdr, err := r.ReadString('\n')
		f := strings.Fields(hdr)
		if err != nil || len(f) != 3 {
			t.Errorf("git cat-file HEAD:%s: %q", a.Path, hdr)
			return
		}
		n, _ := strconv.Atoi(f[2])
		want := make([]byte, n+1)
		if _, err := io.ReadFull(r, want); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(a.Path)))
		if err != nil || !bytes.Equal(got, want[:n]) {
			t.Errorf("%s: working tree %q (%v), HEAD %q", a.Path, got, err, want[:n])
		}
	}
}

// TestCrashRecoveryIndexLockLeftBehind: a writer killed while it rewrote
// .git/index leaves index.lock behind (TestCrashSIGKILL hits this when a
// child dies inside Open's recovery). The index is only a cache: Open and
// later edits must still work, and the index catches up once the lock is
// gone.
func TestCrashRecoveryIndexLockLeftBehind(t *testing.T) {
	ctx := context.Background()
	dir := crashWorkspace(t)
	s, err := Open(dir, helperOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Edit(ctx, "notes/plan.md", lunad.Change{}, appendLine("before the crash")); err != nil {
		t.Fatal(err)
	}
	// The process dies (the kernel drops its flock) in the middle of
	// writeIndex: the pending list is still full and index.lock exists.
	s.lock.close()
	if err := os.WriteFile(filepath.Join(dir, ".git", "index.lock"), []byte("DIRC"), 0o644); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir, helperOptions())
	if err != nil {
		t.Fatalf("Open with a stale index.lock: %v", err)
	}
	defer s2.Close()
	if _, err := s2.Edit(ctx, "notes/plan.md", lunad.Change{}, appendLine("after the crash")); err != nil {
		t.Fatalf("edit with a stale index.lock: %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "notes", "plan.md"))
	if string(b) != "# Plan\n\n- first\nbefore the crash\nafter the crash\n" {
		t.Fatalf("content %q", b)
	}
	os.Remove(filepath.Join(dir, ".git", "index.lock")) // the person removes it, as git's message says
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("git status after Close:\n%s", st)
	}
}

// TestCrashRecoveryForeignPendingSameSize: a long-running Store (the
// daemon) must repair what another process left when it died between
// moving the ref and writing the working tree, even when the pending list
// that process left has exactly the size the daemon last wrote (same path
// edited once by each: recoverIfForeign compares sizes only). Otherwise
// the daemon takes the stale file for a person's change and commits it as
// a "human" edit, reverting the dead process's committed edit.
func TestCrashRecoveryForeignPendingSameSize(t *testing.T) {
	ctx := context.Background()
	dir := crashWorkspace(t)
	daemon, err := Open(dir, helperOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer daemon.Close()
	if _, err := daemon.Edit(ctx, "notes/plan.md", lunad.Change{Agent: "daemon"}, appendLine("daemon line")); err != nil {
		t.Fatal(err)
	}
	// A CLI process opens (its recovery syncs the index and empties the
	// pending list) and edits the same file: its pending line has the same
	// length as the daemon's.
	cli, err := Open(dir, helperOptions())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "notes", "plan.md")
	old, _ := os.ReadFile(file)
	r, err := cli.Edit(ctx, "notes/plan.md", lunad.Change{Agent: "cli"}, appendLine("cli line"))
	if err != nil {
		t.Fatal(err)
	}
	// Now the state a SIGKILL after updateRef and before writeWorkFile
	// leaves: the ref moved, the pending line is there, the file is old.
	if err := os.WriteFile(file, old, 0o644); err != nil {
		t.Fatal(err)
	}
	cli.lock.close()
	if _, err := daemon.Edit(ctx, "notes/plan.md", lunad.Change{Agent: "daemon"}, appendLine("daemon again")); err != nil {
		t.Fatal(err)
	}
	b, _, err := daemon.Read(ctx, "notes/plan.md", "")
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "# Plan\n\n- first\ndaemon line\ncli line\ndaemon again\n" {
		hist, _ := daemon.History(ctx, "notes/plan.md")
		var ops []string
		for _, v := range hist {
			ops = append(ops, fmt.Sprintf("v%d %s by %s", v.Number, v.Op, v.Agent))
		}
		t.Fatalf("the CLI's committed edit (v%d) was reverted: content %q; history %s", r.Version.Number, b, strings.Join(ops, ", "))
	}
}
