package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDoctorQueue: doctor reports the queue's mitigations — the URL
// without its password, how lunad logs in to the NATS server, the
// daemon's signing key (never made by doctor), the worker keys and the
// daemon keys a worker clone trusts — with a WARNING where one is
// missing, and the MCP HTTP server's token directory, with a WARNING
// when others could enter it. It never connects to the server: the URLs
// name a port nothing listens on.
func TestDoctorQueue(t *testing.T) {
	keyOf := func(t *testing.T, args ...string) string {
		t.Helper()
		return strings.TrimSpace(newWS(t).ok(append([]string{"worker", "key"}, args...)...))
	}
	worker, daemonKey := keyOf(t), keyOf(t, "--daemon")
	writeConfig := func(t *testing.T, w *ws, queue string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(w.dir, ".luna", "config.toml"), []byte(queue), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitDir := func(t *testing.T, w *ws) string {
		t.Helper()
		d, err := filepath.EvalSymlinks(filepath.Join(w.dir, ".git"))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, w *ws)
		// lines are the report's queue and mcp lines, exactly; GIT
		// stands for the workspace's git directory.
		lines  []string
		absent string
	}{
		{"no queue", func(t *testing.T, w *ws) {}, []string{
			"queue ([queue]): not configured: the daemon runs stages itself",
			"mcp: `lunad mcp --http` requires a bearer token, written 0600 under GIT/luna/mcp"}, ""},
		{"no login, no worker key, no daemon key yet", func(t *testing.T, w *ws) {
			writeConfig(t, w, "[queue]\nurl = \"nats://127.0.0.1:9\"\n")
		}, []string{
			"queue ([queue]): nats://127.0.0.1:9, name LUNAD",
			"  login: none: " + warnQueueNoLogin,
			"  daemon's signing key: GIT/luna/queue-daemon.nk: not made yet: the daemon makes it when it opens the queue, `lunad worker key --daemon` prints it",
			"  worker keys (queue.workers): none: " + warnQueueNoWorkers,
			"  daemon keys a worker clone trusts (queue.daemons): none",
			"mcp: `lunad mcp --http` requires a bearer token, written 0600 under GIT/luna/mcp"}, ""},
		{"password login, keys registered, daemon key made", func(t *testing.T, w *ws) {
			writeConfig(t, w, "[queue]\nurl = \"nats://lunad:hunter2@127.0.0.1:9\"\nuser = \"lunad\"\npassword_env = \"NATS_PASSWORD\"\nworkers = [\""+worker+"\"]\ndaemons = [\""+daemonKey+"\"]\n")
			w.ok("worker", "key", "--daemon")
		}, []string{
			"queue ([queue]): nats://REDACTED@127.0.0.1:9, name LUNAD",
			"  login: password",
			"  daemon's signing key: GIT/luna/queue-daemon.nk (public key DAEMON)",
			"  worker keys (queue.workers): 1 registered",
			"  daemon keys a worker clone trusts (queue.daemons): " + daemonKey,
			"mcp: `lunad mcp --http` requires a bearer token, written 0600 under GIT/luna/mcp"}, "hunter2"},
		{"login in the URL", func(t *testing.T, w *ws) {
			writeConfig(t, w, "[queue]\nurl = \"nats://lunad:hunter2@127.0.0.1:9\"\nworkers = [\""+worker+"\"]\n")
		}, []string{"  login: the user and password (or token) in the URL"}, "hunter2"},
		{"nkey login", func(t *testing.T, w *ws) {
			writeConfig(t, w, "[queue]\nurl = \"nats://127.0.0.1:9\"\nnkey_file = \"/etc/lunad/user.nk\"\nworkers = [\""+worker+"\"]\n")
		}, []string{"  login: nkey"}, ""},
		{"credentials login", func(t *testing.T, w *ws) {
			writeConfig(t, w, "[queue]\nurl = \"nats://127.0.0.1:9\"\ncredentials = \"/etc/lunad/user.creds\"\nworkers = [\""+worker+"\"]\n")
		}, []string{"  login: credentials"}, ""},
		{"a daemon key others may read", func(t *testing.T, w *ws) {
			writeConfig(t, w, "[queue]\nurl = \"nats://127.0.0.1:9\"\ncredentials = \"/etc/lunad/user.creds\"\nworkers = [\""+worker+"\"]\n")
			w.ok("worker", "key", "--daemon")
			if err := os.Chmod(filepath.Join(gitDir(t, w), "luna", "queue-daemon.nk"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{"  daemon's signing key: GIT/luna/queue-daemon.nk: invalid input: signing key GIT/luna/queue-daemon.nk may be read by others (mode -rw-r--r--): chmod 600 it, and make a new key if others did read it"}, ""},
		{"an MCP token directory others can enter", func(t *testing.T, w *ws) {
			dir := filepath.Join(gitDir(t, w), "luna", "mcp")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}, []string{"mcp: `lunad mcp --http` requires a bearer token, written 0600 under GIT/luna/mcp; WARNING: directory GIT/luna/mcp must be a directory owned by uid " + strconv.Itoa(os.Getuid()) + " with mode 0700 (chmod 700 it, or remove it): `lunad mcp --http` refuses to start until it is"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWS(t)
			w.env = append(w.env, "NATS_PASSWORD=hunter2")
			tc.setup(t, w)
			key := filepath.Join(gitDir(t, w), "luna", "queue-daemon.nk")
			_, statErr := os.Stat(key)
			r := w.run("doctor")
			_, afterErr := os.Stat(key)
			got := map[string]bool{}
			for _, l := range strings.Split(r.stdout, "\n") {
				got[l] = true
			}
			for _, want := range tc.lines {
				want = strings.ReplaceAll(want, "GIT", gitDir(t, w))
				if strings.Contains(want, "DAEMON") {
					want = strings.ReplaceAll(want, "DAEMON", strings.TrimSpace(w.ok("worker", "key", "--daemon")))
				}
				if !got[want] {
					t.Errorf("doctor's report lacks the line %q:\n%s", want, r.stdout)
				}
			}
			if tc.absent != "" && strings.Contains(r.stdout+r.stderr, tc.absent) {
				t.Errorf("doctor's report holds %q:\n%s", tc.absent, r)
			}
			if os.IsNotExist(statErr) != os.IsNotExist(afterErr) {
				t.Errorf("doctor made the daemon's signing key %s", key)
			}
		})
	}

	t.Run("json", func(t *testing.T) {
		w := newWS(t)
		writeConfig(t, w, "[queue]\nurl = \"nats://127.0.0.1:9\"\ndaemons = [\""+daemonKey+"\"]\n")
		var rep doctorReport
		if err := json.Unmarshal([]byte(w.run("doctor", "--json").stdout), &rep); err != nil {
			t.Fatal(err)
		}
		q, m := rep.Queue, rep.MCP
		if !q.Configured || q.URL != "nats://127.0.0.1:9" || q.Login != "none" || q.DaemonKey != "" || q.DaemonKeyFile != filepath.Join(gitDir(t, w), "luna", "queue-daemon.nk") ||
			len(q.Workers) != 0 || len(q.Daemons) != 1 || q.Daemons[0] != daemonKey || len(q.Warnings) != 2 ||
			!m.TokenRequired || m.TokenDir != filepath.Join(gitDir(t, w), "luna", "mcp") || m.Warning != "" {
			t.Fatalf("doctor --json: %+v %+v", q, m)
		}
	})
}
