package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// The tests below attack the sandbox from inside as lunad's own user —
// root in CI — with testdata/attack/attack.c, compiled by gcc into the
// workspace: each attempt must be refused.

// attackProgram compiles the attack program into dir and returns its
// path.
func attackProgram(t *testing.T, dir string) string {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("testdata", "attack", "attack.c"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "attack")
	out, err := exec.Command("gcc", "-O1", "-Wall", "-o", bin, src).CombinedOutput()
	if err != nil {
		t.Fatalf("gcc attack.c: %v\n%s", err, out)
	}
	return bin
}

// attackResults reads the attack program's lines: attempt → "ok" or the
// errno's name.
func attackResults(out string) map[string]string {
	m := map[string]string{}
	for line := range strings.Lines(out) {
		if name, res, ok := strings.Cut(strings.TrimSpace(line), " "); ok && !strings.HasPrefix(line, "content of ") {
			m[name] = res
		}
	}
	return m
}

// procStatus reads fields of /proc/self/status as the command printed it.
func procStatus(out string) map[string]string {
	m := map[string]string{}
	for line := range strings.Lines(out) {
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}

// TestNoPrivileges: a command holds no capability, is not uid 0, has
// no_new_privs and a seccomp filter, and each privileged or filtered
// call fails: clearing the read-only flag of .git with mount_setattr,
// remounting it, unmounting the cover of /etc/shadow, new mounts and
// namespaces, ptrace, bpf, keyrings, perf_event_open, userfaultfd and a
// call made through another architecture's ABI.
func TestNoPrivileges(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t)
	root := workspace(t, t.TempDir())
	bin := attackProgram(t, root)
	git := filepath.Join(root, ".git")

	res := runWithin(t, r, Spec{Argv: []string{"cat", "/proc/self/status"}, Root: root}, 20*time.Second)
	st := procStatus(res.Stdout.Text)
	for _, k := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
		if st[k] != "0000000000000000" {
			t.Errorf("%s = %q inside the sandbox; want none", k, st[k])
		}
	}
	if uid := strings.Fields(st["Uid"]); len(uid) == 0 || slices.Contains(uid, "0") {
		t.Errorf("Uid = %q inside the sandbox; want no 0", st["Uid"])
	}
	if gid := strings.Fields(st["Gid"]); len(gid) == 0 || slices.Contains(gid, "0") {
		t.Errorf("Gid = %q inside the sandbox; want no 0", st["Gid"])
	}
	if st["NoNewPrivs"] != "1" || st["Seccomp"] != "2" {
		t.Errorf("NoNewPrivs %q, Seccomp %q; want 1 and 2 (a filter)", st["NoNewPrivs"], st["Seccomp"])
	}

	attacks := []string{
		"mount_setattr=" + git, "remount=" + git, "umount=/etc/shadow", "mount_tmpfs=/tmp",
		"open_tree=/etc", "fsopen", "unshare_user", "unshare_mount", "clone_newuser", "clone3_newuser",
		"ptrace", "bpf", "keyctl", "add_key", "perf_event_open", "userfaultfd", "write=" + git + "/hooks/pre-commit",
	}
	if runtime.GOARCH == "amd64" {
		attacks = append(attacks, "foreign_abi")
	}
	res = runWithin(t, r, Spec{Argv: append([]string{bin}, attacks...), Root: root, ReadOnly: []string{git}}, 30*time.Second)
	got := attackResults(res.Stdout.Text)
	for _, a := range attacks {
		name, _, _ := strings.Cut(a, "=")
		t.Run(name, func(t *testing.T) {
			switch v, ok := got[a]; {
			case !ok:
				t.Errorf("no result (exit %d, stdout %q, stderr %q)", res.ExitCode, res.Stdout.Text, res.Stderr.Text)
			case v == "ok":
				t.Errorf("%s succeeded inside the sandbox", a)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(git, "hooks", "pre-commit")); err == nil {
		t.Error("a git hook was planted through the read-only .git")
	}
}

// TestRootWithoutLandlock: without Landlock beneath bwrap, a command
// still cannot make the host's /etc writable (mount_setattr, remount),
// uncover /etc/shadow or read it; as root the Runner is refused unless
// the policy consents, and then every Result says so.
func TestRootWithoutLandlock(t *testing.T) {
	t.Parallel()
	r, home := newRunner(t)
	caps := r.caps
	caps.Landlock, caps.LandlockError, caps.LandlockApplied = 0, "taken away by the test", ""
	if caps.Root {
		if _, err := New(caps, Options{UserHome: home}); err == nil || !strings.Contains(err.Error(), "root_without_landlock") {
			t.Errorf("New as root without Landlock = %v; want a refusal naming root_without_landlock", err)
		}
	}
	without, err := New(caps, Options{UserHome: home, AllowRootWithoutLandlock: true})
	if err != nil {
		t.Fatal(err)
	}
	root := workspace(t, t.TempDir())
	bin := attackProgram(t, root)
	probe := "/etc/lunad-attack-" + filepath.Base(root)
	attacks := []string{"mount_setattr=/etc", "remount=/etc", "write=" + probe, "umount=/etc/shadow", "read=/etc/shadow"}
	res := runWithin(t, without, Spec{Argv: append([]string{bin}, attacks...), Root: root}, 30*time.Second)
	if res.Landlock != "" {
		t.Fatalf("Landlock %q was applied", res.Landlock)
	}
	if caps.Root && !strings.Contains(res.Warning, "ROOT WITHOUT LANDLOCK") {
		t.Errorf("Warning %q does not say the command ran as root without Landlock", res.Warning)
	}
	got := attackResults(res.Stdout.Text)
	for _, a := range attacks {
		if v, ok := got[a]; !ok || v == "ok" {
			t.Errorf("%s: %q (stdout %q, stderr %q)", a, v, res.Stdout.Text, res.Stderr.Text)
		}
	}
	if _, err := os.Stat(probe); err == nil {
		os.Remove(probe)
		t.Errorf("the command wrote %s on the host", probe)
	}
	if shadow, err := os.ReadFile("/etc/shadow"); err == nil && len(shadow) > 0 {
		first, _, _ := bytes.Cut(shadow, []byte("\n"))
		if strings.Contains(res.Stdout.Text, string(first)) {
			t.Error("the command read /etc/shadow")
		}
	}
}

// TestTmpfsMemory: a command under a 256 MiB memory limit that fills
// /tmp or /dev/shm with 1 GiB — pages RLIMIT_AS does not count — is
// stopped at the limit: with a memory cgroup, which counts them, it is
// killed or refused; without one, the tmpfs's size refuses it (ENOSPC).
// Either way it never holds more than the limit of the host's memory.
func TestTmpfsMemory(t *testing.T) {
	t.Parallel()
	r, home := newRunner(t)
	caps := r.caps
	caps.MemoryLimit, caps.MemoryCgroupDir = LimitRlimit, ""
	noCgroup, err := New(caps, Options{UserHome: home})
	if err != nil {
		t.Fatal(err)
	}
	runners := []struct {
		name string
		r    *Runner
	}{{"as probed", r}, {"without a memory cgroup", noCgroup}}
	const limit = 256 << 20
	for _, rr := range runners {
		for _, dir := range []string{"/tmp", "/dev/shm", "$HOME"} {
			t.Run(rr.name+" "+dir, func(t *testing.T) {
				root := workspace(t, t.TempDir())
				script := "head -c 1073741824 /dev/zero > " + dir + "/fill; echo status $?; stat -c 'size %s' " + dir + "/fill"
				res := runWithin(t, rr.r, Spec{Argv: sh(script), Root: root, Limits: Limits{Memory: limit}}, 60*time.Second)
				if strings.Contains(res.Stdout.Text, "status 0") {
					t.Errorf("1 GiB written to %s under a 256 MiB limit: %q", dir, res.Stdout.Text)
				}
				for line := range strings.Lines(res.Stdout.Text) {
					var n int64
					if _, err := fmt.Sscanf(line, "size %d", &n); err == nil && n > limit {
						t.Errorf("%s holds %d bytes under a %d-byte limit", dir, n, limit)
					}
				}
				if rr.r.caps.MemoryCgroupDir != "" && !slices.Contains(res.Hit, "memory") && !strings.Contains(res.Stderr.Text, "No space left") {
					t.Errorf("Hit %q, stderr %q: the memory cgroup neither killed nor refused it", res.Hit, res.Stderr.Text)
				}
			})
		}
	}
}

// TestHiddenPaths: the policy's denied paths, files and directories,
// cannot be read by cat, grep -r or through a symlink the command makes,
// while the rest of the workspace can.
func TestHiddenPaths(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t)
	root := workspace(t, t.TempDir())
	writeFiles(t, root, map[string]string{"config/secrets/db": "SECRET-DB", "deploy.pem": "SECRET-KEY", "main.go": "package main"})
	hidden := []string{filepath.Join(root, "config/secrets"), filepath.Join(root, "deploy.pem"), filepath.Join(root, "absent.pem")}
	tests := []struct{ name, script string }{
		{"cat", "cat deploy.pem config/secrets/db"},
		{"grep -r", "grep -rs SECRET ."},
		{"a symlink", "ln -s deploy.pem link; cat link; rm link"},
		{"a hard link", "ln deploy.pem hard; cat hard; rm -f hard"},
		{"a copy", "cp -r config/secrets /tmp/s; cat /tmp/s/*"},
		{"unmounting the cover", "umount deploy.pem; umount -l config/secrets; cat deploy.pem config/secrets/db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := runWithin(t, r, Spec{Argv: sh(tt.script), Root: root, Hidden: hidden}, 20*time.Second)
			if strings.Contains(res.Stdout.Text, "SECRET") {
				t.Errorf("the command read a hidden path:\n%s", res.Stdout.Text)
			}
		})
	}
	res := runWithin(t, r, Spec{Argv: sh("cat main.go"), Root: root, Hidden: hidden}, 20*time.Second)
	if res.Stdout.Text != "package main" {
		t.Errorf("the rest of the workspace: stdout %q, stderr %q", res.Stdout.Text, res.Stderr.Text)
	}
	if b, err := os.ReadFile(filepath.Join(root, "deploy.pem")); err != nil || string(b) != "SECRET-KEY" {
		t.Errorf("a hidden file changed on the host: %q, %v", b, err)
	}
}

// TestMitigations: lunad doctor's lines say each mitigation in force and
// warn where one is missing.
func TestMitigations(t *testing.T) {
	full := Capabilities{Bwrap: "/usr/bin/bwrap", Namespaces: true, Network: true, Hardened: true, Root: true, Seccomp: true, Landlock: 7,
		ProcessLimit: LimitCgroupV1, CgroupDir: "/sys/fs/cgroup/pids", MemoryLimit: LimitCgroupV1, MemoryCgroupDir: "/sys/fs/cgroup/memory"}
	tests := []struct {
		name    string
		change  func(*Capabilities)
		warns   []string // the mitigations that must be missing
		present []string // lines String must have
	}{
		{"everything", func(*Capabilities) {}, nil, []string{"capabilities: all dropped", "command uid: 1000 in its user namespace", "no_new_privs: set", "seccomp: filter refusing the mount family", "memory limit: cgroup-v1", "tmpfs: /tmp, /dev/shm and the empty home each sized"}},
		{"no seccomp", func(c *Capabilities) { c.Seccomp, c.SeccompError = false, "no filter for riscv" }, []string{"seccomp"}, []string{"seccomp: WARNING: NONE: no filter for riscv"}},
		{"no memory cgroup", func(c *Capabilities) {
			c.MemoryLimit, c.MemoryCgroupDir, c.MemoryLimitNote = LimitRlimit, "", "RLIMIT_AS alone"
		}, []string{"memory limit"}, []string{"memory limit: WARNING: rlimit with RLIMIT_AS: RLIMIT_AS alone"}},
		{"root without Landlock", func(c *Capabilities) { c.Landlock = 0 }, []string{"root without landlock"}, []string{"root without landlock: WARNING: lunad runs as root"}},
		{"an old bwrap", func(c *Capabilities) { c.Hardened, c.HardenedError = false, "bwrap: Unknown option --disable-userns" }, []string{"capabilities", "command uid", "no_new_privs", "seccomp", "tmpfs"}, []string{"capabilities: WARNING: NOT dropped: bwrap: Unknown option --disable-userns", "sandbox: unusable: bwrap cannot drop a command's privileges"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := full
			tt.change(&c)
			var missing []string
			for _, m := range c.Mitigations() {
				if m.Missing {
					missing = append(missing, m.Name)
				}
			}
			if !slices.Equal(missing, tt.warns) {
				t.Errorf("missing %q; want %q", missing, tt.warns)
			}
			for _, line := range tt.present {
				if !strings.Contains(c.String(), line) {
					t.Errorf("String() lacks %q:\n%s", line, c)
				}
			}
		})
	}
}

// writeFiles writes files (slash paths under dir: contents), making
// their directories.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for path, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
