package goal_test

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/scripted"
)

// filesUnder is every entry under dir with its type and content.
func filesUnder(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		b, _ := os.ReadFile(p)
		out[p] = d.Type().String() + " " + string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// hostileCase is a goal of TestHostileWorktree.
type hostileCase struct {
	name string
	// files are the project's; VICTIM in them is the directory outside,
	// HOME the user's home.
	files   map[string]string
	params  map[string]string
	disk    int64
	steps   []scripted.Entry
	outcome lunad.GoalStatus
	check   func(t *testing.T, e *env, info lunad.RunInfo, res lunad.GoalResult)
}

// TestHostileWorktree: goals whose commands, run in the real sandbox,
// attack what lunad does with the worktree outside it. Each must leave
// the files outside the worktree as they were (a sentinel git config, a
// fake ~/.ssh in the home the sandbox hides), end, and tell the model
// what happened.
func TestHostileWorktree(t *testing.T) {
	pytest := map[string]string{lunad.GoalParamTests: mustJSON(pyProject.tests)}
	for _, c := range []hostileCase{
		{
			// The undo of the deleted conf/config would write its old
			// content through the link into the victim's config (a
			// core.fsmonitor run by the next git status).
			name: "undo through a link",
			files: map[string]string{
				"conf/config": "[core]\n\tfsmonitor = touch /tmp/pwned\n",
				"attack.py":   "import os, shutil\nopen('.gitignore', 'a').write('conf\\n')\nshutil.rmtree('conf')\nos.symlink('VICTIM', 'conf')\n",
			},
			steps:   []scripted.Entry{call("run_command", map[string]any{"argv": []string{"python3", "attack.py"}}, false), call("finish", map[string]string{"summary": "done"}, false)},
			outcome: lunad.GoalFinished,
			check: func(t *testing.T, e *env, info lunad.RunInfo, res lunad.GoalResult) {
				out := e.trace(info)[0].Observation.Output
				if !strings.Contains(out, "conf/config and it could not be undone") || !strings.Contains(out, "a symbolic link is in the way") {
					t.Errorf("the model was not told of the link:\n%s", out)
				}
			},
		},
		{
			// The user's own test command runs a conftest.py the model
			// wrote, which swaps keys/ for a link to ~/.ssh while the tests
			// run; the undo of the tests' changes would write the
			// attacker's key into ~/.ssh/authorized_keys.
			name: "the tests swap a link to ~/.ssh",
			files: map[string]string{
				"keys/authorized_keys": "ssh-ed25519 ATTACKER\n",
				"test_ok.py":           "def test_ok():\n    pass\n",
			},
			params: pytest,
			steps: []scripted.Entry{
				call("write_file", map[string]string{"path": "conftest.py", "content": "import os, shutil\nif os.path.isdir('keys') and not os.path.islink('keys'):\n    open('.gitignore', 'a').write('keys\\n')\n    shutil.rmtree('keys')\n    os.symlink('HOME/.ssh', 'keys')\n"}, false),
				call("finish", map[string]string{"summary": "done"}, false),
			},
			outcome: lunad.GoalFinished,
		},
		gitignoreAttack("/dev/zero", "os.remove('.gitignore')\nos.symlink('/dev/zero', '.gitignore')", "made .gitignore a symbolic link, which a goal does not commit (lunad does not follow it): it was undone"),
		// A sparse file: read whole, it would be 768 MiB of the daemon's
		// memory (and a regular expression as long).
		gitignoreAttack("huge", "os.truncate('.gitignore', 768 << 20)", "made .gitignore 805306368 bytes, over the 1048576 a step may write"),
		gitignoreAttack("a FIFO", "os.remove('.gitignore')\nos.mkfifo('.gitignore')", "made .gitignore a FIFO, which a goal does not commit (lunad does not open it): it was undone"),
		{
			name:    "a full disk in an ignored directory",
			files:   map[string]string{".gitignore": "build/\n", "fill.py": "import os\nos.makedirs('build/deep')\nopen('made.txt', 'w').write('x\\n')\nwith open('build/deep/big', 'wb') as f:\n    f.write(os.urandom(8 << 20))\n"},
			disk:    4 << 20,
			steps:   []scripted.Entry{call("run_command", map[string]any{"argv": []string{"python3", "fill.py"}}, false), call("finish", map[string]string{"summary": "done"}, false)},
			outcome: lunad.GoalFinished,
			check: func(t *testing.T, e *env, info lunad.RunInfo, res lunad.GoalResult) {
				s := e.trace(info)[0].Observation
				if s.Status != "error" || !strings.Contains(s.Output, "the command left the worktree taking ") || !strings.Contains(s.Output, "over the goal's budget of 4MiB: everything it wrote was undone") {
					t.Errorf("the model was not told of the budget: %s\n%s", s.Status, s.Output)
				}
				for _, p := range []string{"build/deep", "build", "made.txt"} {
					if _, err := os.Lstat(filepath.Join(e.dir(), p)); err == nil {
						t.Errorf("%s is still in the worktree", p)
					}
				}
				if len(res.Commits) != 0 {
					t.Errorf("commits %v; want none", res.Commits)
				}
			},
		},
		{
			// python writes what the write rules deny: a CI config, a
			// dotfile, a [[deny]] writes path; only ok.txt is committed.
			name:    "a program writes what the write rules deny",
			files:   map[string]string{"gen.py": "import os\nfor p in ['.github/workflows/ci.yml', '.envrc', 'vendor/lib.py', 'ok.txt']:\n    os.makedirs(os.path.dirname(p) or '.', exist_ok=True)\n    open(p, 'w').write('x\\n')\n"},
			steps:   []scripted.Entry{call("run_command", map[string]any{"argv": []string{"python3", "gen.py"}}, false), call("finish", map[string]string{"summary": "done"}, false)},
			outcome: lunad.GoalFinished,
			check: func(t *testing.T, e *env, info lunad.RunInfo, res lunad.GoalResult) {
				s := e.trace(info)[0].Observation
				if s.Status != "denied" || s.Rule != "dotfile" || !strings.Contains(s.Output, "files changed (committed as this step): ok.txt") {
					t.Errorf("step 1: %s %s\n%s", s.Status, s.Rule, s.Output)
				}
				for _, want := range []string{"wrote .envrc, denied by the write rules", "wrote .github/workflows/ci.yml, denied by the write rules", "wrote vendor/lib.py, denied by the write rules (denied by rule no-vendor: vendor is updated by the release script)"} {
					if !strings.Contains(s.Output, want) {
						t.Errorf("the model was not told %q:\n%s", want, s.Output)
					}
				}
				if len(res.Denials) != 1 || res.Denials[0].Rule != "dotfile" {
					t.Errorf("denials %+v", res.Denials)
				}
				if got := e.git("show", "--name-only", "--format=", "HEAD", "--", ".", ":!.luna"); strings.TrimSpace(got) != "ok.txt" {
					t.Errorf("the step's commit has %q; want ok.txt", got)
				}
				if st := e.status(); st != "" {
					t.Errorf("the worktree differs from the branch:\n%s", st)
				}
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			victim, home := t.TempDir(), t.TempDir()
			if os.WriteFile(filepath.Join(victim, "config"), []byte("[core]\n\tbare = false\n"), 0o600) != nil || os.Mkdir(filepath.Join(home, ".ssh"), 0o700) != nil ||
				os.WriteFile(filepath.Join(home, ".ssh/authorized_keys"), []byte("ssh-ed25519 mine\n"), 0o600) != nil {
				t.Fatal("the files outside the worktree cannot be made")
			}
			outside := func() map[string]string {
				m := filesUnder(t, victim)
				maps.Copy(m, filesUnder(t, home))
				return m
			}
			want := outside()
			files := map[string]string{}
			for name, text := range c.files {
				files[name] = strings.NewReplacer("VICTIM", victim, "HOME", home).Replace(text)
			}
			for _, s := range c.steps {
				for i := range s.ToolCalls {
					s.ToolCalls[i].Arguments = []byte(strings.ReplaceAll(string(s.ToolCalls[i].Arguments), "HOME", home))
				}
			}
			e := newEnv(t, scripted.FromEntries(c.name, c.steps), llm.Config{Provider: "scripted", Model: "scripted-1"},
				envOptions{project: project{files: files}, sandboxed: true, userHome: home, disk: c.disk})
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			info, res := e.goal("attack the host", c.params)
			runtime.ReadMemStats(&m1)
			if res.Outcome != c.outcome {
				t.Fatalf("outcome %s (%s); want %s; steps %+v", res.Outcome, res.Reason, c.outcome, e.trace(info))
			}
			if got := outside(); !maps.Equal(got, want) {
				t.Errorf("outside the worktree changed:\n%v\nwas\n%v", got, want)
			}
			// The goal's own allocations are a few MiB: nothing read a
			// file whole that the attacker made large or endless.
			if grew := m1.TotalAlloc - m0.TotalAlloc; grew > 256<<20 {
				t.Errorf("the goal allocated %d MiB", grew>>20)
			}
			if c.check != nil {
				c.check(t, e, info, res)
			}
		})
	}
}

// gitignoreAttack is a goal whose command makes .gitignore what attack
// (python) makes it, then runs one more command (the walk reads the
// .gitignore again) and finishes: the model is told what it was.
func gitignoreAttack(what, attack, told string) hostileCase {
	return hostileCase{
		name:  ".gitignore is " + what,
		files: map[string]string{".gitignore": "build/\n", "attack.py": "import os\n" + attack + "\n"},
		steps: []scripted.Entry{call("run_command", map[string]any{"argv": []string{"python3", "attack.py"}}, false), call("run_command", map[string]any{"argv": []string{"true"}}, false),
			call("finish", map[string]string{"summary": "done"}, false)},
		outcome: lunad.GoalFinished,
		check: func(t *testing.T, e *env, info lunad.RunInfo, res lunad.GoalResult) {
			if out := e.trace(info)[0].Observation.Output; !strings.Contains(out, told) {
				t.Errorf("the model was not told %q:\n%s", told, out)
			}
		},
	}
}
