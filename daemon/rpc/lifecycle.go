package rpc

import (
	"context"
	"fmt"
	"time"
)

// The daemon's own lifecycle, beside the Workspace methods: "lunad/daemon"
// answers its status (DaemonStatus), "lunad/stop" makes it stop.

// DaemonStatus is a daemon's answer to "lunad/daemon": its Hello and what
// the assembled daemon reports of itself (ServeOptions.Status).
type DaemonStatus struct {
	Hello
	Daemon DaemonInfo `json:"daemon"`
}

// DaemonInfo is what the assembled daemon says of itself in its status.
type DaemonInfo struct {
	// ConfigFile is the file the configuration in force was read from
	// (over the defaults, under the daemon's LUNAD_* environment, Env),
	// ConfigLoaded when it was read.
	ConfigFile   string    `json:"config_file"`
	ConfigLoaded time.Time `json:"config_loaded"`
	// Config are the settings in force that a user changes most, by name
	// (llm.model, runs.slots, author, ...), secrets left out.
	Config map[string]string `json:"config"`
	// Env names the LUNAD_* variables set in the daemon's environment,
	// which take precedence over the file.
	Env []string `json:"env"`
	// ReloadError is why the configuration file as it is now was not
	// taken (the configuration in force is the previous one); empty if it
	// was.
	ReloadError string `json:"reload_error,omitempty"`
	// RestartPending is why the daemon will restart as soon as it is idle
	// (a change that cannot be taken live); empty if it will not.
	RestartPending string `json:"restart_pending,omitempty"`
	// Restarted is why the daemon before this one restarted into it;
	// empty if it was started otherwise.
	Restarted string `json:"restarted,omitempty"`
	// RunsInFlight counts the workflow runs the daemon drives.
	RunsInFlight int `json:"runs_in_flight"`
	// Memory is the daemon's resident memory, in bytes.
	Memory int64 `json:"memory"`
	// Auto: started by a client; it exits IdleTimeout after its last
	// client left (0: never).
	Auto        bool          `json:"auto"`
	IdleTimeout time.Duration `json:"idle_timeout"`
}

// Status asks the daemon for its status.
func (c *Client) Status(ctx context.Context) (DaemonStatus, error) {
	return call[DaemonStatus](ctx, c, mDaemon, noParams{})
}

// Stop asks the daemon to stop: it stops accepting, finishes the calls in
// flight and exits; the runs it drives are resumed by the next daemon.
// Stop returns once the daemon has accepted to stop, not once it has
// exited: its process id is Hello().PID.
func (c *Client) Stop(ctx context.Context) error {
	_, err := call[struct{}](ctx, c, mStop, noParams{})
	return err
}

// DiffersError is Connect's error when the daemon serving the workspace
// runs with other Settings than the client asked for (ConnectOptions.Config):
// its Error names the first setting that differs, both values and what to
// do. It is not ErrNoDaemon: a daemon serves, and a client that needs
// the daemon says so instead of working without it.
type DiffersError struct {
	PID           int
	Setting       string
	Daemon, Asked string
}

func (e *DiffersError) Error() string {
	return fmt.Sprintf("the daemon serving this workspace (pid %d) runs with %s %s, this command with %s: run `lunad daemon restart` with this command's configuration (environment and .luna/config.toml) to serve it, or make the two the same",
		e.PID, e.Setting, e.Daemon, e.Asked)
}

// differs is the DiffersError of a daemon whose settings are d when the
// client asked for asked, or nil if they are the same.
func differs(pid int, d, asked *Settings) error {
	if d == nil {
		return &DiffersError{PID: pid, Setting: "settings", Daemon: "none reported", Asked: asked.String()}
	}
	for _, f := range []struct{ name, d, a string }{
		{"author", fmt.Sprintf("%q", d.Author), fmt.Sprintf("%q", asked.Author)},
		{"author email", fmt.Sprintf("%q", d.Email), fmt.Sprintf("%q", asked.Email)},
		{"lock_timeout", d.LockTimeout.String(), asked.LockTimeout.String()},
		{"max_content", fmt.Sprint(d.MaxContent), fmt.Sprint(asked.MaxContent)},
	} {
		if f.d != f.a {
			return &DiffersError{PID: pid, Setting: f.name, Daemon: f.d, Asked: f.a}
		}
	}
	return nil
}

// stopRequested is the reason Serve is given by a "lunad/stop" call.
const stopRequested = "stopped by a client (lunad daemon stop)"

// requestStop asks Serve to stop, once.
func (srv *server) requestStop() {
	select {
	case srv.stopCall <- stopRequested:
	default: // already asked
	}
}

// daemonStatus is the answer to "lunad/daemon".
func (srv *server) daemonStatus() DaemonStatus {
	st := DaemonStatus{Hello: srv.status()}
	if srv.opts.Status != nil {
		st.Daemon = srv.opts.Status()
	}
	return st
}
