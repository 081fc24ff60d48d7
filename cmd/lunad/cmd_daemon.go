package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/daemon/rpc"
)

var cmdDaemon = &command{
	name:    "daemon",
	args:    "status|stop|restart",
	summary: "show, stop or restart the workspace's daemon",
	help: `"lunad daemon status" shows the daemon serving the workspace: its pid,
uptime, the configuration in force and where it came from (the file, the
LUNAD_* variables of its environment), a configuration file it could not
load, a restart it waits to make, its clients, requests and runs in
flight, its memory and when it exits when idle. With --json, the same as
an object ({"running": false} when none serves).

"lunad daemon stop" asks the daemon to stop and waits until its process
has exited: it finishes the requests in flight; the runs it drives are
resumed by the next daemon.

"lunad daemon restart" stops it (if one serves) and starts one, as a
command does when none serves: the new daemon reads the configuration
afresh and has this command's environment (LUNAD_* included).`,
	minArgs: 1, maxArgs: 1,
	run: func(m *Main, ctx context.Context, fs *flagSet, args []string) error {
		pos, err := fs.parse(args)
		if err != nil {
			return err
		}
		switch pos[0] {
		case "status":
			return m.daemonStatus(ctx)
		case "stop":
			return m.daemonStop(ctx)
		case "restart":
			if err := m.daemonStop(ctx); err != nil {
				return err
			}
			return m.daemonStart(ctx)
		}
		return fs.usageError("unknown form: daemon %s (status, stop or restart)", pos[0])
	},
}

// stopWait bounds the wait for a stopped daemon's process to exit.
const stopWait = 60 * time.Second

// connectDaemon connects to the daemon serving the --dir workspace, nil
// if none does.
func (m *Main) connectDaemon(ctx context.Context) (*rpc.Client, error) {
	ws, err := rpc.Connect(ctx, m.workDir(), rpc.ConnectOptions{})
	if errors.Is(err, rpc.ErrNoDaemon) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ws.(*rpc.Client), nil
}

func (m *Main) daemonStatus(ctx context.Context) error {
	c, err := m.connectDaemon(ctx)
	if err != nil {
		return err
	}
	if c == nil {
		if m.json {
			return m.printJSON(map[string]any{"running": false, "root": findRoot(m.workDir())})
		}
		_, err := fmt.Fprintf(m.Stdout, "no daemon serves %s (the next command that needs one starts it)\n", findRoot(m.workDir()))
		return err
	}
	defer c.Close()
	st, err := c.Status(ctx)
	if err != nil {
		return err
	}
	if m.json {
		return m.printJSON(struct {
			Running bool `json:"running"`
			rpc.DaemonStatus
		}{true, st})
	}
	return m.printDaemonStatus(st)
}

// printDaemonStatus writes st as lines of "name  value".
func (m *Main) printDaemonStatus(st rpc.DaemonStatus) error {
	now := time.Now()
	if m.Now != nil {
		now = m.Now()
	}
	d := st.Daemon
	t := newTable(m.Stdout, "pid", fmt.Sprint(st.PID))
	t.row("root", st.Root)
	t.row("uptime", fmt.Sprintf("%v (since %s)", now.Sub(st.Started).Round(time.Second), st.Started.Format(time.RFC3339)))
	switch {
	case !d.Auto:
		t.row("started", "by lunad serve: it runs until stopped")
	case d.IdleTimeout > 0:
		t.row("started", fmt.Sprintf("by a client: it exits %v after its last client leaves, once no run is in flight", d.IdleTimeout))
	default:
		t.row("started", "by a client: it runs until stopped")
	}
	if d.Restarted != "" {
		t.row("restarted", "because "+d.Restarted)
	}
	t.row("clients", fmt.Sprintf("%d besides this one", st.Clients-1))
	t.row("requests", fmt.Sprintf("%d served, %d in flight", st.Served, st.Active))
	t.row("runs", fmt.Sprintf("%d in flight", d.RunsInFlight))
	t.row("memory", fmt.Sprintf("%.1f MiB resident", float64(d.Memory)/(1<<20)))
	src := d.ConfigFile + ", read " + d.ConfigLoaded.Format(time.RFC3339)
	if len(d.Env) > 0 {
		src += "; over it from the environment: " + strings.Join(d.Env, ", ")
	}
	t.row("config", src)
	for _, k := range slices.Sorted(maps.Keys(d.Config)) {
		t.row("  "+k, d.Config[k])
	}
	if d.ReloadError != "" {
		t.row("reload failed", d.ReloadError+" (the configuration above stays in force)")
	}
	if d.RestartPending != "" {
		t.row("restart", d.RestartPending)
	}
	return t.flush()
}

// daemonStop stops the daemon serving the workspace, if one does, and
// waits until its process has exited.
func (m *Main) daemonStop(ctx context.Context) error {
	c, err := m.connectDaemon(ctx)
	if err != nil {
		return err
	}
	if c == nil {
		_, err := fmt.Fprintf(m.Stdout, "no daemon serves %s\n", findRoot(m.workDir()))
		return err
	}
	pid := c.Hello().PID
	err = c.Stop(ctx)
	c.Close()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(stopWait)
	for alive(pid) {
		if time.Now().After(deadline) {
			return fmt.Errorf("the daemon (pid %d) was asked to stop but still runs after %v: see its log, or kill %d", pid, stopWait, pid)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	_, err = fmt.Fprintf(m.Stdout, "stopped the daemon (pid %d)\n", pid)
	return err
}

// daemonStart starts a daemon for the workspace, as a command does when
// none serves, and says which.
func (m *Main) daemonStart(ctx context.Context) error {
	ws, err := rpc.Connect(ctx, m.workDir(), rpc.ConnectOptions{AutoStart: true})
	if err != nil {
		return err
	}
	defer ws.Close()
	_, err = fmt.Fprintf(m.Stdout, "the daemon (pid %d) serves %s\n", ws.(*rpc.Client).Hello().PID, ws.Root())
	return err
}

// alive reports whether process pid runs (a zombie does not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	// The state follows the command name in parentheses.
	if i := strings.LastIndexByte(string(b), ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] != 'Z'
	}
	return true
}

// noteDaemon tells the person what the daemon ws said it had to tell its
// next client (a reload, a restart, a configuration file it could not
// load), on stderr.
func (m *Main) noteDaemon(ws lunad.Workspace) {
	if c, ok := ws.(*rpc.Client); ok && c.Hello().Notice != "" {
		fmt.Fprintf(m.Stderr, "lunad: note: %s\n", c.Hello().Notice)
	}
}
