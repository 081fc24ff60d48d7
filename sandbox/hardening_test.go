package sandbox

import (
	"bytes"
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
	attacks := []string{"mount_setattr=/etc", "remount=/etc", "umount=/etc/shadow", "umount=/etc", "write=" + probe, "read=/etc/shadow"}
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
