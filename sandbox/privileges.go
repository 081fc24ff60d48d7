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
// effective, saved, filesystem) the ones asked for, no_new_privs, and a
// seccomp filter when seccomp (one was handed to bwrap). The error is
// the first shortfall.
func (p Privileges) check(uid, gid int, seccomp bool) error {
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
	return nil
}
