package procagent

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// endReason is what ended a command: its own exit, or Process.
type endReason int

const (
	endExit     endReason = iota
	endTimeout            // the timeout or ctx's deadline
	endCancel             // ctx cancelled
	endOverflow           // too much on stdout
)

// running is a started command: its pipes, the goroutines that feed and
// drain them, and its process group.
type running struct {
	cmd *exec.Cmd

	stdinW, stdoutR, stderrR *os.File
	io                       sync.WaitGroup // the three goroutines below

	stdout   []byte // up to max bytes
	overflow chan struct{}
	stderr   ring

	exited chan error // the command's Wait error, once its group is swept

	mu    sync.Mutex // guards swept; held while the group is signalled
	swept bool       // the group is dead: signal no more
}

// hooks are called around a started command: started right after it
// started, before any of its input is written (an error kills its group
// and fails the start); swept once its group is dead.
type hooks struct {
	started func(cmd *exec.Cmd) error
	swept   func()
}

// startPiped starts cmd (its process group set up) with in on its stdin,
// reading at most max bytes of its stdout.
func startPiped(cmd *exec.Cmd, in []byte, max int64, h hooks) (_ *running, err error) {
	r := &running{cmd: cmd, overflow: make(chan struct{}), exited: make(chan error, 1)}
	r.stderr.keep = stderrKeep
	var parent, child []*os.File
	defer func() {
		closeAll(child) // the command holds its own copies
		if err != nil {
			closeAll(parent)
		}
	}()
	for i := range 3 {
		pr, pw, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		if i == 0 { // stdin: the command reads
			pr, pw = pw, pr
		}
		parent, child = append(parent, pr), append(child, pw)
	}
	r.stdinW, r.stdoutR, r.stderrR = parent[0], parent[1], parent[2]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = child[0], child[1], child[2]
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	if h.started != nil {
		if err := h.started(cmd); err != nil {
			killGroup(cmd.Process.Pid, syscall.SIGKILL)
			cmd.Wait()
			return nil, err
		}
	}

	r.io.Add(3)
	go func() {
		defer r.io.Done()
		r.stdinW.Write(in) // EPIPE when the command does not read it all: its business
		r.stdinW.Close()
	}()
	go func() {
		defer r.io.Done()
		var rerr error
		if r.stdout, rerr = readCapped(r.stdoutR, max); errors.Is(rerr, errOverflow) {
			close(r.overflow) // and read no more: the group is killed
		}
	}()
	go func() {
		defer r.io.Done()
		io.Copy(&r.stderr, r.stderrR)
	}()
	go func() {
		// Whatever the command left running in its group dies with it.
		r.exited <- exitThenReap(cmd, func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			killGroup(cmd.Process.Pid, syscall.SIGKILL)
			r.swept = true
			if h.swept != nil {
				h.swept()
			}
		})
	}()
	return r, nil
}

// signal sends sig to the command's group unless it was swept.
func (r *running) signal(sig syscall.Signal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.swept {
		killGroup(r.cmd.Process.Pid, sig)
	}
}

// wait waits for the command to exit, ending its group on the timeout
// (SIGTERM, then SIGKILL after grace), on ctx's end (likewise) or on too
// much output (SIGKILL). It returns what ended the command and its Wait
// error.
func (r *running) wait(ctx context.Context, timeout time.Duration, hasTimeout bool, grace time.Duration) (endReason, error) {
	why := endExit
	var timeoutC, killC <-chan time.Time
	if hasTimeout {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timeoutC = t.C
	}
	done, overflow := ctx.Done(), r.overflow
	end := func(reason endReason, sig syscall.Signal) {
		why, timeoutC, done, overflow = reason, nil, nil, nil
		r.signal(sig)
		if sig == syscall.SIGTERM {
			t := time.NewTimer(grace)
			killC = t.C
		}
	}
	for {
		select {
		case err := <-r.exited:
			return why, err
		case <-timeoutC:
			end(endTimeout, syscall.SIGTERM)
		case <-done:
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				end(endTimeout, syscall.SIGTERM)
			} else {
				end(endCancel, syscall.SIGTERM)
			}
		case <-overflow:
			end(endOverflow, syscall.SIGKILL)
		case <-killC:
			killC = nil
			r.signal(syscall.SIGKILL)
		}
	}
}

// outputs waits for the pipes to drain, once the command's group is dead,
// and returns stdout, the end of stderr, and whether stdout overflowed.
// A descendant that left the group may still hold the pipes: outputs
// waits for it pipeWait at most.
func (r *running) outputs(log *slog.Logger) (stdout, stderr []byte, overflow bool) {
	drained := make(chan struct{})
	go func() { r.io.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(pipeWait):
		log.Warn("a process that left the agent's process group holds its pipes; not waiting for it")
		now := time.Now()
		r.stdinW.SetWriteDeadline(now)
		r.stdoutR.SetReadDeadline(now)
		r.stderrR.SetReadDeadline(now)
		<-drained
	}
	closeAll([]*os.File{r.stdinW, r.stdoutR, r.stderrR})
	select {
	case <-r.overflow:
		return nil, r.stderr.bytes(), true
	default:
		return r.stdout, r.stderr.bytes(), false
	}
}

var errOverflow = errors.New("too much output")

// readCapped reads r to its end, or fails with errOverflow past max bytes.
// Its buffer grows by doubling up to max bytes, so that a huge output
// costs at most twice the cap.
func readCapped(r io.Reader, max int64) ([]byte, error) {
	buf := make([]byte, 0, min(max, 32<<10))
	for {
		if int64(len(buf)) == max { // full: one more byte is too many
			var probe [1]byte
			n, err := io.ReadFull(r, probe[:])
			if n > 0 {
				return nil, errOverflow
			}
			if err == io.EOF {
				err = nil
			}
			return buf, err
		}
		if len(buf) == cap(buf) {
			buf = append(make([]byte, 0, min(2*int64(cap(buf)), max)), buf...)
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// ring keeps the last keep bytes written to it.
type ring struct {
	keep int
	buf  []byte
}

func (r *ring) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= r.keep {
		r.buf = append(r.buf[:0], p[len(p)-r.keep:]...)
		return n, nil
	}
	if len(r.buf)+len(p) > 2*r.keep { // compact, at most once per keep bytes
		r.buf = append(r.buf[:0], r.buf[len(r.buf)-(r.keep-len(p)):]...)
	}
	r.buf = append(r.buf, p...)
	return n, nil
}

func (r *ring) bytes() []byte {
	if len(r.buf) > r.keep {
		return r.buf[len(r.buf)-r.keep:]
	}
	return r.buf
}
