package sandbox

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lunad/lunad/sandbox/shim"
)

// gateScript holds the command back until lunad has put it in its cgroup
// and set its rlimits (cgroup v1 cannot start a process inside a cgroup,
// and a process must be in it before it forks): it waits for a line on
// descriptor 3, closes it, and becomes the command (bwrap, or the
// command itself when unsandboxed). Everything the command starts is
// then inside.
const gateScript = `read -r _ <&3 || exit 125; exec 3<&-; exec "$@"`

// gateShell runs gateScript.
const gateShell = "/bin/sh"

// bwrapInfo is the first JSON object bwrap writes to --info-fd.
type bwrapInfo struct {
	ChildPid int    `json:"child-pid"`
	PidNS    uint64 `json:"pid-namespace"`
}

// proc is one started command: its gate (then bwrap or the command), and
// what lets lunad signal everything it started.
type proc struct {
	process   *os.Process
	pid       int
	sandboxed bool
	cg        *cgroup        // nil without a pids cgroup
	info      chan bwrapInfo // closed once known (or never coming)
	infoV     bwrapInfo
}

// run starts p, confines it, waits for it to end or for its timeout or
// ctx, and collects its Result.
func (r *Runner) run(ctx context.Context, p *plan) (Result, error) {
	env, done, err := r.environment(p)
	if err != nil {
		return Result{}, err
	}
	defer done()
	var files pipes
	defer files.closeAll()
	s, err := r.start(p, env, &files)
	if err != nil {
		return Result{}, err
	}
	res := Result{Sandboxed: r.sandboxed, Warning: r.warning, Landlock: s.landlock}
	res.Ended = r.wait(ctx, s.proc, p, s.exited)
	s.proc.sweep() // what is left of the group, once its leader ended
	oomKilled := false
	if s.proc.cg != nil {
		if s.proc.cg.refusedForks() > 0 {
			res.Hit = append(res.Hit, "processes")
		}
		if s.proc.cg.oomKills() > 0 {
			oomKilled = true
			res.Hit = append(res.Hit, "memory")
		}
	}
	s.proc.cleanup(r)
	truncated := s.finish(p.grace)

	ps := s.cmd.ProcessState
	res.Duration = r.clock().Sub(s.start)
	res.Stdout, res.Stderr = s.stdout.Output(), s.stderr.Output()
	res.ExitCode, res.Signal = exitStatus(ps, r.sandboxed)
	if res.Ended == "" {
		res.Ended = limitEnded(res.Signal, ps, p.limits.CPU)
	}
	if res.Ended == "" && oomKilled && res.Signal == "SIGKILL" {
		res.Ended = "memory"
	}
	if res.Ended == "cpu" || res.Ended == "file_size" {
		res.Hit = append(res.Hit, res.Ended)
	}
	slices.Sort(res.Hit)
	if truncated {
		res.Warning = joinWarning(res.Warning, "a process it started outlived it and held its output open: the output may be incomplete")
	}
	if err := shimFailure(s.shimStatus.String()); err != nil {
		return Result{}, err
	}
	return res, nil
}

// environment is the command's scrubbed environment, once its program is
// found on its PATH. Unsandboxed, HOME (unless Spec.Home) and TMPDIR are
// directories of a private temporary directory, which done removes; done
// also removes the mount points bwrap made for missing read-only paths.
func (r *Runner) environment(p *plan) (env []string, done func(), err error) {
	home, tmp := p.home, "/tmp"
	visible := p.visibleDir
	var priv string
	if r.sandboxed {
		home = cmp.Or(home, p.userHome, "/tmp")
	} else {
		visible = func(string) bool { return true }
		if priv, err = os.MkdirTemp("", "lunad-command-"); err != nil {
			return nil, nil, fmt.Errorf("sandbox: a private home and /tmp: %w", err)
		}
		tmp, home = filepath.Join(priv, "tmp"), cmp.Or(home, filepath.Join(priv, "home"))
		for _, d := range []string{tmp, home} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				os.RemoveAll(priv)
				return nil, nil, fmt.Errorf("sandbox: a private home and /tmp: %w", err)
			}
		}
	}
	done = func() {
		removeCreated(p.created)
		if priv != "" {
			os.RemoveAll(priv)
		}
	}
	env = scrubbedEnv(r.getenv, visible, home, tmp, p.env)
	if path := envValue(env, "PATH"); !onPath(p.argv[0], path, isExecutable) {
		done()
		return nil, nil, errNotOnPath(p.argv[0], path)
	}
	return env, done, nil
}

// started is a command started and let through its gate: its process,
// the goroutines reading its output (and writing its stdin, reading
// bwrap's info), which finish joins.
type started struct {
	cmd            *exec.Cmd
	proc           *proc
	start          time.Time
	exited         chan struct{}
	wg             sync.WaitGroup
	outR, errR     *os.File
	stdinW         *os.File
	stdout, stderr *capture
	landlock       string // what the shim restricts ("" without it)
	shimStatus     strings.Builder
	mu             sync.Mutex
	truncated      bool
}

// start starts the gate — running bwrap, or the command itself when
// unsandboxed —, confines it (confine) and opens the gate.
func (r *Runner) start(p *plan, env []string, files *pipes) (*started, error) {
	gateR, gateW, err := files.pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := files.pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := files.pipe()
	if err != nil {
		return nil, err
	}
	growPipe(outR)
	growPipe(errR)
	cmd := &exec.Cmd{
		Path:        gateShell,
		Env:         env,
		Dir:         p.dir,
		Stdout:      outW,
		Stderr:      errW,
		ExtraFiles:  []*os.File{gateR},
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	argv := p.argv
	s := &started{cmd: cmd, exited: make(chan struct{}), outR: outR, errR: errR,
		stdout: newCapture(p.limits.Output), stderr: newCapture(p.limits.Output)}
	var infoR, specW, statusR *os.File
	var spec shim.Spec
	if r.sandboxed {
		var infoW *os.File
		if infoR, infoW, err = files.pipe(); err != nil {
			return nil, err
		}
		cmd.ExtraFiles = append(cmd.ExtraFiles, infoW)
		if r.shim != "" {
			var specR, statusW *os.File
			if specR, specW, err = files.pipe(); err != nil {
				return nil, err
			}
			if statusR, statusW, err = files.pipe(); err != nil {
				return nil, err
			}
			cmd.ExtraFiles = append(cmd.ExtraFiles, specR, statusW) // shim.SpecFD, shim.StatusFD
			spec = newShimSpec(p, r.mounts, r.caps.Landlock)
			s.landlock = shim.Describe(spec.FS, spec.Net, spec.Scoped)
		}
		c := bwrapConfig{mounts: r.mounts, shim: r.shim, uid: r.caps.commandUID()}
		if r.seccomp != nil {
			f, err := filterFile(r.seccomp)
			if err != nil {
				return nil, err
			}
			*files = append(*files, f)
			c.seccompFD = 3 + len(cmd.ExtraFiles)
			cmd.ExtraFiles = append(cmd.ExtraFiles, f)
		}
		argv = append([]string{r.caps.Bwrap}, bwrapArgs(p, c)...)
		cmd.Dir = "/" // bwrap's --chdir sets the command's
	}
	cmd.Args = append([]string{"sh", "-c", gateScript, "lunad-sandbox"}, argv...)
	if len(p.stdin) > 0 {
		var stdinR *os.File
		if stdinR, s.stdinW, err = files.pipe(); err != nil {
			return nil, err
		}
		cmd.Stdin = stdinR
	}

	s.start = r.clock()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("sandbox: start %s: %w", gateShell, err)
	}
	closeChildEnds(cmd)
	s.proc = &proc{process: cmd.Process, pid: cmd.Process.Pid, sandboxed: r.sandboxed, info: make(chan bwrapInfo, 1)}
	s.wg.Go(func() {
		cmd.Wait()
		close(s.exited)
	})
	// The shim sets RLIMIT_AS itself, just before its exec: a Go
	// program cannot start under a small one.
	if err := r.confine(s.proc, p.limits, specW != nil); err != nil {
		syscall.Kill(-s.proc.pid, syscall.SIGKILL)
		<-s.exited
		s.proc.cleanup(r)
		s.wg.Wait()
		return nil, err
	}
	if _, err := gateW.Write([]byte("\n")); err != nil {
		r.log.Warn("sandbox: open the gate", "err", err)
	}
	gateW.Close()

	for _, o := range []struct {
		f *os.File
		c *capture
	}{{outR, s.stdout}, {errR, s.stderr}} {
		s.wg.Go(func() {
			if err := drain(o.f, o.c); err != nil {
				s.mu.Lock()
				s.truncated = true
				s.mu.Unlock()
			}
		})
	}
	if s.stdinW != nil {
		s.wg.Go(func() { s.stdinW.Write(p.stdin); s.stdinW.Close() })
	}
	if infoR != nil {
		s.wg.Go(func() { s.proc.readInfo(infoR) })
	} else {
		close(s.proc.info)
	}
	if specW != nil {
		// The write ends when the shim has read the spec, or when the
		// sandbox is gone (EPIPE).
		s.wg.Go(func() { specW.Write(spec.Encode()); specW.Close() })
		// EOF once bwrap's processes, which hold the write end, are gone
		// (the command never has it: close-on-exec).
		s.wg.Go(func() { io.Copy(&s.shimStatus, io.LimitReader(statusR, shim.StatusLimit)) })
	}
	return s, nil
}

// finish joins the started goroutines once the command has ended and
// what it started was killed: the readers then reach EOF. Unsandboxed
// without a cgroup, a process that left the group may still hold the
// output: it gets the grace period, then reading stops; finish reports
// whether that happened.
func (s *started) finish(grace time.Duration) bool {
	deadline := time.Now().Add(grace)
	s.outR.SetReadDeadline(deadline)
	s.errR.SetReadDeadline(deadline)
	if s.stdinW != nil {
		s.stdinW.SetWriteDeadline(deadline)
	}
	s.wg.Wait()
	return s.truncated
}

// wait waits for the command to exit; at its timeout, or when ctx ends,
// it stops it (TERM, then KILL after the grace period) and says why.
func (r *Runner) wait(ctx context.Context, pr *proc, p *plan, exited <-chan struct{}) string {
	timer := time.NewTimer(p.timeout)
	defer timer.Stop()
	var why string
	select {
	case <-exited:
		return ""
	case <-timer.C:
		why = "timeout"
	case <-ctx.Done():
		why = "cancelled"
	}
	pr.terminate()
	grace := time.NewTimer(p.grace)
	defer grace.Stop()
	var cancelled <-chan struct{} // ctx ending during a timeout's grace period cuts it short
	if why == "timeout" {
		cancelled = ctx.Done()
	}
	select {
	case <-exited:
		return why
	case <-grace.C:
	case <-cancelled:
	}
	pr.kill()
	<-exited
	return why
}

// confine puts the started gate in its pids cgroup, or limits its
// processes with RLIMIT_NPROC, and sets its rlimits; everything it
// starts inherits both.
func (r *Runner) confine(pr *proc, l Limits, shimSetsMemory bool) error {
	if r.caps.CgroupDir != "" || r.caps.MemoryCgroupDir != "" {
		cg, err := newCgroup(cgroupLimits{pidsParent: r.caps.CgroupDir, processes: l.Processes, memParent: r.caps.MemoryCgroupDir, memory: l.Memory})
		if err != nil {
			return err
		}
		pr.cg = cg
		if err := cg.add(pr.pid); err != nil {
			return err
		}
	}
	if r.caps.CgroupDir == "" {
		if err := setRlimit(pr.pid, unix.RLIMIT_NPROC, uint64(l.Processes), uint64(l.Processes)); err != nil {
			return err
		}
	}
	cpu := uint64((l.CPU + time.Second - 1) / time.Second)
	type rlimit struct {
		res        int
		soft, hard uint64
	}
	lims := []rlimit{{unix.RLIMIT_CPU, cpu, cpu + 1}, {unix.RLIMIT_FSIZE, uint64(l.FileSize), uint64(l.FileSize)}}
	if !shimSetsMemory {
		lims = append(lims, rlimit{unix.RLIMIT_AS, uint64(l.Memory), uint64(l.Memory)})
	}
	for _, lim := range lims {
		if err := setRlimit(pr.pid, lim.res, lim.soft, lim.hard); err != nil {
			return err
		}
	}
	return nil
}

// readInfo reads bwrap's info (the sandbox's first process and its pid
// namespace) and closes f.
func (pr *proc) readInfo(f *os.File) {
	defer f.Close()
	defer close(pr.info)
	var info bwrapInfo
	if err := json.NewDecoder(f).Decode(&info); err == nil {
		pr.info <- info
	}
}

// sandboxInfo is bwrap's info, once known; zero when bwrap never gave it
// (it failed first, or was stopped before it could).
func (pr *proc) sandboxInfo() bwrapInfo {
	if info, ok := <-pr.info; ok {
		pr.infoV = info
	}
	return pr.infoV
}

// terminate sends TERM to every process of the command, so each can end
// cleanly: sandboxed, to the processes in the sandbox's pid namespace
// but bwrap's own (its monitor outside and its init inside would tear
// the sandbox down at once); unsandboxed, to the process group and the
// cgroup.
func (pr *proc) terminate() {
	if !pr.sandboxed {
		syscall.Kill(-pr.pid, syscall.SIGTERM)
		if pr.cg != nil {
			pr.cg.signal(syscall.SIGTERM)
		}
		return
	}
	info := pr.sandboxInfo()
	if info.PidNS == 0 {
		return
	}
	for _, pid := range pr.members(info) {
		if pid != pr.pid && pid != info.ChildPid {
			syscall.Kill(pid, syscall.SIGTERM)
		}
	}
}

// kill sends KILL to every process of the command. Sandboxed, killing
// bwrap's monitor is enough (--die-with-parent kills its init, and the
// kernel every other process of the pid namespace), and the members are
// killed too. The leader is signalled through its pidfd (os.Process), so
// a leader that just exited is never mistaken for a new process.
func (pr *proc) kill() {
	if !pr.sandboxed {
		pr.sweep()
		return
	}
	pr.process.Signal(syscall.SIGKILL)
	select {
	case info, ok := <-pr.info:
		if ok {
			pr.infoV = info
		}
	default:
	}
	if pr.infoV.PidNS != 0 {
		for _, pid := range pr.members(pr.infoV) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// sweep kills what is left of the command once its leader exited: the
// rest of its process group and of its cgroup (a sandbox's pid namespace
// died with bwrap's init).
func (pr *proc) sweep() {
	if !pr.sandboxed {
		syscall.Kill(-pr.pid, syscall.SIGKILL)
	}
	if pr.cg != nil {
		pr.cg.signal(syscall.SIGKILL)
	}
}

// members are the processes of a sandboxed command: its cgroup's, or
// else those in its pid namespace.
func (pr *proc) members(info bwrapInfo) []int {
	if pr.cg != nil {
		return pr.cg.procs()
	}
	return pidsInNamespace(info.PidNS)
}

// cleanup removes the command's cgroup.
func (pr *proc) cleanup(r *Runner) {
	if pr.cg == nil {
		return
	}
	if err := pr.cg.remove(5 * time.Second); err != nil {
		r.log.Error("sandbox: a command's cgroup is left behind", "err", err)
	}
	pr.cg = nil
}

// pidsInNamespace are the processes whose pid namespace is inode ns,
// found in /proc.
func pidsInNamespace(ns uint64) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		var st unix.Stat_t
		if unix.Stat("/proc/"+e.Name()+"/ns/pid", &st) == nil && st.Ino == ns {
			pids = append(pids, pid)
		}
	}
	return pids
}

// exitStatus is the command's exit code and the signal that killed it.
// bwrap reports a command killed by signal N as the status 128+N.
func exitStatus(ps *os.ProcessState, sandboxed bool) (int, string) {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok {
		return ps.ExitCode(), ""
	}
	if ws.Signaled() {
		return -1, unix.SignalName(ws.Signal())
	}
	code := ws.ExitStatus()
	if sandboxed && code > 128 && code < 128+65 {
		if name := unix.SignalName(syscall.Signal(code - 128)); name != "" {
			return -1, name
		}
	}
	return code, ""
}

// limitEnded names the limit whose signal killed the command: SIGXCPU at
// the CPU limit (or SIGKILL a second after it, once it used that much),
// SIGXFSZ at the file size limit.
func limitEnded(signal string, ps *os.ProcessState, cpu time.Duration) string {
	switch signal {
	case "SIGXCPU":
		return "cpu"
	case "SIGXFSZ":
		return "file_size"
	case "SIGKILL":
		if ps.UserTime()+ps.SystemTime() >= cpu {
			return "cpu"
		}
	}
	return ""
}

func joinWarning(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func envValue(env []string, key string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// removeCreated removes the empty mount points bwrap made for read-only
// paths that did not exist, deepest first; one that is not empty stays.
func removeCreated(dirs []string) {
	for _, d := range dirs {
		os.Remove(d)
	}
}

// pipes are the run's pipe ends, all closed by closeAll.
type pipes []*os.File

// pipe makes a pipe whose ends closeAll closes.
func (ps *pipes) pipe() (r, w *os.File, err error) {
	r, w, err = os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: make a pipe: %w", err)
	}
	*ps = append(*ps, r, w)
	return r, w, nil
}

// closeChildEnds closes in lunad the ends cmd's process was given.
func closeChildEnds(cmd *exec.Cmd) {
	for _, v := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if f, ok := v.(*os.File); ok {
			f.Close()
		}
	}
	for _, f := range cmd.ExtraFiles {
		f.Close()
	}
}

func (ps pipes) closeAll() {
	for _, f := range ps {
		f.Close()
	}
}
