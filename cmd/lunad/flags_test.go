package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad/config"
	"github.com/lunad/lunad/gitstore"
)

// TestGlobalFlagPositions: --dir and --json work before the command,
// after it, and among its arguments, in every spelling.
func TestGlobalFlagPositions(t *testing.T) {
	w, id := newWSWith(t, "a.md", "one\n")
	other := t.TempDir() // the process runs here, so only --dir finds the workspace
	for _, tc := range []struct {
		name string
		args []string
		json bool
	}{
		{"before", []string{"--dir", w.dir, "show", id}, false},
		{"before with =", []string{"--dir=" + w.dir, "show", id}, false},
		{"before, single dash", []string{"-dir", w.dir, "show", id}, false},
		{"after", []string{"show", id, "--dir", w.dir}, false},
		{"between", []string{"show", "--dir", w.dir, id}, false},
		{"json before", []string{"--json", "--dir", w.dir, "show", id}, true},
		{"json after", []string{"show", id, "--json", "--dir=" + w.dir}, true},
		{"json between", []string{"--dir", w.dir, "show", "--json", id}, true},
		{"-- ends the flags", []string{"show", "--dir", w.dir, "--", id}, false},
		{"-- after the argument", []string{"--dir", w.dir, "show", id, "--"}, false},
	} {
		w.subtest(t, tc.name, func(t *testing.T) {
			r := w.runInDir(other, tc.args...)
			if r.code != 0 {
				t.Fatalf("want success:\n%s", r)
			}
			if tc.json != strings.HasPrefix(r.stdout, "{") || (!tc.json && r.stdout != "one\n") {
				t.Fatalf("output:\n%s", r)
			}
		})
	}
	w.subtest(t, "edit with flags around the ID", func(t *testing.T) {
		s, r := w.file("s", "one"), w.file("r", "two")
		for i, args := range [][]string{
			{"--dir", w.dir, "edit", "--search-file", s, id, "--replace-file", r},
			{"edit", id, "--search-file", r, "--replace-file", s, "--dir", w.dir},
			{"edit", "--json", "--search-file", s, "--dir", w.dir, "--replace-file", r, id},
		} {
			res := w.runInDir(other, args...)
			if res.code != 0 {
				t.Fatalf("%d: want success:\n%s", i, res)
			}
		}
		if got := w.show(id); got != "two\n" {
			t.Fatalf("content %q", got)
		}
		w.clean()
	})
	w.subtest(t, "a flag value that looks like --", func(t *testing.T) {
		w.ok("edit", "--content-file", w.file("c", "three\n"), "--message", "--", id)
		if _, msg := w.lastCommit(); !strings.HasPrefix(msg, "edit a.md: --\n") {
			t.Fatalf("message %q", msg)
		}
	})
	w.subtest(t, "default directory is the current one", func(t *testing.T) {
		if r := w.runIn("", true, "show", id); r.code != 0 || r.stdout != "three\n" {
			t.Fatalf("%s", r)
		}
		sub := filepath.Join(w.dir, "sub")
		os.Mkdir(sub, 0o755)
		defer os.Remove(sub)
		if r := w.runInDir(sub, "show", id); r.code != 0 || r.stdout != "three\n" {
			t.Fatalf("from a subdirectory: %s", r)
		}
	})
}

// runInDir runs lunad with args as given, in directory dir.
func (w *ws) runInDir(dir string, args ...string) result {
	w.t.Helper()
	old := w.dir
	defer func() { w.dir = old }()
	w.dir = dir
	return w.runIn("", true, args...)
}

// TestStdin: "-" reads standard input for every *-file flag.
func TestStdin(t *testing.T) {
	w := newWS(t)
	id := strings.TrimSpace(w.okIn("from stdin\n", "create", "--title", "S", "--content-file", "-"))
	check := func(want string) {
		t.Helper()
		if got := w.show(id); got != want {
			t.Fatalf("content %q, want %q", got, want)
		}
		if got := w.git("show", "HEAD:s.md"); got != want {
			t.Fatalf("git show %q, want %q", got, want)
		}
		w.clean()
	}
	check("from stdin\n")
	w.okIn("from stdin\n", "edit", id, "--search-file", "-", "--replace-file", w.file("r", "from STDIN\n"))
	check("from STDIN\n")
	w.okIn("from from\n", "edit", id, "--search-file", w.file("s", "from STDIN\n"), "--replace-file", "-")
	check("from from\n")
	w.okIn("<<<<<<< SEARCH\nfrom from\n=======\nblocks\n>>>>>>> REPLACE\n", "edit", id, "--blocks-file", "-")
	check("blocks\n")
	w.okIn("--- a/s.md\n+++ b/s.md\n@@ -1 +1 @@\n-blocks\n+patched\n", "edit", id, "--patch-file", "-")
	check("patched\n")
	w.okIn("rewritten\n", "edit", id, "--content-file", "-")
	check("rewritten\n")
}

// TestIdempotency: repeating a write with its key returns the first
// result and commits nothing.
func TestIdempotency(t *testing.T) {
	w := newWS(t)
	first := w.ok("create", "--title", "Once", "--idempotency-key", "c1")
	head, n := w.head(), w.commitCount()
	if again := w.ok("create", "--title", "Once", "--idempotency-key", "c1"); again != first {
		t.Fatalf("create replay printed %q, want %q", again, first)
	}
	id := strings.TrimSpace(first)
	edit := []string{"edit", id, "--content-file", w.file("c", "v2\n"), "--idempotency-key", "e1", "--agent", "bot"}
	out := w.ok(edit...)
	head = w.head()
	n = w.commitCount()
	var r editJSON
	w.jsonOut(&r, edit...)
	if !r.Replayed || r.Commit != head || r.Version != 2 || len(r.Matches) != 1 || r.Matches[0].Tier != "rewrite" {
		t.Fatalf("replay: %+v", r)
	}
	if again := w.ok(edit...); again != strings.TrimSuffix(out, "\n")+" replayed\n" {
		t.Fatalf("replay printed %q after %q", again, out)
	}
	if w.head() != head || w.commitCount() != n {
		t.Fatal("a replay committed")
	}
	if got := w.show(id); got != "v2\n" {
		t.Fatalf("content %q", got)
	}
	w.clean()
}

// TestIdempotencyKeyReuse: a key replays only the write it was used for;
// a create, an undo, another artifact's edit, another agent's or another
// content with it is a conflict (exit 3) that says what the key was used
// for, prints nothing and commits nothing — with and without a daemon.
func TestIdempotencyKeyReuse(t *testing.T) {
	for _, served := range []bool{false, true} {
		t.Run(map[bool]string{false: "in-process", true: "daemon"}[served], func(t *testing.T) {
			w, id := newWSWith(t, "a.md", "one\n")
			other := w.create("b.md", "two\n")
			var calls uint64
			if served {
				w.serve()
				calls = w.served()
			}
			w.ok("edit", id, "--content-file", w.file("c", "v2\n"), "--idempotency-key", "e1", "--agent", "bot")
			head, n := w.head(), w.commitCount()
			used := `idempotency key "e1" was already used for edit of ` + id + " by bot at " + head[:12]
			for _, c := range []struct {
				name, why string
				args      []string
			}{
				{"create", "this request is to create", []string{"create", "--title", "New", "--agent", "bot"}},
				{"undo", "this request is to undo", []string{"undo", id, "--agent", "bot"}},
				{"another artifact", "this request is for " + other, []string{"edit", other, "--content-file", w.file("c", "v2\n"), "--agent", "bot"}},
				{"another agent", "this request is by eve", []string{"edit", id, "--content-file", w.file("c", "v2\n"), "--agent", "eve"}},
				{"another content", "differs in its input", []string{"edit", id, "--content-file", w.file("c2", "other\n"), "--agent", "bot"}},
			} {
				r := w.fail(3, used, append(c.args, "--idempotency-key", "e1")...)
				if !strings.Contains(r.stderr, c.why) || !strings.Contains(r.stderr, "use a fresh key") {
					t.Fatalf("%s: want %q and a fresh key in:\n%s", c.name, c.why, r)
				}
				if w.head() != head || w.commitCount() != n {
					t.Fatalf("%s committed", c.name)
				}
			}
			if again := w.ok("edit", id, "--content-file", w.file("c", "v2\n"), "--idempotency-key", "e1", "--agent", "bot"); !strings.HasSuffix(again, " replayed\n") {
				t.Fatalf("the same edit again printed %q", again)
			}
			if got := w.show(id); got != "v2\n" {
				t.Fatalf("content %q", got)
			}
			w.wantHead(head)
			if served && w.served() < calls+7 {
				t.Fatalf("the daemon answered %d calls, not the 7 writes", w.served()-calls)
			}
		})
	}
}

// TestInProcess runs Main in-process with a fixed clock and IDs.
func TestInProcess(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	n := 0
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	run := func(stdin string, args ...string) (string, string, int) {
		m := &Main{
			Getenv: func(k string) string {
				return map[string]string{"LUNAD_AUTHOR_NAME": "Ada", "LUNAD_AUTHOR_EMAIL": "ada@example.com", "HOME": dir}[k]
			},
			Options: func(o *gitstore.Options) {
				o.Clock = func() time.Time { mu.Lock(); defer mu.Unlock(); now = now.Add(time.Second); return now }
				o.NewID = func() string { mu.Lock(); defer mu.Unlock(); n++; return fmt.Sprintf("a%07d", n) }
			}}
		out, errs, err := runMain(m, stdin, append(args, "--dir", dir)...)
		return out, errs, ExitCode(err)
	}
	if _, errs, code := run("", "init"); code != 0 {
		t.Fatal(errs)
	}
	if out, errs, code := run("hello\n", "create", "--title", "Hi", "--content-file", "-"); code != 0 || out != "a0000001\n" {
		t.Fatalf("create: %q %q %d", out, errs, code)
	}
	if out, _, code := run("", "show", "hi.md"); code != 0 || out != "hello\n" {
		t.Fatalf("show: %q %d", out, code)
	}
	if out, errs, code := run("", "show", "a0000009"); code != 5 || out != "" || !strings.HasPrefix(errs, "lunad: not found") {
		t.Fatalf("show unknown: %q %q %d", out, errs, code)
	}
	if _, errs, code := run("", "edit", "a0000001", "--nope"); code != 2 || !strings.Contains(errs, "usage: lunad edit ID") {
		t.Fatalf("usage error: %q %d", errs, code)
	}
}

func TestConfig(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	root := func(toml string) string {
		d := t.TempDir()
		if toml != "" {
			os.MkdirAll(filepath.Join(d, ".luna"), 0o755)
			if err := os.WriteFile(filepath.Join(d, ".luna", "config.toml"), []byte(toml), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	t.Run("defaults", func(t *testing.T) {
		c, err := config.Load(root(""), env())
		if err != nil || !reflect.DeepEqual(c, config.Default()) {
			t.Fatalf("%+v %v", c, err)
		}
		if o := storeOptions(c); o.Human.Name != "" || o.LockTimeout != 10*time.Second || o.MaxContent != 8<<20 {
			t.Fatalf("options %+v", o)
		}
	})
	t.Run("file then environment", func(t *testing.T) {
		r := root("lock_timeout = \"3s\"\nmax_content = 1000\n[author]\nname = \"File\"\nemail = \"file@example.com\"\n")
		c, err := config.Load(r, env())
		if err != nil || c.LockTimeout != 3*time.Second || c.MaxContent != 1000 || c.Author != (config.Author{Name: "File", Email: "file@example.com"}) {
			t.Fatalf("%+v %v", c, err)
		}
		c, err = config.Load(r, env("LUNAD_LOCK_TIMEOUT", "1m", "LUNAD_AUTHOR_NAME", "Env", "LUNAD_AUTHOR_EMAIL", "env@example.com"))
		if err != nil || c.LockTimeout != time.Minute || c.Author != (config.Author{Name: "Env", Email: "env@example.com"}) {
			t.Fatalf("%+v %v", c, err)
		}
		if o := storeOptions(c); o.Human != (gitstore.Signature{Name: "Env", Email: "env@example.com"}) || o.MaxContent != 1000 {
			t.Fatalf("options %+v", o)
		}
	})
	for _, tc := range []struct {
		name, toml string
		env        []string
		want       string
	}{
		{"unknown key", "lock_timeout = \"3s\"\ncolour = \"blue\"\n", nil, "unknown key colour"},
		{"unknown nested key", "[author]\nname = \"x\"\nphone = \"1\"\n", nil, "unknown key author.phone"},
		{"bad TOML", "lock_timeout = \n", nil, "config"},
		{"wrong type", "max_content = \"big\"\n", nil, "config"},
		{"bad duration", "lock_timeout = \"soon\"\n", nil, "config"},
		{"zero timeout", "lock_timeout = \"0s\"\n", nil, "lock_timeout"},
		{"negative max_content", "max_content = -1\n", nil, "max_content"},
		{"bad env timeout", "", []string{"LUNAD_LOCK_TIMEOUT", "10"}, "LUNAD_LOCK_TIMEOUT"},
		{"author with newline", "[author]\nname = \"a\\nb\"\n", nil, "author.name"},
		{"email without name", "[author]\nemail = \"a@b\"\n", nil, "author.name"},
		{"zero slots", "[runs]\nslots = 0\n", nil, "runs.slots"},
		{"bad slots env", "", []string{"LUNAD_RUN_SLOTS", "many"}, "LUNAD_RUN_SLOTS"},
		{"queue not NATS", "[queue]\nurl = \"http://127.0.0.1:4222\"\n", nil, "queue.url"},
		{"queue env not a URL", "", []string{"LUNAD_QUEUE_URL", "127.0.0.1"}, "queue.url"},
		{"queue name", "[queue]\nname = \"a.b\"\n", nil, "queue.name"},
		{"queue ack_wait", "[queue]\nack_wait = \"10ms\"\n", nil, "queue.ack_wait"},
		{"queue worker key", "[queue]\nworkers = [\"SUAB\"]\n", nil, "queue.workers"},
		{"queue daemon key a seed", "[queue]\ndaemons = [\"SUAIBDPBAUTWCWBKIO6XHQNINK5FWJW4OHLXC3HQ2KFE4PEJUA44CNHTC4\"]\n", nil, "queue.daemons"},
		{"queue password in the config", "[queue]\nuser = \"u\"\npassword_env = \"hunter 2\"\n", nil, "queue.password_env"},
		{"queue user without password", "[queue]\nuser = \"u\"\n", nil, "queue.user and queue.password_env"},
		{"queue two logins", "[queue]\nuser = \"u\"\npassword_env = \"P\"\nnkey_file = \"/k\"\n", nil, "set one"},
		{"slug rule", "[refs]\nslugs = \"sphinx\"\n", nil, "refs.slugs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Load(root(tc.toml), env(tc.env...))
			if err == nil || !strings.Contains(err.Error(), tc.want) || ExitCode(err) != 1 {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
	t.Run("queue and runs", func(t *testing.T) {
		c, err := config.Load(root("[runs]\nslots = 8\n[queue]\nurl = \"nats://user:secret@127.0.0.1:4222\"\nack_wait = \"5s\"\n"), env())
		if err != nil || c.Runs.Slots != 8 || c.Queue.AckWait != 5*time.Second || c.Queue.Name != "LUNAD" {
			t.Fatalf("%+v %v", c, err)
		}
		snap, err := c.Snapshot()
		if err != nil || strings.Contains(string(snap), "secret") || !strings.Contains(string(snap), "slots = 8") {
			t.Fatalf("the snapshot every run records:\n%s\n%v", snap, err)
		}
		c, err = config.Load(root(""), env("LUNAD_QUEUE_URL", "nats://127.0.0.1:4222", "LUNAD_RUN_SLOTS", "2"))
		if err != nil || c.Queue.URL != "nats://127.0.0.1:4222" || c.Runs.Slots != 2 {
			t.Fatalf("%+v %v", c, err)
		}
	})
	t.Run("from the command line", func(t *testing.T) {
		w := newWS(t)
		os.WriteFile(filepath.Join(w.dir, ".luna", "config.toml"), []byte("[author]\nname = \"Config Author\"\nemail = \"c@example.com\"\n"), 0o644)
		w.env = []string{"LUNAD_AUTHOR_NAME=", "LUNAD_AUTHOR_EMAIL="}
		w.ok("create", "--title", "x")
		if a := w.git("log", "-1", "--format=%an <%ae>"); a != "Config Author <c@example.com>\n" {
			t.Fatalf("author %q", a)
		}
		os.WriteFile(filepath.Join(w.dir, ".luna", "config.toml"), []byte("bogus = 1\n"), 0o644)
		w.fail(1, "unknown key bogus", "list")
		w.env = []string{"LUNAD_LOCK_TIMEOUT=forever"}
		os.Remove(filepath.Join(w.dir, ".luna", "config.toml"))
		w.fail(1, "LUNAD_LOCK_TIMEOUT", "list")
	})
}

func TestSplitAt(t *testing.T) {
	for _, tc := range []struct{ in, ref, at string }{
		{"abcd1234", "abcd1234", ""},
		{"abcd1234@3", "abcd1234", "3"},
		{"abcd1234@deadbeef", "abcd1234", "deadbeef"},
		{"docs/a@b.md", "docs/a@b.md", ""},
		{"docs/a.md@12", "docs/a.md", "12"},
		{"x@", "x@", ""},
		{"@3", "@3", ""},
	} {
		if ref, at := splitAt(tc.in); ref != tc.ref || at != tc.at {
			t.Errorf("splitAt(%q) = %q, %q", tc.in, ref, at)
		}
	}
}
