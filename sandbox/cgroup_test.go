package sandbox

import (
	"strings"
	"testing"
)

// Real /proc/self/mountinfo lines: a cgroup v1 host (this project's CI
// containers), a pure cgroup v2 host (systemd), and a container whose
// cgroup v2 mount shows a subtree.
const (
	mountinfoV1 = `24 30 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw`
	mountinfoV2 = `22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot`
	mountinfoContainer = `612 600 0:30 /system.slice/docker-ab12.scope /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 cgroup ro`
	mountinfoEscaped   = `39 31 0:36 / /mnt/cg\040pids rw,relatime - cgroup cgroup rw,pids,nsroot=/`
)

func TestParseMountinfo(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want cgroupMount
		ok   bool
	}{
		{"v1 pids wins over the unified mount", mountinfoV1, cgroupMount{Version: 1, Root: "/", MountPoint: "/sys/fs/cgroup/pids"}, true},
		{"v2", mountinfoV2, cgroupMount{Version: 2, Root: "/", MountPoint: "/sys/fs/cgroup"}, true},
		{"a container's subtree", mountinfoContainer, cgroupMount{Version: 2, Root: "/system.slice/docker-ab12.scope", MountPoint: "/sys/fs/cgroup"}, true},
		{"an escaped space", mountinfoEscaped, cgroupMount{Version: 1, Root: "/", MountPoint: "/mnt/cg pids"}, true},
		{"no cgroup", "22 1 8:1 / / rw - ext4 /dev/sda1 rw", cgroupMount{}, false},
		{"garbage", "no separator here\n - \n1 2 - cgroup", cgroupMount{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseMountinfo(tt.in, "pids")
			if got != tt.want || ok != tt.ok {
				t.Errorf("parseMountinfo = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestParseProcCgroup(t *testing.T) {
	const v1 = "9:name=systemd:/\n8:pids:/ci/job-7\n4:memory:/process_api/4c18\n0::/"
	tests := []struct {
		name    string
		in      string
		version int
		want    string
		ok      bool
	}{
		{"v1 pids", v1, 1, "/ci/job-7", true},
		{"v2 on a hybrid host", v1, 2, "/", true},
		{"v1 with several controllers", "5:cpu,pids:/a b", 1, "/a b", true},
		{"v2", "0::/user.slice/user-1000.slice/session-3.scope\n", 2, "/user.slice/user-1000.slice/session-3.scope", true},
		{"no pids hierarchy", "4:memory:/x\n", 1, "", false},
		{"a relative path is not a cgroup", "8:pids:relative", 1, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseProcCgroup(tt.in, tt.version, "pids")
			if got != tt.want || ok != tt.ok {
				t.Errorf("parseProcCgroup = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestCgroupDir(t *testing.T) {
	tests := []struct {
		name string
		m    cgroupMount
		self string
		want string
		err  string
	}{
		{"root mount", cgroupMount{Root: "/", MountPoint: "/sys/fs/cgroup/pids"}, "/ci/job", "/sys/fs/cgroup/pids/ci/job", ""},
		{"the mount's own cgroup", cgroupMount{Root: "/", MountPoint: "/sys/fs/cgroup/pids"}, "/", "/sys/fs/cgroup/pids", ""},
		{"a subtree mount", cgroupMount{Root: "/docker/ab", MountPoint: "/sys/fs/cgroup"}, "/docker/ab/lunad", "/sys/fs/cgroup/lunad", ""},
		{"outside the subtree", cgroupMount{Root: "/docker/ab", MountPoint: "/sys/fs/cgroup"}, "/docker/abc", "", "outside the cgroup mount"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cgroupDir(tt.m, tt.self)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("cgroupDir = %q, %v; want an error saying %q", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("cgroupDir = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestParsePidsEvents(t *testing.T) {
	for in, want := range map[string]int64{"max 0\n": 0, "max 17\n": 17, "": 0, "other 3\nmax 2": 2, "max x": 0} {
		if got := parsePidsEvents(in); got != want {
			t.Errorf("parsePidsEvents(%q) = %d, want %d", in, got, want)
		}
	}
}

// TestParseCount reads the OOM kills of v1's memory.oom_control and
// v2's memory.events.
func TestParseCount(t *testing.T) {
	tests := []struct {
		name, in string
		want     int64
	}{
		{"v1 memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n", 2},
		{"v2 memory.events", "low 0\nhigh 0\nmax 5\noom 1\noom_kill 1\noom_group_kill 0\n", 1},
		{"none", "oom_kill_disable 0\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseCount(tt.in, "oom_kill"); got != tt.want {
				t.Errorf("parseCount = %d; want %d", got, tt.want)
			}
		})
	}
}

// FuzzParseMountinfo feeds the /proc parsers anything: they never panic,
// and what they find is a path.
func FuzzParseMountinfo(f *testing.F) {
	for _, s := range []string{mountinfoV1, mountinfoV2, mountinfoContainer, mountinfoEscaped, "8:pids:/x\n0::/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		if m, ok := parseMountinfo(data, "pids"); ok {
			if m.Version != 1 && m.Version != 2 {
				t.Fatalf("version %d", m.Version)
			}
			cgroupDir(m, "/x")
		}
		for _, v := range []int{1, 2} {
			if p, ok := parseProcCgroup(data, v, "pids"); ok && !strings.HasPrefix(p, "/") {
				t.Fatalf("cgroup path %q is not absolute", p)
			}
		}
		parsePidsEvents(data)
	})
}

// FuzzParseCount feeds the flat keyed file parser anything: it never
// panics, and a file without the key counts 0.
func FuzzParseCount(f *testing.F) {
	f.Add("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n", "oom_kill")
	f.Add("max 17\n", "max")
	f.Add("", "oom_kill")
	f.Fuzz(func(t *testing.T, data, key string) {
		n := parseCount(data, key)
		if !strings.Contains(data, key+" ") && n != 0 {
			t.Errorf("parseCount(%q, %q) = %d without the key", data, key, n)
		}
	})
}
