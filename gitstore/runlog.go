package gitstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sys/unix"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/atomicfile"
	"github.com/lunad/lunad/internal/lazyregexp"
)

// Run event logs. Each run is a ref, refs/luna/runs/<run-id>, with one
// commit per event: its message holds the lunad.RunEvent as JSON on its
// "event: " line (under a subject and lines a person reads), its tree the
// files recorded with the event (request.json, response.json,
// workflow.toml …; empty for most events), its parent the run's previous
// event. `git log refs/luna/runs/<id>` is the run's audit trail.
//
// An append writes its commits with the store's object writer (temp file +
// rename, unsynced), takes "<ref>.lock", checks the ref is still at the
// caller's tip (compare-and-swap), makes the objects and the lock file
// durable with one filesystem sync, and renames the lock over the ref
// (fsyncing its directory, unless the append is deferred: see
// AppendRunDeferred): the artifact commit protocol, on a ref of its own. Run refs never touch HEAD, the branches, the index or the working
// tree, and appends do not take the workspace lock, so they neither wait
// for artifact batches of other processes nor make them wait.
//
// Appends across processes exclude each other with an flock of their own
// (.git/luna/runs.lock, in the repository's common dir: the run refs, and
// so their lock, are shared by every linked worktree): a run ref's lock
// file can then only be left
// behind by a lunad writer that died holding it, and the next writer to
// take the flock after such a death removes those files (wsLock.inherited).

const (
	runRefPrefix = "refs/luna/runs/"
	runEventFile = "event.json" // reserved: no file passes for the event
	runFilesDir  = "files/"     // the one directory of run files: a stage's own files (StageResponse.Files)
	runEventLine = "event: "    // the line of an event commit's message holding the event
	maxRunID     = 64
	// maxRunCache bounds the decoded run commits kept in memory.
	maxRunCache = 1 << 14
)

var (
	runIDPattern     = lazyregexp.New(`^[A-Za-z0-9_-][A-Za-z0-9._-]*$`)
	eventTypePattern = lazyregexp.New(`^[A-Z][A-Z0-9_]{0,63}$`)
	runSignature     = Signature{Name: "lunad", Email: "lunad@localhost"}
)

// runLogs is a store's state for run logs, guarded by Store.mu.
type runLogs struct {
	lock    *wsLock // <common dir>/luna/runs.lock, opened by the first append
	dirDone bool    // refs/luna/runs exists, its entry made durable
	commits map[plumbing.Hash]runCommit
	// unsynced: a deferred append renamed a ref in refs/luna/runs and
	// left the directory's fsync to the next syncfs (AppendRunDeferred).
	unsynced bool
	dirSyncs int // fsyncs of refs/luna/runs made by appends (tests)
}

// runCommit is one event commit as the log reads it. Commits are
// immutable, so a decoded one never goes stale.
type runCommit struct {
	parent plumbing.Hash
	tree   plumbing.Hash
	seq    int
	event  []byte // the event's JSON as stored; shared, never modified
}

func (r *runLogs) close() {
	if r.lock != nil {
		r.lock.close()
		r.lock = nil
	}
}

func (r *runLogs) remember(h plumbing.Hash, c runCommit) {
	if r.commits == nil || len(r.commits) >= maxRunCache {
		r.commits = make(map[plumbing.Hash]runCommit, 256)
	}
	r.commits[h] = c
}

// checkRunID accepts 1 to 64 of [A-Za-z0-9._-], not starting with a dot,
// and within git's ref name rules (no "..", no trailing "." or ".lock").
func checkRunID(id string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w: run ID %q %s", lunad.ErrInvalid, id, why)
	}
	switch {
	case id == "":
		return fmt.Errorf("%w: a run ID is required", lunad.ErrInvalid)
	case len(id) > maxRunID:
		return bad(fmt.Sprintf("is longer than %d bytes", maxRunID))
	case !runIDPattern().MatchString(id):
		return bad("may hold only letters, digits, '.', '_' and '-', and may not start with '.'")
	case strings.Contains(id, ".."), strings.HasSuffix(id, "."), strings.HasSuffix(id, ".lock"):
		return bad("breaks git's ref name rules (no '..', no trailing '.' or '.lock')")
	}
	return nil
}

// parseTip reads a caller's tip: "" is the zero hash.
func parseTip(tip string) (plumbing.Hash, error) {
	if tip == "" {
		return plumbing.ZeroHash, nil
	}
	h, ok := parseHash(strings.ToLower(tip))
	if !ok {
		return h, fmt.Errorf("%w: run tip %q is not a full commit hash", lunad.ErrInvalid, tip)
	}
	return h, nil
}

// checkRunRecord validates one record of run runID before anything is written.
func checkRunRecord(runID string, rec lunad.RunRecord) error {
	ev := rec.Event
	if !eventTypePattern().MatchString(string(ev.Type)) {
		return fmt.Errorf("%w: event type %q (use upper-case names like STAGE_STARTED)", lunad.ErrInvalid, ev.Type)
	}
	if ev.RunID != "" && ev.RunID != runID {
		return fmt.Errorf("%w: event of run %q appended to run %q", lunad.ErrInvalid, ev.RunID, runID)
	}
	if ev.Visit < 0 || ev.Attempt < 0 {
		return fmt.Errorf("%w: event visit %d or attempt %d is negative", lunad.ErrInvalid, ev.Visit, ev.Attempt)
	}
	for what, v := range map[string]string{"stage name": ev.Stage, "workflow name": ev.Workflow} {
		if err := checkTrailerValue(what, v); err != nil {
			return err
		}
	}
	if len(ev.Output) > 0 && !json.Valid(ev.Output) {
		return fmt.Errorf("%w: the event's output is not valid JSON", lunad.ErrInvalid)
	}
	for name := range rec.Files {
		if err := checkRepoPath(name); err != nil {
			return fmt.Errorf("run file: %w", err)
		}
		if (strings.Contains(name, "/") && !strings.HasPrefix(name, runFilesDir)) || name == runEventFile || name == strings.TrimSuffix(runFilesDir, "/") {
			return fmt.Errorf("%w: run file %q: give a plain file name other than %s, or one under %s", lunad.ErrInvalid, name, runEventFile, runFilesDir)
		}
	}
	return nil
}

// AppendRun appends recs to run runID's log, one commit each, in order, on
// top of tip after ("" creates the run). Each event's Seq is set to its
// 1-based position in the log and an empty RunID to runID (the caller's
// records are not modified). All the commits land with one ref move, or
// none does. It returns the new tip.
//
// Errors: ErrInvalid for a bad run ID (1 to 64 of [A-Za-z0-9._-], no
// leading dot, within git's ref name rules), a malformed tip, no records,
// or a bad record (event type not UPPER_CASE, another run's event, stage or
// workflow name that cannot be a trailer, output that is not JSON, a file
// name that is not a plain safe name or is event.json); ErrExists when
// after is "" and the run exists; *lunad.RunNotFoundError (ErrNotFound)
// when after is set and the run does not exist; ErrConflict when the run's
// ref is not at after (another writer appended); ErrLocked when another
// writer holds the runs lock beyond Options.LockTimeout, or a git command
// holds the ref's lock; the context's error if ctx ends first. Nothing is
// appended on error, except that an error after the ref moved (fsync of
// its directory) is reported with the tip still returned by RunLog.
func (s *Store) AppendRun(ctx context.Context, runID, after string, recs []lunad.RunRecord) (string, error) {
	return s.writeRun(ctx, runID, after, recs, false, false)
}

// AppendRunDeferred is AppendRun for an append whose durability may wait
// for the next durable write: the new tip is visible at once, its objects
// and its ref's content are synced, but the rename of the ref is left
// without the fsync of refs/luna/runs. Every durable write of a store
// begins with one syncfs of the file system (objectWriter.flush), which
// makes every rename made before it durable, so the append is durable
// before any ref a later write of the repository moves, whatever store
// makes it; on a file system without syncfs the directory is fsynced here
// as by AppendRun. A power loss before that write may lose the append
// (and only it, never a torn log: its objects were made durable before
// the ref moved); a killed process loses nothing. The workflow engine defers the append of a
// stage's outcome, which the commit of the stage's writes follows: losing
// it with nothing written after it means running the attempt again.
// Errors as AppendRun's.
func (s *Store) AppendRunDeferred(ctx context.Context, runID, after string, recs []lunad.RunRecord) (string, error) {
	return s.writeRun(ctx, runID, after, recs, false, true)
}

// ReplaceRun replaces a run's whole log by one parentless commit holding
// rec, whose event gets Seq 1 (pruning: rec is a summary of the run); the
// old event commits become unreachable, for git gc. after must be the
// run's tip (compare-and-swap). Errors as AppendRun's, with ErrInvalid for
// an empty after.
func (s *Store) ReplaceRun(ctx context.Context, runID, after string, rec lunad.RunRecord) (string, error) {
	if after == "" {
		return "", fmt.Errorf("%w: replacing run %q needs its current tip", lunad.ErrInvalid, runID)
	}
	return s.writeRun(ctx, runID, after, []lunad.RunRecord{rec}, true, false)
}

func (s *Store) writeRun(ctx context.Context, runID, after string, recs []lunad.RunRecord, replace, deferred bool) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := checkRunID(runID); err != nil {
		return "", err
	}
	old, err := parseTip(after)
	if err != nil {
		return "", err
	}
	if len(recs) == 0 {
		return "", fmt.Errorf("%w: no events to append to run %q", lunad.ErrInvalid, runID)
	}
	for _, rec := range recs {
		if err := checkRunRecord(runID, rec); err != nil {
			return "", err
		}
	}
	return s.runAppends.submit(ctx, s, &runAppend{runID: runID, after: old, recs: recs, replace: replace, deferred: deferred})
}

// runCAS checks the run's ref (cur, zero: absent) against the caller's tip.
func runCAS(runID string, want, cur plumbing.Hash) error {
	switch {
	case want == cur:
		return nil
	case want.IsZero():
		return fmt.Errorf("%w: run %q (its tip is %.12s)", lunad.ErrExists, runID, cur)
	case cur.IsZero():
		return &lunad.RunNotFoundError{Kind: "run", Ref: runID}
	}
	return fmt.Errorf("%w: run %q is at %.12s, not at %.12s (another writer appended; read the log again)", lunad.ErrConflict, runID, cur, want)
}

// lockRuns takes the runs lock for this store (callers hold s.mu, which
// excludes the store's own goroutines; the flock excludes other processes).
// Taken over from a writer that died holding it, it removes the run ref
// locks that writer left.
func (s *Store) lockRuns(ctx context.Context) error {
	r := &s.runs
	if r.lock == nil {
		// The run refs are shared by every worktree of the repository,
		// so is their lock: it lives in the common dir's luna/.
		dir := filepath.Join(s.commonDir, "luna")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("runs lock: %w", err)
		}
		l, err := openLock(filepath.Join(dir, "runs.lock"))
		if err != nil {
			return err
		}
		r.lock = l
	}
	if err := r.lock.lock(ctx, s.opts.LockTimeout); err != nil {
		return err
	}
	dir := filepath.Join(s.commonDir, filepath.FromSlash(strings.TrimSuffix(runRefPrefix, "/")))
	if r.lock.inherited {
		stale, _ := filepath.Glob(filepath.Join(dir, "*.lock"))
		for _, name := range stale {
			if err := os.Remove(name); err != nil && !os.IsNotExist(err) {
				// Released without a clean release: the next writer
				// still finds the dead writer's mark and tries again.
				unix.Flock(int(r.lock.f.Fd()), unix.LOCK_UN)
				return fmt.Errorf("remove %s left by a dead writer: %w", name, err)
			}
		}
		r.lock.inherited = false
	}
	if !r.dirDone {
		// The directories a first run creates must survive a crash with
		// the ref in them (syncfs covers this too; the per-file fallback
		// does not).
		err := os.MkdirAll(dir, 0o755)
		for d := dir; err == nil && d != s.commonDir; d = filepath.Dir(d) {
			err = atomicfile.Sync(filepath.Dir(d))
		}
		if err != nil {
			r.lock.unlock()
			return fmt.Errorf("run refs directory: %w", err)
		}
		r.dirDone = true
	}
	return nil
}

// writeRunCommit writes one event commit (not yet synced) and returns it.
func (s *Store) writeRunCommit(runID string, parent plumbing.Hash, seq int, rec lunad.RunRecord) (plumbing.Hash, error) {
	ev := rec.Event
	ev.Seq = seq
	if ev.RunID == "" {
		ev.RunID = runID
	}
	// The event travels in the commit's message, on one line: an event
	// without files is then one new object, not three (creating a file
	// is the dearest part of an append).
	body, err := json.Marshal(ev)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("%w: event: %w", lunad.ErrInvalid, err)
	}
	var tree plumbing.Hash
	if len(rec.Files) == 0 {
		// The empty tree: once on disk, writing it again creates nothing.
		if tree, err = s.objs.write(plumbing.TreeObject, nil); err != nil {
			return tree, err
		}
	} else {
		changes := make(map[string]fileChange, len(rec.Files))
		for name, b := range rec.Files {
			h, err := s.objs.write(plumbing.BlobObject, b)
			if err != nil {
				return h, err
			}
			changes[name] = fileChange{hash: h, mode: modeFile}
		}
		if tree, err = s.rewriteTree(plumbing.ZeroHash, changes); err != nil {
			return tree, err
		}
	}
	sig := signature{Name: runSignature.Name, Email: runSignature.Email, When: s.opts.Clock()}
	c := &commitObject{Tree: tree, Author: sig, Committer: sig, Message: runMessage(ev, body)}
	if !parent.IsZero() {
		c.Parents = []plumbing.Hash{parent}
	}
	h, err := s.writeCommit(c)
	if err != nil {
		return h, err
	}
	s.runs.remember(h, runCommit{parent: parent, tree: tree, seq: seq, event: body})
	return h, nil
}

// runMessage renders an event commit's message, to read as an audit trail:
//
//	STAGE_FAILED draft (attempt 2)
//
//	error: timeout after 30s
//	retry at: 2026-01-02T03:04:05Z
//
//	Luna-Run: r1
//	Luna-Event: STAGE_FAILED
//	Luna-Seq: 4
//	Luna-Workflow: review
//	Luna-Stage: draft
//	Luna-Visit: 1
//	Luna-Attempt: 2
//
// The event itself, complete, is the body's last line, after "event: "
// (runEventLine).
func runMessage(ev lunad.RunEvent, event []byte) string {
	var b strings.Builder
	b.WriteString(string(ev.Type))
	if ev.Stage != "" {
		b.WriteString(" " + ev.Stage)
	}
	if ev.Attempt > 0 {
		fmt.Fprintf(&b, " (attempt %d)", ev.Attempt)
	}
	b.WriteString("\n\n")
	var body []string
	if ev.Error != "" {
		line := "error: " + oneLine(ev.Error, 200)
		if ev.Permanent {
			line += " (permanent)"
		}
		body = append(body, line)
	}
	for _, w := range ev.Writes {
		body = append(body, fmt.Sprintf("wrote %s (%s version %d)", oneLine(w.Path, 200), oneLine(w.ID, 64), w.Version))
	}
	if !ev.RetryAt.IsZero() {
		body = append(body, "retry at: "+ev.RetryAt.UTC().Format("2006-01-02T15:04:05.000Z07:00"))
	}
	if ev.Next != "" {
		body = append(body, "next: "+oneLine(ev.Next, 200))
	}
	body = append(body, runEventLine+string(event))
	if len(body) > 0 {
		b.WriteString(strings.Join(body, "\n"))
		b.WriteString("\n\n")
	}
	trailer := func(k, v string) {
		if v != "" && v != "0" {
			fmt.Fprintf(&b, "Luna-%s: %s\n", k, v)
		}
	}
	trailer("Run", ev.RunID)
	trailer("Event", string(ev.Type))
	trailer("Seq", strconv.Itoa(ev.Seq))
	trailer("Workflow", ev.Workflow)
	trailer("Stage", ev.Stage)
	trailer("Visit", strconv.Itoa(ev.Visit))
	trailer("Attempt", strconv.Itoa(ev.Attempt))
	return b.String()
}

// oneLine returns the first line of s without control characters, cut to
// at most n bytes.
func oneLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	s = strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s))
	if len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "…"
	}
	return s
}

// runCommit reads an event commit (memoised). Callers hold s.mu.
func (s *Store) runCommit(h plumbing.Hash) (runCommit, error) {
	if rc, ok := s.runs.commits[h]; ok {
		return rc, nil
	}
	c, err := s.readCommit(h)
	if err != nil {
		return runCommit{}, err
	}
	b, err := s.runEvent(c)
	if err != nil {
		return runCommit{}, fmt.Errorf("run event %.12s: %w", h, err)
	}
	var head struct {
		Seq int `json:"seq"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return runCommit{}, fmt.Errorf("run event %.12s: its event: %w", h, err)
	}
	rc := runCommit{tree: c.Tree, seq: head.Seq, event: b}
	if len(c.Parents) > 0 {
		rc.parent = c.Parents[0]
	}
	s.runs.remember(h, rc)
	return rc, nil
}

// runEvent is the event an event commit holds: its message's event line.
func (s *Store) runEvent(c *commitObject) ([]byte, error) {
	for _, line := range strings.Split(c.Message, "\n") {
		if ev, ok := strings.CutPrefix(line, runEventLine); ok && strings.HasPrefix(ev, "{") {
			return []byte(ev), nil
		}
	}
	return nil, fmt.Errorf("%w: no %q line in its message", lunad.ErrNotFound, strings.TrimSpace(runEventLine))
}

// runTip returns a run's tip, or *lunad.RunNotFoundError. Callers hold s.mu.
func (s *Store) runTip(runID string) (plumbing.Hash, error) {
	if err := checkRunID(runID); err != nil {
		return plumbing.ZeroHash, err
	}
	h, err := readRef(s.commonDir, runRefPrefix+runID)
	if errors.Is(err, lunad.ErrNotFound) {
		return h, &lunad.RunNotFoundError{Kind: "run", Ref: runID}
	}
	return h, err
}

// RunLog returns a run's events, oldest first, and its tip. It reads the
// run's own commits only (memoised per commit). Errors: ErrInvalid for a
// malformed run ID; *lunad.RunNotFoundError (ErrNotFound) when there is no
// such run; an error naming the commit when the log is damaged (an event
// commit without a readable event line, or events out of sequence).
func (s *Store) RunLog(ctx context.Context, runID string) ([]lunad.RunEvent, string, error) {
	s.mu.Lock()
	tip, err := s.runTip(runID)
	var chain []runCommit
	for h := tip; err == nil && !h.IsZero(); {
		var rc runCommit
		if rc, err = s.runCommit(h); err == nil {
			chain = append(chain, rc)
			h = rc.parent
			if len(chain)%256 == 0 {
				err = ctx.Err()
			}
		}
	}
	s.mu.Unlock()
	if err != nil {
		return nil, "", err
	}
	events := make([]lunad.RunEvent, len(chain))
	for i := range chain {
		rc := chain[len(chain)-1-i]
		ev := &events[i]
		if err := json.Unmarshal(rc.event, ev); err != nil {
			return nil, "", fmt.Errorf("run %s: event %d: %w", runID, i+1, err)
		}
		if ev.Seq != i+1 {
			return nil, "", fmt.Errorf("run %s: the log is damaged: its event %d has seq %d", runID, i+1, ev.Seq)
		}
		if len(ev.Output) > 0 {
			// Handed back compact, whatever the caller gave.
			var buf bytes.Buffer
			if json.Compact(&buf, ev.Output) == nil {
				ev.Output = buf.Bytes()
			}
		}
	}
	return events, tip.String(), nil
}

// RunFile returns the file name stored with event seq of a run (the
// event itself is RunLog's). Errors: ErrInvalid for a malformed
// run ID; *lunad.RunNotFoundError for no such run; ErrNotFound when the
// run has no event seq or the event no such file.
func (s *Store) RunFile(ctx context.Context, runID string, seq int, name string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, err := s.runTip(runID)
	for err == nil && !h.IsZero() {
		var rc runCommit
		if rc, err = s.runCommit(h); err != nil {
			break
		}
		if rc.seq == seq {
			if strings.Contains(name, "/") && (!strings.HasPrefix(name, runFilesDir) || checkRepoPath(name) != nil) {
				return nil, fmt.Errorf("%w: run file %q", lunad.ErrNotFound, name)
			}
			b, _, err := s.readFile(rc.tree, name)
			if err != nil {
				return nil, fmt.Errorf("run %s event %d: %w", runID, seq, err)
			}
			return b, nil
		}
		if rc.seq < seq {
			break
		}
		h = rc.parent
	}
	if err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%w: run %s has no event %d", lunad.ErrNotFound, runID, seq)
}

// Runs returns every run's ID mapped to its tip (sort the keys for a
// stable order). Refs under refs/luna/runs whose names are not run IDs are
// left out.
func (s *Store) Runs(ctx context.Context) (map[string]string, error) {
	refs, err := listRefs(s.commonDir, runRefPrefix)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(refs))
	for name, h := range refs {
		if id := strings.TrimPrefix(name, runRefPrefix); checkRunID(id) == nil {
			out[id] = h.String()
		}
	}
	return out, nil
}
