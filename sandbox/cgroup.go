package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The process-limit mechanisms Capabilities.ProcessLimit names.
const (
	LimitCgroupV1 = "cgroup-v1" // a pids cgroup per command (cgroup v1 pids controller)
	LimitCgroupV2 = "cgroup-v2" // a pids cgroup per command (a delegated cgroup v2 subtree)
	LimitRlimit   = "rlimit"    // RLIMIT_NPROC: counts all of the user's processes
	LimitNone     = "none"      // root without a writable pids cgroup: not limited
)

// cgroupPrefix starts the name of every cgroup lunad makes for a command:
// lunad-sandbox-PID-N, PID the daemon's.
const cgroupPrefix = "lunad-sandbox-"

// cgroupMount is one cgroup hierarchy mounted in this mount namespace.
type cgroupMount struct {
	Version    int    // 1 or 2
	Root       string // the hierarchy's path mounted (mountinfo field 4)
	MountPoint string
}

// parseMountinfo finds the mount of a cgroup controller ("pids",
// "memory"): a cgroup v1 hierarchy with it among its super options, else
// the cgroup2 hierarchy. The format is proc(5)'s /proc/PID/mountinfo.
func parseMountinfo(data, controller string) (cgroupMount, bool) {
	var v2 cgroupMount
	found2 := false
	for _, line := range strings.Split(data, "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 1 {
			continue
		}
		root, mp := unescapeMount(f[3]), unescapeMount(f[4])
		switch g[0] {
		case "cgroup":
			if len(g) >= 3 && hasField(g[2], controller, ",") {
				return cgroupMount{Version: 1, Root: root, MountPoint: mp}, true
			}
		case "cgroup2":
			if !found2 {
				v2, found2 = cgroupMount{Version: 2, Root: root, MountPoint: mp}, true
			}
		}
	}
	return v2, found2
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func hasField(list, want, sep string) bool {
	for f := range strings.SplitSeq(list, sep) {
		if f == want {
			return true
		}
	}
	return false
}

// parseProcCgroup finds this process's cgroup path in the hierarchy of
// the given version (of controller, for v1), from /proc/PID/cgroup
// (cgroups(7): "ID:controllers:path"; v2's line is "0::path").
func parseProcCgroup(data string, version int, controller string) (string, bool) {
	for _, line := range strings.Split(data, "\n") {
		id, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		ctrls, path, ok := strings.Cut(rest, ":")
		if !ok || !strings.HasPrefix(path, "/") {
			continue
		}
		if version == 1 && hasField(ctrls, controller, ",") || version == 2 && id == "0" && ctrls == "" {
			return path, true
		}
	}
	return "", false
}

// cgroupDir is where this process's cgroup of mount m is in the file
// system: the mount point joined with the path below the mount's root.
func cgroupDir(m cgroupMount, self string) (string, error) {
	rel, ok := strings.CutPrefix(self, m.Root)
	if m.Root == "/" {
		rel, ok = self, true
	}
	if !ok || rel != "" && !strings.HasPrefix(rel, "/") {
		return "", fmt.Errorf("this process's cgroup %s is outside the cgroup mount of %s at %s", self, m.Root, m.MountPoint)
	}
	return filepath.Join(m.MountPoint, rel), nil
}

// probeCgroup finds a cgroup under which lunad can make a cgroup of
// controller ("pids", "memory") per command: its own cgroup of that
// controller's hierarchy, if a child made there has the controller's
// file (pids.max; memory.max on v2, memory.limit_in_bytes on v1). It
// returns the mechanism and the parent directory, or why none can be
// used.
func probeCgroup(controller string) (mechanism, dir string, err error) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", "", err
	}
	m, ok := parseMountinfo(string(mi), controller)
	if !ok {
		return "", "", fmt.Errorf("no cgroup hierarchy with the %s controller is mounted", controller)
	}
	pc, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", "", err
	}
	self, ok := parseProcCgroup(string(pc), m.Version, controller)
	if !ok {
		return "", "", fmt.Errorf("/proc/self/cgroup names no cgroup of the hierarchy mounted at %s", m.MountPoint)
	}
	dir, err = cgroupDir(m, self)
	if err != nil {
		return "", "", err
	}
	probe := filepath.Join(dir, fmt.Sprintf("%sprobe-%s-%d", cgroupPrefix, controller, os.Getpid()))
	if err := os.Mkdir(probe, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return "", "", fmt.Errorf("cannot make a cgroup under %s: %w", dir, err)
	}
	defer os.Remove(probe)
	file := controllerFile(controller, m.Version)
	if _, err := os.Stat(filepath.Join(probe, file)); err != nil {
		return "", "", fmt.Errorf("a cgroup made under %s has no %s (the %s controller is not enabled there: enable it in the parent's cgroup.subtree_control)", dir, file, controller)
	}
	if m.Version == 1 {
		return LimitCgroupV1, dir, nil
	}
	return LimitCgroupV2, dir, nil
}

// controllerFile is the file that sets controller's limit.
func controllerFile(controller string, version int) string {
	switch {
	case controller == "pids":
		return "pids.max"
	case version == 1:
		return "memory.limit_in_bytes"
	}
	return "memory.max"
}

// sweepCgroups removes the cgroups a daemon that is gone left under dir
// (lunad-sandbox-PID-N with no process PID), killing what is left in
// them: commands of a daemon that was killed.
func sweepCgroups(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), cgroupPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		if probe, ok := strings.CutPrefix(rest, "probe-"); ok {
			_, rest, _ = strings.Cut(probe, "-") // the controller's name
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == os.Getpid() || unix.Kill(pid, 0) != unix.ESRCH {
			continue
		}
		(&cgroup{dir: filepath.Join(dir, e.Name())}).remove(time.Second)
	}
}

var cgroupSeq atomic.Int64

// cgroup is the cgroups of one command: its pids cgroup and its memory
// cgroup (the same directory on cgroup v2; either may be "").
type cgroup struct {
	dir string // pids
	mem string // memory
}

// cgroupLimits are the limits a command's cgroups set, each under its
// parent ("" for none).
type cgroupLimits struct {
	pidsParent string
	processes  int
	memParent  string
	memory     int64
}

// newCgroup makes a command's cgroups: a pids cgroup allowing
// l.processes, a memory cgroup holding at most l.memory bytes — which
// counts what the command keeps in its tmpfs (shmem) —, one directory
// where both parents are the same cgroup v2.
func newCgroup(l cgroupLimits) (*cgroup, error) {
	name := fmt.Sprintf("%s%d-%d", cgroupPrefix, os.Getpid(), cgroupSeq.Add(1))
	g := &cgroup{}
	if l.pidsParent != "" {
		g.dir = filepath.Join(l.pidsParent, name)
		if err := os.Mkdir(g.dir, 0o755); err != nil {
			return nil, fmt.Errorf("sandbox: make the command's pids cgroup: %w", err)
		}
		if err := g.write(g.dir, "pids.max", strconv.Itoa(l.processes)); err != nil {
			g.rmdirs()
			return nil, err
		}
	}
	if l.memParent != "" {
		g.mem = filepath.Join(l.memParent, name)
		if g.mem != g.dir {
			if err := os.Mkdir(g.mem, 0o755); err != nil {
				g.mem = ""
				g.rmdirs()
				return nil, fmt.Errorf("sandbox: make the command's memory cgroup: %w", err)
			}
		}
		if err := g.setMemory(l.memory); err != nil {
			g.rmdirs()
			return nil, err
		}
	}
	return g, nil
}

// setMemory limits the memory cgroup to n bytes, swap included where
// the kernel accounts it (so that tmpfs pages cannot be pushed to swap
// beyond the limit).
func (g *cgroup) setMemory(n int64) error {
	v := strconv.FormatInt(n, 10)
	if _, err := os.Stat(filepath.Join(g.mem, "memory.max")); err == nil {
		if err := g.write(g.mem, "memory.max", v); err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(g.mem, "memory.swap.max")); err == nil {
			return g.write(g.mem, "memory.swap.max", "0")
		}
		return nil
	}
	if err := g.write(g.mem, "memory.limit_in_bytes", v); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(g.mem, "memory.memsw.limit_in_bytes")); err == nil {
		return g.write(g.mem, "memory.memsw.limit_in_bytes", v)
	}
	return nil
}

func (g *cgroup) write(dir, file, value string) error {
	if err := os.WriteFile(filepath.Join(dir, file), []byte(value), 0); err != nil {
		return fmt.Errorf("sandbox: write %s of cgroup %s: %w", file, dir, err)
	}
	return nil
}

// dirs are the cgroup's directories.
func (g *cgroup) dirs() []string {
	var ds []string
	for _, d := range []string{g.dir, g.mem} {
		if d != "" && !slices.Contains(ds, d) {
			ds = append(ds, d)
		}
	}
	return ds
}

// rmdirs removes the cgroup's directories, empty as newCgroup left them.
func (g *cgroup) rmdirs() {
	for _, d := range g.dirs() {
		os.Remove(d)
	}
}

// add moves process pid (and its threads) into the cgroups.
func (g *cgroup) add(pid int) error {
	for _, d := range g.dirs() {
		if err := g.write(d, "cgroup.procs", strconv.Itoa(pid)); err != nil {
			return err
		}
	}
	return nil
}

// procs are the processes in the cgroup now.
func (g *cgroup) procs() []int {
	data, err := os.ReadFile(filepath.Join(g.dirs()[0], "cgroup.procs"))
	if err != nil {
		return nil
	}
	var pids []int
	for f := range strings.FieldsSeq(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// refusedForks is how many forks the pids limit refused (pids.events).
func (g *cgroup) refusedForks() int64 {
	if g.dir == "" {
		return 0
	}
	data, err := os.ReadFile(filepath.Join(g.dir, "pids.events"))
	if err != nil {
		return 0
	}
	return parsePidsEvents(string(data))
}

// oomKills is how many processes the memory limit killed
// (memory.events on v2, memory.oom_control on v1: "oom_kill N").
func (g *cgroup) oomKills() int64 {
	if g.mem == "" {
		return 0
	}
	for _, f := range []string{"memory.events", "memory.oom_control"} {
		if data, err := os.ReadFile(filepath.Join(g.mem, f)); err == nil {
			return parseCount(string(data), "oom_kill")
		}
	}
	return 0
}

// parsePidsEvents reads the "max N" line of pids.events.
func parsePidsEvents(data string) int64 { return parseCount(data, "max") }

// parseCount reads the "KEY N" line of a cgroup's flat keyed file.
func parseCount(data, key string) int64 {
	sc := bufio.NewScanner(strings.NewReader(data))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), " "); ok && k == key {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// signal sends sig to every process in the cgroup but those in skip.
func (g *cgroup) signal(sig syscall.Signal, skip ...int) {
	for _, pid := range g.procs() {
		if !slices.Contains(skip, pid) {
			unix.Kill(pid, sig)
		}
	}
}

// remove kills whatever is left in the cgroup, waits until it is empty
// and removes it. A process can be added by a fork racing the kill, so it
// kills again until none is left, backing off up to wait in all.
func (g *cgroup) remove(wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for delay := 100 * time.Microsecond; ; delay = min(2*delay, 50*time.Millisecond) {
		g.signal(unix.SIGKILL)
		var err error
		for _, d := range g.dirs() {
			if e := os.Remove(d); e != nil && !errors.Is(e, os.ErrNotExist) {
				err = e
			}
		}
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sandbox: remove cgroup %s (processes %v still in it): %w", strings.Join(g.dirs(), " and "), g.procs(), err)
		}
		time.Sleep(delay)
	}
}
