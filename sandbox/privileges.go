package sandbox

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Privileges are what a command holds inside the sandbox, as the kernel
// reports them in its /proc/self/status: Probe measures them by running
// one, so `lunad doctor` says what is in force rather than which options
// bwrap was given, and a bwrap that ignores them leaves the sandbox
// unusable.
type Privileges struct {
	// The capability sets (CapInh, CapPrm, CapEff, CapBnd, CapAmb), each
	// a bit mask; a sandboxed command must hold none in any.
	CapInh uint64 `json:"cap_inh"`
	CapPrm uint64 `json:"cap_prm"`
	CapEff uint64 `json:"cap_eff"`
	CapBnd uint64 `json:"cap_bnd"`
	CapAmb uint64 `json:"cap_amb"`
	// UID and GID are the real, effective, saved and filesystem ids in
	// the command's user namespace.
	UID [4]int `json:"uid"`
	GID [4]int `json:"gid"`
	// NoNewPrivs: execve cannot grant privileges (setuid bits, file
	// capabilities) to the command or its children.
	NoNewPrivs bool `json:"no_new_privs"`
	// Seccomp is the seccomp mode: 0 none, 1 strict, 2 filter.
	Seccomp int `json:"seccomp"`
	// TmpSize is the size of the tmpfs at its /tmp in bytes (0: none
	// set, so the kernel's default of half the RAM), from its
	// /proc/self/mountinfo.
	TmpSize int64 `json:"tmp_size"`
}

// seccompModeFilter is /proc/PID/status's Seccomp for a process under a
// seccomp filter.
const seccompModeFilter = 2

// maxStatusSize bounds what Probe reads of a probe command's
// /proc/self/status; the kernel's is under 2 KiB.
const maxStatusSize = 64 << 10

// parseProcStatus reads the privileges out of a /proc/PID/status text.
// Every field Privileges has must be there exactly once, well formed;
// the error names the first that is not.
func parseProcStatus(text string) (Privileges, error) {
	var p Privileges
	if len(text) > maxStatusSize {
		return p, fmt.Errorf("/proc/self/status is %d bytes, more than %d", len(text), maxStatusSize)
	}
	caps := map[string]*uint64{"CapInh": &p.CapInh, "CapPrm": &p.CapPrm, "CapEff": &p.CapEff, "CapBnd": &p.CapBnd, "CapAmb": &p.CapAmb}
	ids := map[string]*[4]int{"Uid": &p.UID, "Gid": &p.GID}
	ints := map[string]*int{"Seccomp": &p.Seccomp}
	var nnp int
	ints["NoNewPrivs"] = &nnp
	seen := map[string]bool{}
	for line := range strings.Lines(text) {
		key, value, ok := strings.Cut(strings.TrimRight(line, "\n"), ":")
		if !ok {
			continue
		}
		capSet, isCap := caps[key]
		id, isID := ids[key]
		n, isInt := ints[key]
		if !isCap && !isID && !isInt {
			continue
		}
		if seen[key] {
			return Privileges{}, fmt.Errorf("/proc/self/status has %s twice", key)
		}
		seen[key] = true
		fields := strings.Fields(value)
		var err error
		switch {
		case isCap:
			err = parseFields(fields, 1, func(_ int, f string) error {
				v, err := strconv.ParseUint(f, 16, 64)
				*capSet = v
				return err
			})
		case isID:
			err = parseFields(fields, 4, func(i int, f string) error {
				v, err := strconv.Atoi(f)
				if err == nil && v < 0 {
					err = errors.New("negative")
				}
				id[i] = v
				return err
			})
		default:
			err = parseFields(fields, 1, func(_ int, f string) error {
				v, err := strconv.Atoi(f)
				if err == nil && v < 0 {
					err = errors.New("negative")
				}
				*n = v
				return err
			})
		}
		if err != nil {
			return Privileges{}, fmt.Errorf("/proc/self/status has %s %q: %v", key, strings.TrimSpace(value), err)
		}
	}
	for _, key := range []string{"Uid", "Gid", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp"} {
		if !seen[key] {
			return Privileges{}, fmt.Errorf("/proc/self/status lacks %s", key)
		}
	}
	if nnp > 1 {
		return Privileges{}, fmt.Errorf("/proc/self/status has NoNewPrivs %d, not 0 or 1", nnp)
	}
	p.NoNewPrivs = nnp == 1
	return p, nil
}

// parseTmpfsSize is the size in bytes of the tmpfs mounted at mountPoint
// in a /proc/PID/mountinfo text (the last mount there: it is the one
// seen), 0 when it has no size option; an error when what is mounted
// there is not a tmpfs, or the size is not a number of bytes, k, m or g.
func parseTmpfsSize(mountinfo, mountPoint string) (int64, error) {
	if len(mountinfo) > maxStatusSize {
		return 0, fmt.Errorf("/proc/self/mountinfo is %d bytes, more than %d", len(mountinfo), maxStatusSize)
	}
	var fstype, options string
	found := false
	for line := range strings.Lines(mountinfo) {
		pre, post, ok := strings.Cut(strings.TrimRight(line, "\n"), " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 3 || unescapeMount(f[4]) != mountPoint {
			continue
		}
		fstype, options, found = g[0], g[2], true
	}
	switch {
	case !found:
		return 0, fmt.Errorf("nothing is mounted at %s", mountPoint)
	case fstype != "tmpfs":
		return 0, fmt.Errorf("%s is %q, not a tmpfs", mountPoint, fstype)
	}
	for opt := range strings.SplitSeq(options, ",") {
		v, ok := strings.CutPrefix(opt, "size=")
		if !ok {
			continue
		}
		unit := int64(1)
		switch {
		case strings.HasSuffix(v, "k"):
			unit, v = 1<<10, v[:len(v)-1]
		case strings.HasSuffix(v, "m"):
			unit, v = 1<<20, v[:len(v)-1]
		case strings.HasSuffix(v, "g"):
			unit, v = 1<<30, v[:len(v)-1]
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 || n > (1<<62)/unit {
			return 0, fmt.Errorf("%s has size %q", mountPoint, opt)
		}
		return n * unit, nil
	}
	return 0, nil
}

// parseFields calls parse on each of fields, which must be want many.
func parseFields(fields []string, want int, parse func(i int, f string) error) error {
	if len(fields) != want {
		return fmt.Errorf("%d fields, want %d", len(fields), want)
	}
	for i, f := range fields {
		if err := parse(i, f); err != nil {
			return err
		}
	}
	return nil
}

// check says how p falls short of what a sandboxed command must hold
// (nil if it does not): no capability in any set, uid and gid (real,
// effective, saved, filesystem) the ones asked for, no_new_privs, a
// seccomp filter when seccomp (one was handed to bwrap), and a /tmp of
// tmpSize bytes. The error is the first shortfall.
func (p Privileges) check(uid, gid int, seccomp bool, tmpSize int64) error {
	for _, s := range []struct {
		name string
		set  uint64
	}{{"CapEff", p.CapEff}, {"CapPrm", p.CapPrm}, {"CapInh", p.CapInh}, {"CapAmb", p.CapAmb}, {"CapBnd", p.CapBnd}} {
		if s.set != 0 {
			return fmt.Errorf("holds capabilities (%s %016x)", s.name, s.set)
		}
	}
	if p.UID != [4]int{uid, uid, uid, uid} {
		return fmt.Errorf("has uid %d, not %d", p.UID, uid)
	}
	if p.GID != [4]int{gid, gid, gid, gid} {
		return fmt.Errorf("has gid %d, not %d", p.GID, gid)
	}
	if !p.NoNewPrivs {
		return errors.New("lacks no_new_privs")
	}
	if seccomp && p.Seccomp != seccompModeFilter {
		return fmt.Errorf("runs under no seccomp filter (Seccomp %d)", p.Seccomp)
	}
	if p.TmpSize != tmpSize {
		return fmt.Errorf("has a /tmp of %d bytes, not %d (0: unbounded)", p.TmpSize, tmpSize)
	}
	return nil
}
