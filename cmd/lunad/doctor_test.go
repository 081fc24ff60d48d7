package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lunad/lunad/agents/policy"
	"github.com/lunad/lunad/config"
	"github.com/lunad/lunad/sandbox"
)

// TestDoctor: lunad doctor probes the real sandbox, checks the policy
// file, says whether the goal's model is configured (never its key) and
// which tests run, and exits 1, saying what to do, when goals could not
// run.
func TestDoctor(t *testing.T) {
	const key = "sk-doctor-5e1f0a"
	writeFile := func(t *testing.T, w *ws, name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(w.dir, filepath.FromSlash(name)), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ready := func(t *testing.T) *ws {
		w := newWS(t)
		writeFile(t, w, ".luna/config.toml", "[llm]\nprovider = \"openai\"\nmodel = \"gpt-test\"\nbase_url = \"http://127.0.0.1:9/v1\"\n\n[tests]\ncommands = [[\"go\", \"test\", \"./...\"]]\n")
		w.env = append(w.env, "OPENAI_API_KEY="+key, "LUNAD_SANDBOX_HOME=/var/tmp/lunad-doctor-home")
		return w
	}
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T) *ws
		code   int
		stdout []string
		stderr string
	}{
		{"ready", ready, 0, []string{
			"sandbox\n  bwrap: /usr/bin/bwrap ", "\n  namespaces: ok\n  network namespace: ok\n", "\n  sandbox: usable\n",
			fmt.Sprintf("\n  landlock: ABI %d (applied: files, tcp, scopes)\n", hostLandlock(t)),
			"  commands' homes: one per goal under /var/tmp/lunad-doctor-home\n", "  capabilities: all dropped", "  seccomp: filter refusing",
			"/.luna/policy.toml (not present: lunad's defaults)\n", `  unsandboxed = "refuse", root_without_landlock = "refuse", network = false, shell = false, read-only: .git, .luna` + "\n",
			"  limits: timeout 10m0s, cpu 10m0s, memory 8GiB, processes 1024, file size 1GiB, output 1MiB, goal's disk 2GiB\n",
			"  " + policy.AdvisoryNote + "\n",
			"model ([llm], [agents.goal] over it): openai gpt-test at http://127.0.0.1:9/v1, API key in OPENAI_API_KEY (set)\n",
			"tests ([tests] commands):\n  go test ./...\n", "goals: can run\n"}, ""},
		{"no model", func(t *testing.T) *ws { return newWS(t) }, 1, []string{
			"model ([llm], [agents.goal] over it): not configured: ", "tests ([tests] commands): none configured", "goals: cannot run (see below)\n"},
			"lunad: no goal can run here: invalid input: no model provider configured: set [llm] provider in .luna/config.toml or LUNAD_LLM_PROVIDER"},
		{"policy that does not check", func(t *testing.T) *ws {
			w := ready(t)
			writeFile(t, w, ".luna/policy.toml", "network = false\nnetwrok = true\n\n[limits]\nmemory = \"lots\"\n")
			return w
		}, 1, []string{"/.luna/policy.toml: does not check\n", `/.luna/policy.toml:2:1: unknown key "netwrok" in the policy (did you mean "network"?)`, "/.luna/policy.toml:5:1: ", "goals: cannot run"},
			"lunad: no goal can run here: .luna/policy.toml does not check, so no goal runs until it is fixed (lunad doctor shows its problems)"},
		{"key not set at a local server", func(t *testing.T) *ws {
			w := ready(t)
			w.env = w.env[:len(w.env)-2]
			w.env = append(w.env, "LUNAD_SANDBOX_HOME=/var/tmp/lunad-doctor-home")
			return w
		}, 0, []string{"openai gpt-test at http://127.0.0.1:9/v1, no API key needed at a local server (OPENAI_API_KEY is not set, which is fine)\n"}, ""},
		{"key not set at a remote server", func(t *testing.T) *ws {
			w := ready(t)
			writeFile(t, w, ".luna/config.toml", "[llm]\nprovider = \"openai\"\nmodel = \"gpt-test\"\nbase_url = \"https://llm.example.com/v1\"\n")
			w.env = w.env[:len(w.env)-2]
			w.env = append(w.env, "LUNAD_SANDBOX_HOME=/var/tmp/lunad-doctor-home")
			return w
		}, 0, []string{"API key in OPENAI_API_KEY (NOT set: set it in the daemon's environment)\n"}, ""},
		{"a workspace that writes to the terminal", func(t *testing.T) *ws {
			// A cloned workspace's config and policy try to rewrite
			// doctor's lines: set the window title, erase the line
			// above (a WARNING), return to its start.
			w := ready(t)
			writeFile(t, w, ".luna/config.toml", "[llm]\nprovider = \"openai\"\nmodel = \"gpt\\u001b]0;PWNED\\u0007\"\n\n[tests]\ncommands = [[\"go\\u001b[1A\\u001b[2K\", \"test\\r\"]]\n")
			writeFile(t, w, ".luna/policy.toml", "[[deny]]\nname = \"no-secrets\"\nreason = \"secrets\"\npaths = [\"sec\\u001b[31mret/**\"]\n")
			return w
		}, 0, []string{`openai "gpt\x1b]0;PWNED\a"`, "\n  \"go\\x1b[1A\\x1b[2K\" \"test\\r\"\n", `reads denied (hidden from commands, left out of search and the agents' contexts): "sec\x1b[31mret/**"`}, ""},
		{"a bwrap that keeps capabilities", func(t *testing.T) *ws {
			// A wrapper on PATH drops --cap-drop ALL from what lunad
			// asks of the real bwrap: doctor must say what commands
			// would hold, not which options it passed.
			w := ready(t)
			bin := t.TempDir()
			script := "#!/bin/bash\nout=()\nfor a in \"$@\"; do\n  case \"$a\" in --cap-drop) a=--cap-add ;; esac\n  out+=(\"$a\")\ndone\nexec /usr/bin/bwrap \"${out[@]}\"\n"
			if err := os.WriteFile(filepath.Join(bin, "bwrap"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			w.env = append(w.env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			return w
		}, 1, []string{"  capabilities: WARNING: NOT dropped: a command in the sandbox holds capabilities (CapEff ", "  seccomp: WARNING: NONE: ", "  sandbox: unusable: ", "goals: cannot run"},
			"does not apply the options lunad gives it; use the distribution's bubblewrap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.setup(t)
			r := w.run("doctor")
			if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) || (tc.stderr == "") != (r.stderr == "") {
				t.Fatalf("want exit %d and stderr %q:\n%s", tc.code, tc.stderr, r)
			}
			for _, want := range tc.stdout {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("doctor's report lacks %q:\n%s", want, r.stdout)
				}
			}
			if strings.Contains(r.stdout+r.stderr, key) {
				t.Fatalf("the API key is in the output:\n%s", r)
			}
			if strings.ContainsAny(r.stdout+r.stderr, "\x1b\a\r") {
				t.Fatalf("the workspace wrote control characters to the terminal:\n%q", r.stdout+r.stderr)
			}
		})
	}

	t.Run("json", func(t *testing.T) {
		w := ready(t)
		r := w.run("doctor", "--json")
		var rep doctorReport
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 {
			t.Fatalf("%v\n%s", err, r)
		}
		if !rep.Sandbox.Usable || rep.Sandbox.Bwrap != "/usr/bin/bwrap" || rep.Sandbox.BwrapVersion == "" || !rep.Policy.OK || rep.Policy.Present ||
			rep.Policy.Limits == nil || rep.Policy.Limits.Processes != 1024 || rep.Policy.Limits.Disk != 2<<30 || !rep.LLM.Configured || rep.LLM.KeyEnv != "OPENAI_API_KEY" || !rep.LLM.KeySet ||
			len(rep.Tests.Commands) != 1 || !rep.Goals.CanRun || strings.Contains(r.stdout, key) ||
			rep.Sandbox.Landlock != hostLandlock(t) || rep.Sandbox.LandlockApplied != "files, tcp, scopes" || !strings.Contains(r.stdout, `"landlock_applied": "files, tcp, scopes"`) ||
			rep.Sandbox.Measured == nil || rep.Sandbox.Measured.CapEff != 0 || rep.Sandbox.Measured.CapBnd != 0 || !rep.Sandbox.Measured.NoNewPrivs || rep.Sandbox.Measured.Seccomp != 2 {
			t.Fatalf("doctor --json:\n%s", r.stdout)
		}
	})
}

// TestDoctorRefusal: without a usable sandbox, goals that run commands
// are refused unless the policy says unsandboxed = "warn"; --plan and
// --dry-run goals, which run nothing, are not.
func TestDoctorRefusal(t *testing.T) {
	root := agentsRoot(t, "")
	cfg, err := config.Load(root, envOf("LUNAD_LLM_PROVIDER", "openai", "LUNAD_LLM_MODEL", "m"))
	if err != nil {
		t.Fatal(err)
	}
	none := sandbox.Capabilities{NamespacesError: "bwrap is not installed (Debian and Ubuntu: apt-get install bubblewrap)", ProcessLimit: sandbox.LimitRlimit}
	c := checkGoalsWith(none, root, cfg, envOf("LUNAD_SANDBOX_HOME", "/var/tmp/h"))
	if err := c.refusal(true); err == nil || !strings.Contains(err.Error(), "no goal can run here: ") || !strings.Contains(err.Error(), "bwrap is not installed") || !strings.Contains(err.Error(), `unsandboxed = "warn"`) {
		t.Errorf("refusal: %v", err)
	}
	if err := c.refusal(false); err != nil {
		t.Errorf("a goal that runs no command: %v", err)
	}
	if err := os.WriteFile(filepath.Join(root, ".luna", "policy.toml"), []byte("unsandboxed = \"warn\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkGoalsWith(none, root, cfg, envOf("LUNAD_SANDBOX_HOME", "/var/tmp/h")).refusal(true); err != nil {
		t.Errorf("unsandboxed = warn: %v", err)
	}
	if err := checkGoalsWith(none, root, cfg, envOf("LUNAD_SANDBOX_HOME", "relative")).refusal(true); err == nil || !strings.Contains(err.Error(), `LUNAD_SANDBOX_HOME="relative" must be an absolute path`) {
		t.Errorf("a relative home: %v", err)
	}
}

// hostLandlock is this host's Landlock ABI, which must be 6 or later
// (the doctor tests expect files, TCP and scopes applied).
func hostLandlock(t *testing.T) int {
	t.Helper()
	c := sandbox.Probe(t.Context())
	if c.Landlock < 6 {
		t.Fatalf("this host's Landlock ABI is %d (%s): the doctor tests expect ABI 6 or later", c.Landlock, c.LandlockError)
	}
	return c.Landlock
}
