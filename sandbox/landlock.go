package sandbox

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// Landlock's access rights, numbered as the kernel's uapi
// (linux/landlock.h) numbers them; defined here so that the rules are
// built, and tested, on any system.
const (
	llExecute    uint64 = 1 << 0
	llWriteFile  uint64 = 1 << 1
	llReadFile   uint64 = 1 << 2
	llReadDir    uint64 = 1 << 3
	llRemoveDir  uint64 = 1 << 4
	llRemoveFile uint64 = 1 << 5
	llMakeChar   uint64 = 1 << 6
	llMakeDir    uint64 = 1 << 7
	llMakeReg    uint64 = 1 << 8
	llMakeSock   uint64 = 1 << 9
	llMakeFifo   uint64 = 1 << 10
	llMakeBlock  uint64 = 1 << 11
	llMakeSym    uint64 = 1 << 12
	llRefer      uint64 = 1 << 13 // ABI 2
	llTruncate   uint64 = 1 << 14 // ABI 3
	llIoctlDev   uint64 = 1 << 15 // ABI 5

	llBindTCP    uint64 = 1 << 0 // ABI 4
	llConnectTCP uint64 = 1 << 1 // ABI 4

	llScopeAbstractUnix uint64 = 1 << 0 // ABI 6
	llScopeSignal       uint64 = 1 << 1 // ABI 6

	// llABI1 are ABI 1's thirteen file-system rights.
	llABI1 = llMakeSym<<1 - 1
	// llFileRights are the rights that apply to a file (a rule on a
	// file may grant only these).
	llFileRights = llExecute | llWriteFile | llReadFile | llTruncate | llIoctlDev
	// llReadExec is what the read-only parts of the sandbox grant.
	llReadExec = llExecute | llReadFile | llReadDir
	// llRead is what /proc and /dev grant.
	llRead = llReadFile | llReadDir
	// llDevNode is what the device nodes bwrap's --dev makes grant.
	llDevNode = llReadFile | llWriteFile | llTruncate | llIoctlDev
)

// Landlock ABIs lunad knows.
const (
	// landlockMinABI is the first ABI lunad applies: ABI 1 cannot let a
	// command rename or link a file into another directory (REFER, ABI
	// 2, handled but never granted), which breaks mv, pip and build
	// tools; there bwrap alone is the sandbox.
	landlockMinABI = 2
	// landlockMaxABI is the newest ABI whose rights lunad hands the
	// kernel: a newer kernel is asked for ABI 7's, which it honours.
	landlockMaxABI = 7
)

// devNodes are the device nodes bwrap's --dev makes (null, zero, full,
// random, urandom, tty), read and written by commands.
var devNodes = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// shimSpec is what lunad hands the Landlock shim inside the sandbox
// through a pipe (descriptor shimSpecFD): the ruleset to restrict itself
// with, and the command's address-space limit, set just before the exec
// (the shim is a Go program, which cannot start under a small RLIMIT_AS).
type shimSpec struct {
	// ABI is the Landlock ABI the masks are for (the size of the
	// ruleset's attributes follows from it).
	ABI int `json:"abi"`
	// FS, Net and Scoped are the handled file-system and network rights
	// and the scopes (landlock_ruleset_attr); what no Path grants is
	// denied.
	FS     uint64 `json:"fs"`
	Net    uint64 `json:"net,omitempty"`
	Scoped uint64 `json:"scoped,omitempty"`
	// Paths grant rights beneath a path; one the sandbox lacks is
	// skipped (less access, never more).
	Paths []pathRule `json:"paths"`
	// Memory is RLIMIT_AS in bytes (0: left as it is).
	Memory uint64 `json:"memory,omitempty"`
}

// pathRule grants Access beneath Path (a LANDLOCK_RULE_PATH_BENEATH).
type pathRule struct {
	Path   string `json:"path"`
	Access uint64 `json:"access"`
}

// landlockHandled are the rights and scopes lunad restricts at ABI abi
// (capped at landlockMaxABI): every file right the ABI knows; TCP bind
// and connect (ABI 4) unless the command may use the network; abstract
// unix sockets and signals scoped to the sandbox (ABI 6). Below
// landlockMinABI nothing.
func landlockHandled(abi int, network bool) (fs, net, scoped uint64) {
	abi = min(abi, landlockMaxABI)
	if abi < landlockMinABI {
		return 0, 0, 0
	}
	fs = llABI1 | llRefer
	if abi >= 3 {
		fs |= llTruncate
	}
	if abi >= 5 {
		fs |= llIoctlDev
	}
	if abi >= 4 && !network {
		net = llBindTCP | llConnectTCP
	}
	if abi >= 6 {
		scoped = llScopeAbstractUnix | llScopeSignal
	}
	return fs, net, scoped
}

// landlockDescribe names what a ruleset restricts: "files", "tcp",
// "scopes", joined by ", "; "" for nothing.
func landlockDescribe(fs, net, scoped uint64) string {
	var parts []string
	if fs != 0 {
		parts = append(parts, "files")
	}
	if net != 0 {
		parts = append(parts, "tcp")
	}
	if scoped != 0 {
		parts = append(parts, "scopes")
	}
	return strings.Join(parts, ", ")
}

// newShimSpec is the shim's spec for plan p at Landlock ABI abi, given
// bwrap's system mounts:
//
//   - read and execute: the system directories bwrap binds read-only
//     (and /etc/resolv.conf's target), and the read-only Spec.Binds;
//   - read: /proc and /dev; read and write: the device nodes bwrap
//     makes, /dev/pts and /dev/shm;
//   - everything (read, write, execute, make, remove, rename): /tmp,
//     the command's home (Spec.Home, else the empty tmpfs over the
//     user's home), the writable Spec.Binds and Root.
//
// Nothing else: not /, not /run (the shim itself), not the tmpfs over
// the user's home when Spec.Home is the command's home. Spec.ReadOnly
// paths under Root stay read-only through bwrap's read-only binds alone:
// Landlock cannot take away beneath a path what it grants the path.
func newShimSpec(p *plan, mounts []string, abi int) shimSpec {
	fs, net, scoped := landlockHandled(abi, p.network)
	s := shimSpec{ABI: min(abi, landlockMaxABI), FS: fs, Net: net, Scoped: scoped, Memory: uint64(p.limits.Memory)}
	add := func(path string, access uint64) {
		if access &= fs; access != 0 {
			s.Paths = append(s.Paths, pathRule{Path: path, Access: access})
		}
	}
	for _, d := range readOnlyBound(mounts) {
		add(d, llReadExec)
	}
	add("/proc", llRead)
	add("/dev", llRead)
	for _, n := range devNodes {
		add(n, llDevNode)
	}
	add("/dev/pts", fs)
	add("/dev/shm", fs)
	add("/tmp", fs)
	switch {
	case p.home != "":
		add(p.home, fs)
	case p.userHome != "":
		add(p.userHome, fs)
	}
	for _, b := range p.binds {
		if b.Writable {
			add(b.Path, fs)
		} else {
			add(b.Path, llReadExec)
		}
	}
	add(p.root, fs)
	return s
}

// readOnlyBound are the destinations of the --ro-bind arguments among
// bwrap's system mounts, but for the secrets covered by /dev/null.
func readOnlyBound(mounts []string) []string {
	var dirs []string
	for i := 0; i+2 < len(mounts); i++ {
		if mounts[i] == "--ro-bind" {
			if mounts[i+1] != "/dev/null" {
				dirs = append(dirs, mounts[i+2])
			}
			i += 2
		}
	}
	return dirs
}

// encode is the spec as the shim reads it.
func (s shimSpec) encode() []byte {
	b, err := json.Marshal(s)
	if err != nil {
		panic("sandbox: encoding the shim's spec: " + err.Error()) // plain data: cannot fail
	}
	return b
}

// decodeShimSpec reads what encode wrote, checking that it is a ruleset
// the shim may apply: a known ABI, rights and scopes that ABI knows, and
// absolute clean paths granting only handled rights.
func decodeShimSpec(b []byte) (shimSpec, error) {
	var s shimSpec
	if err := json.Unmarshal(b, &s); err != nil {
		return shimSpec{}, fmt.Errorf("the spec from lunad does not decode: %v", err)
	}
	if s.ABI < landlockMinABI || s.ABI > landlockMaxABI {
		return shimSpec{}, fmt.Errorf("the spec from lunad is for Landlock ABI %d; this lunad applies ABIs %d to %d", s.ABI, landlockMinABI, landlockMaxABI)
	}
	fs, net, scoped := landlockHandled(s.ABI, false)
	if s.FS == 0 || s.FS&^fs != 0 || s.Net&^net != 0 || s.Scoped&^scoped != 0 {
		return shimSpec{}, fmt.Errorf("the spec from lunad handles rights ABI %d does not know (fs %#x, net %#x, scoped %#x)", s.ABI, s.FS, s.Net, s.Scoped)
	}
	for _, r := range s.Paths {
		if !filepath.IsAbs(r.Path) || filepath.Clean(r.Path) != r.Path || strings.ContainsRune(r.Path, 0) {
			return shimSpec{}, fmt.Errorf("the spec from lunad has the path %q: paths are absolute and clean", r.Path)
		}
		if r.Access == 0 || r.Access&^s.FS != 0 {
			return shimSpec{}, fmt.Errorf("the spec from lunad grants %s rights it does not handle (%#x of %#x)", r.Path, r.Access, s.FS)
		}
	}
	return s, nil
}
