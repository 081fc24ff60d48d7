package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/config"
	"github.com/lunad/lunad/daemon"
	"github.com/lunad/lunad/daemon/rpc"
	"github.com/lunad/lunad/internal/unixsock"
	"github.com/lunad/lunad/runs/natsqueue"
)

// doctorQueue is the queue's mitigations as `lunad doctor --json` has
// them; doctor reads the configuration and the key file, and never
// connects to the server.
type doctorQueue struct {
	Configured bool   `json:"configured"`
	URL        string `json:"url,omitempty"`
	Name       string `json:"name,omitempty"`
	// Login is how lunad logs in to the server: "password" (queue.user
	// and queue.password_env), "url" (a user and password, or a token,
	// in queue.url), "nkey", "credentials" or "none".
	Login          string   `json:"login,omitempty"`
	DaemonKeyFile  string   `json:"daemon_key_file,omitempty"`
	DaemonKey      string   `json:"daemon_key,omitempty"`
	DaemonKeyError string   `json:"daemon_key_error,omitempty"`
	Workers        []string `json:"workers,omitempty"`
	Daemons        []string `json:"daemons,omitempty"`
	Warnings       []string `json:"warnings,omitempty"`
}

// doctorMCP is the MCP HTTP server's token rule and the state of the
// directory its tokens are written in.
type doctorMCP struct {
	TokenRequired bool   `json:"token_required"`
	TokenDir      string `json:"token_dir,omitempty"`
	Warning       string `json:"warning,omitempty"`
}

const (
	warnQueueNoLogin   = "WARNING: any client of the server can read stage messages; only signatures protect the workspace: set queue.user and queue.password_env, queue.nkey_file or queue.credentials"
	warnQueueNoWorkers = "WARNING: the daemon takes no result then: add the keys `lunad worker key` prints"
)

// checkQueue reports the configured queue of the workspace at root.
func checkQueue(q config.Queue, root string) doctorQueue {
	if q.URL == "" {
		return doctorQueue{}
	}
	r := doctorQueue{Configured: true, URL: lunad.RedactURL(q.URL), Name: q.Name, Workers: q.Workers, Daemons: q.Daemons}
	switch {
	case q.User != "":
		r.Login = "password"
	case q.NkeyFile != "":
		r.Login = "nkey"
	case urlLogin(q.URL):
		r.Login = "url"
	case q.Credentials != "":
		r.Login = "credentials"
	default:
		r.Login = "none"
		r.Warnings = append(r.Warnings, "login: none: "+warnQueueNoLogin)
	}
	if len(q.Workers) == 0 {
		r.Warnings = append(r.Warnings, "worker keys: none: "+warnQueueNoWorkers)
	}
	path, err := daemon.KeyFile(root, daemon.RoleDaemon)
	if err == nil {
		r.DaemonKeyFile = path
		r.DaemonKey, err = natsqueue.ExistingPublicKey(path)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.DaemonKeyError = "not made yet: the daemon makes it when it opens the queue, `lunad worker key --daemon` prints it"
	case err != nil:
		r.DaemonKeyError = err.Error()
	}
	return r
}

// urlLogin reports whether raw carries a user and password or a token.
func urlLogin(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.User != nil
}

// checkMCP reports where `lunad mcp --http` would write its token for
// the workspace at root, and whether that directory, if it exists, is
// one the server would use. It makes nothing.
func checkMCP(root string) doctorMCP {
	r := doctorMCP{TokenRequired: true}
	state, _, err := rpc.StateDir(root)
	if err != nil {
		r.Warning = "WARNING: " + err.Error()
		return r
	}
	r.TokenDir = filepath.Join(state, "mcp")
	if err := unixsock.CheckPrivateDir(r.TokenDir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.Warning = "WARNING: " + err.Error() + ": `lunad mcp --http` refuses to start until it is"
	}
	return r
}

// printQueue writes q and m for a person, quoting what the workspace's
// configuration says.
func printQueue(p *errWriter, q doctorQueue, m doctorMCP) {
	if !q.Configured {
		p.printf("queue ([queue]): not configured: the daemon runs stages itself\n")
	} else {
		p.printf("queue ([queue]): %s, name %s\n", printable(q.URL), printable(q.Name))
		switch q.Login {
		case "none":
			p.printf("  login: none: %s\n", warnQueueNoLogin)
		case "url":
			p.printf("  login: the user and password (or token) in the URL\n")
		default:
			p.printf("  login: %s\n", q.Login)
		}
		if q.DaemonKey != "" {
			p.printf("  daemon's signing key: %s (public key %s)\n", printable(q.DaemonKeyFile), printable(q.DaemonKey))
		} else {
			p.printf("  daemon's signing key: %s: %s\n", printable(q.DaemonKeyFile), q.DaemonKeyError)
		}
		if len(q.Workers) == 0 {
			p.printf("  worker keys (queue.workers): none: %s\n", warnQueueNoWorkers)
		} else {
			p.printf("  worker keys (queue.workers): %d registered\n", len(q.Workers))
		}
		if len(q.Daemons) == 0 {
			p.printf("  daemon keys a worker clone trusts (queue.daemons): none\n")
		} else {
			p.printf("  daemon keys a worker clone trusts (queue.daemons): %s\n", strings.Join(printableAll(q.Daemons), ", "))
		}
	}
	line := fmt.Sprintf("mcp: `lunad mcp --http` requires a bearer token, written 0600 under %s", printable(orWhat(m.TokenDir, "the workspace's git directory")))
	if m.Warning != "" {
		line += "; " + m.Warning
	}
	p.printf("%s\n", line)
}
