package sandbox

import (
	"cmp"
	"fmt"
	"strconv"
)

// Mitigation is one defence of the sandbox as Probe found it: its name,
// what is in force, and whether it is missing (`lunad doctor` warns).
type Mitigation struct {
	Name    string `json:"name"`
	State   string `json:"state"`
	Missing bool   `json:"missing,omitempty"`
}

// Mitigations are the sandbox's defences beyond its namespaces and
// Landlock, each with what is in force here: capabilities, the
// command's uid, no_new_privs, the seccomp filter, the process and
// memory limits, the tmpfs sizes, and — for root without Landlock —
// what that costs.
func (c Capabilities) Mitigations() []Mitigation {
	var ms []Mitigation
	add := func(name string, ok bool, good, bad string) {
		if ok {
			ms = append(ms, Mitigation{Name: name, State: good})
		} else {
			ms = append(ms, Mitigation{Name: name, State: bad, Missing: true})
		}
	}
	hardened := c.Usable()
	why := c.HardenedError
	if why == "" {
		why = "no usable sandbox"
	}
	// Hardened holds only when a probe command measured as asked, so the
	// states in force are measured ones.
	const measured = "; measured in a probe command"
	add("capabilities", hardened, "all dropped (bwrap --cap-drop ALL), in a user namespace of the command's own that cannot make another (--disable-userns); none in any set"+measured,
		"NOT dropped: "+why)
	uid := "lunad's own (not root)"
	if c.Root {
		uid = strconv.Itoa(sandboxUID) + " in its user namespace (lunad runs as root; the uid maps to root outside, so root-owned files stay readable where their mode lets their owner)"
	}
	add("command uid", hardened, uid+measured, "unknown: "+why)
	add("no_new_privs", hardened, "set (bwrap, before the command)"+measured, "unknown: "+why)
	add("seccomp", hardened && c.Seccomp, "filter refusing "+seccompSummary+measured, "NONE: "+cmp.Or(c.SeccompError, why))
	pl := c.ProcessLimit
	if c.CgroupDir != "" {
		pl += " (under " + c.CgroupDir + ")"
	}
	if c.ProcessLimitNote != "" {
		pl += ": " + c.ProcessLimitNote
	}
	add("process limit", c.ProcessLimit != LimitNone, pl, pl)
	ml := c.MemoryLimit + " with RLIMIT_AS"
	if c.MemoryCgroupDir != "" {
		ml = fmt.Sprintf("%s (a memory cgroup per command under %s, counting its tmpfs) with RLIMIT_AS", c.MemoryLimit, c.MemoryCgroupDir)
	}
	if c.MemoryLimitNote != "" {
		ml += ": " + c.MemoryLimitNote
	}
	add("memory limit", c.MemoryCgroupDir != "", ml, ml)
	add("tmpfs", hardened, "/tmp, /dev/shm and the empty home each sized to the memory limit"+measured, "unknown: "+why)
	if c.Root && hardened && c.landlockApplied() == "" {
		ms = append(ms, Mitigation{Name: "root without landlock", Missing: true,
			State: "lunad runs as root and Landlock is not applied: bwrap's mounts, the dropped capabilities and seccomp alone keep commands in; only a policy with root_without_landlock = \"warn\" lets goals run commands"})
	}
	return ms
}
