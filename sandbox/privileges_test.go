package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestProbeMeasuresBwrap attacks the probe with a bwrap that does not do
// what it is told: a wrapper on PATH that rewrites the options lunad
// gives the real bwrap (or ignores them). Probe must measure what a
// command holds inside, find the shortfall, and leave the sandbox
// unusable, so New refuses it rather than run goals' commands with
// privileges `lunad doctor` would say were dropped.
func TestProbeMeasuresBwrap(t *testing.T) {
	caps := hostCaps(t)
	real := caps.Bwrap
	uid := fmt.Sprint(os.Getuid())
	if caps.Root {
		uid = fmt.Sprint(sandboxUID)
	}
	tests := []struct {
		name   string
		script string // the wrapper's body; it execs real bwrap
		why    string // what HardenedError must say ("" for a usable sandbox)
	}{
		{"passes its options through", forward(real, ""), ""},
		{"keeps capabilities", forward(real, `--cap-drop) shift 2; out+=(--cap-add ALL); continue ;;`), "holds capabilities (CapEff "},
		{"runs without the seccomp filter", forward(real, `--seccomp) shift 2; continue ;;`), "runs under no seccomp filter (Seccomp 0)"},
		{"leaves /tmp unbounded", forward(real, `--size) shift 2; continue ;;`), "has a /tmp of 0 bytes, not 1048576"},
		{"runs commands as uid 0", forward(real, `--uid|--gid) shift 2; continue ;;
  --unshare-user) out+=("$1" --uid 0 --gid 0); shift; continue ;;`), "has uid [0 0 0 0], not " + uid},
		{"is not bwrap", `while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
shift
exec "$@"`, "holds capabilities (CapEff "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "bwrap"), []byte("#!/bin/bash\n"+tt.script+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
			if p, err := exec.LookPath("bwrap"); err != nil || p != filepath.Join(dir, "bwrap") {
				t.Fatalf("the wrapper is not the bwrap on PATH: %q, %v", p, err)
			}
			c := Probe(context.Background())
			if !c.Namespaces || !c.Network {
				t.Fatalf("the wrapper broke the namespace probes, not the hardened one:\n%s", c)
			}
			if tt.why == "" {
				if !c.Usable() || c.Measured == nil {
					t.Fatalf("a wrapper passing every option through: unusable:\n%s", c)
				}
				return
			}
			if c.Hardened || c.Usable() {
				t.Fatalf("a bwrap that %s: the sandbox is usable:\n%s", tt.name, c)
			}
			if !strings.Contains(c.HardenedError, tt.why) || !strings.Contains(c.HardenedError, "does not apply the options lunad gives it") {
				t.Errorf("HardenedError %q; want it to say %q", c.HardenedError, tt.why)
			}
			for _, m := range c.Mitigations() {
				if (m.Name == "capabilities" || m.Name == "seccomp") && !m.Missing {
					t.Errorf("doctor says %s: %s", m.Name, m.State)
				}
			}
			var unavailable *UnavailableError
			if _, err := New(c, Options{}); !errors.As(err, &unavailable) {
				t.Errorf("New made a runner over a bwrap that %s: %v", tt.name, err)
			}
		})
	}
}

// forward is a bwrap wrapper's body that execs real with its options
// rewritten by the case arms (each consuming its options and continuing
// the loop), the command after "--" unchanged.
func forward(real, arms string) string {
	return `out=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  case "$1" in
  ` + arms + `
  esac
  out+=("$1"); shift
done
exec ` + real + ` "${out[@]}" "$@"`
}

// formatStatus is a /proc/PID/status as the kernel writes it, for p.
func formatStatus(p Privileges) string {
	nnp := 0
	if p.NoNewPrivs {
		nnp = 1
	}
	ids := func(v [4]int) string { return fmt.Sprintf("%d\t%d\t%d\t%d", v[0], v[1], v[2], v[3]) }
	return fmt.Sprintf("Name:\tcat\nUmask:\t0022\nState:\tR (running)\nUid:\t%s\nGid:\t%s\nGroups:\t\nCapInh:\t%016x\nCapPrm:\t%016x\nCapEff:\t%016x\nCapBnd:\t%016x\nCapAmb:\t%016x\nNoNewPrivs:\t%d\nSeccomp:\t%d\nSeccomp_filters:\t1\n",
		ids(p.UID), ids(p.GID), p.CapInh, p.CapPrm, p.CapEff, p.CapBnd, p.CapAmb, nnp, p.Seccomp)
}

var dropped = Privileges{UID: [4]int{1000, 1000, 1000, 1000}, GID: [4]int{1000, 1000, 1000, 1000}, NoNewPrivs: true, Seccomp: 2}

func TestParseProcStatus(t *testing.T) {
	full := dropped
	full.CapEff, full.CapBnd = 0x1fffeffffff, 0x1fffeffffff
	tests := []struct {
		name string
		text string
		want Privileges
		err  string
	}{
		{"dropped", formatStatus(dropped), dropped, ""},
		{"full capabilities", formatStatus(full), full, ""},
		{"no CapEff", strings.Replace(formatStatus(dropped), "CapEff:", "CapEffective:", 1), Privileges{}, "lacks CapEff"},
		{"Uid twice", formatStatus(dropped) + "Uid:\t0\t0\t0\t0\n", Privileges{}, "has Uid twice"},
		{"CapEff not hex", strings.Replace(formatStatus(dropped), "CapEff:\t0000000000000000", "CapEff:\tzz", 1), Privileges{}, "has CapEff \"zz\""},
		{"CapEff too wide", strings.Replace(formatStatus(dropped), "CapEff:\t0000000000000000", "CapEff:\t10000000000000000", 1), Privileges{}, "has CapEff"},
		{"three uids", strings.Replace(formatStatus(dropped), "Uid:\t1000\t1000\t1000\t1000", "Uid:\t1000\t1000\t1000", 1), Privileges{}, "3 fields, want 4"},
		{"negative gid", strings.Replace(formatStatus(dropped), "Gid:\t1000", "Gid:\t-1", 1), Privileges{}, "negative"},
		{"NoNewPrivs 2", strings.Replace(formatStatus(dropped), "NoNewPrivs:\t1", "NoNewPrivs:\t2", 1), Privileges{}, "NoNewPrivs 2"},
		{"empty", "", Privileges{}, "lacks Uid"},
		{"too long", formatStatus(dropped) + strings.Repeat("x", maxStatusSize), Privileges{}, "more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProcStatus(tt.text)
			if tt.err == "" {
				if err != nil || got != tt.want {
					t.Errorf("= %+v, %v; want %+v", got, err, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %v; want it to say %q", err, tt.err)
			}
			if got != (Privileges{}) {
				t.Errorf("a status that does not parse gave %+v", got)
			}
		})
	}
}

func TestPrivilegesCheck(t *testing.T) {
	tests := []struct {
		name    string
		change  func(*Privileges)
		seccomp bool
		err     string
	}{
		{"dropped", func(*Privileges) {}, true, ""},
		{"no filter was given", func(p *Privileges) { p.Seccomp = 0 }, false, ""},
		{"a bounding set", func(p *Privileges) { p.CapBnd = 1 << 21 }, true, "holds capabilities (CapBnd 0000000000200000)"},
		{"an ambient capability", func(p *Privileges) { p.CapAmb = 1 }, true, "holds capabilities (CapAmb"},
		{"effective before bounding", func(p *Privileges) { p.CapBnd, p.CapEff = 1, 2 }, true, "holds capabilities (CapEff"},
		{"saved uid 0", func(p *Privileges) { p.UID[2] = 0 }, true, "has uid [1000 1000 0 1000], not 1000"},
		{"gid 0", func(p *Privileges) { p.GID = [4]int{} }, true, "has gid [0 0 0 0], not 1000"},
		{"no no_new_privs", func(p *Privileges) { p.NoNewPrivs = false }, true, "lacks no_new_privs"},
		{"strict mode is not the filter", func(p *Privileges) { p.Seccomp = 1 }, true, "runs under no seccomp filter (Seccomp 1)"},
		{"an unbounded /tmp", func(p *Privileges) { p.TmpSize = 0 }, true, "has a /tmp of 0 bytes, not 1048576 (0: unbounded)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := dropped
			p.TmpSize = 1 << 20
			tt.change(&p)
			err := p.check(1000, 1000, tt.seccomp, 1<<20)
			if tt.err == "" {
				if err != nil {
					t.Errorf("check = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("check = %v; want it to say %q", err, tt.err)
			}
		})
	}
}

// FuzzParseProcStatus feeds the status parser anything: it never panics,
// and what it accepts the kernel's layout of it gives back unchanged.
func FuzzParseProcStatus(f *testing.F) {
	f.Add(formatStatus(dropped))
	f.Add("Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nCapInh:\t0\nCapPrm:\tffffffffffffffff\nCapEff:\t1\nCapBnd:\t0\nCapAmb:\t0\nNoNewPrivs:\t0\nSeccomp:\t2\n")
	f.Add("Uid:\nCapEff:\t\nSeccomp:::\n")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := parseProcStatus(text)
		if err != nil {
			return
		}
		again, err := parseProcStatus(formatStatus(p))
		if err != nil || again != p {
			t.Errorf("%q parsed as %+v, which parses back as %+v, %v", text, p, again, err)
		}
	})
}

// probeMountinfo is a probe sandbox's /proc/self/mountinfo with tmp as
// the mount at /tmp (its type and super options).
func probeMountinfo(tmp string) string {
	return "60 59 0:40 / / rw,nosuid,relatime - tmpfs tmpfs rw,mode=755\n" +
		"61 60 259:1 /usr /usr ro,nosuid,nodev,relatime - ext4 /dev/root ro\n" +
		"70 60 0:42 / /tmp rw,nosuid,nodev,relatime - " + tmp + "\n" +
		"71 60 0:43 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n"
}

func TestParseTmpfsSize(t *testing.T) {
	tests := []struct {
		name, text string
		want       int64
		err        string
	}{
		{"kibibytes", probeMountinfo("tmpfs tmpfs rw,size=1024k,mode=755"), 1 << 20, ""},
		{"gibibytes", probeMountinfo("tmpfs tmpfs rw,size=8g"), 8 << 30, ""},
		{"bytes", probeMountinfo("tmpfs tmpfs rw,size=4096"), 4096, ""},
		{"unbounded", probeMountinfo("tmpfs tmpfs rw,mode=755"), 0, ""},
		{"the last mount is the one seen", probeMountinfo("tmpfs tmpfs rw,size=8g") + "72 70 0:44 / /tmp rw - tmpfs tmpfs rw,size=4k\n", 4 << 10, ""},
		{"after a status", formatStatus(dropped) + probeMountinfo("tmpfs tmpfs rw,size=1024k"), 1 << 20, ""},
		{"a bind of the host's /tmp", probeMountinfo("ext4 /dev/root rw"), 0, `/tmp is "ext4", not a tmpfs`},
		{"nothing at /tmp", strings.ReplaceAll(probeMountinfo("tmpfs tmpfs rw"), " /tmp ", " /var/tmp "), 0, "nothing is mounted at /tmp"},
		{"an escaped mount point", strings.ReplaceAll(probeMountinfo("tmpfs tmpfs rw,size=1k"), " /tmp ", ` /t\155p `), 1 << 10, ""},
		{"size not a number", probeMountinfo("tmpfs tmpfs rw,size=lots"), 0, `has size "size=lots"`},
		{"size overflowing", probeMountinfo("tmpfs tmpfs rw,size=99999999999999999g"), 0, "has size"},
		{"negative", probeMountinfo("tmpfs tmpfs rw,size=-1k"), 0, "has size"},
		{"too long", probeMountinfo("tmpfs tmpfs rw") + strings.Repeat("x", maxStatusSize), 0, "more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseTmpfsSize(tt.text, "/tmp")
			if tt.err == "" {
				if err != nil || got != tt.want {
					t.Errorf("= %d, %v; want %d", got, err, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("= %d, %v; want an error saying %q", got, err, tt.err)
			}
		})
	}
}

// FuzzParseTmpfsSize feeds the mountinfo parser anything: it never
// panics, and a size it accepts is one a mountinfo line can say.
func FuzzParseTmpfsSize(f *testing.F) {
	f.Add(probeMountinfo("tmpfs tmpfs rw,size=1024k,mode=755"))
	f.Add(probeMountinfo("tmpfs tmpfs rw,size=99999999999999999g"))
	f.Add(" - \n1 2 3 4 /tmp - tmpfs x size=k\n")
	f.Fuzz(func(t *testing.T, text string) {
		n, err := parseTmpfsSize(text, "/tmp")
		if err == nil && (n < 0 || n > 1<<62) {
			t.Errorf("%q: size %d", text, n)
		}
	})
}
