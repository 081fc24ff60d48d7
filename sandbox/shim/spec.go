package shim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// Path is where a sandbox shows the shim's executable, read-only: bwrap
// runs it there with the command's argv. It is under /run, never under a
// workspace.
const Path = "/run/lunad/landlock"

// The shim's descriptors: the spec it reads (lunad writes it, then closes
// its end) and the status pipe it writes only when it fails (the exec
// closes it otherwise: close-on-exec).
const (
	SpecFD   = 5
	StatusFD = 6
)

// StatusLimit bounds what lunad reads of the status pipe.
const StatusLimit = 4 << 10

// specLimit bounds what the shim reads of its spec.
const specLimit = 16 << 20

// Landlock's access rights, numbered as the kernel's uapi
// (linux/landlock.h) numbers them; defined here so that the rules are
// built, and tested, on any system.
const (
	Execute    uint64 = 1 << 0
	WriteFile  uint64 = 1 << 1
	ReadFile   uint64 = 1 << 2
	ReadDir    uint64 = 1 << 3
	RemoveDir  uint64 = 1 << 4
	RemoveFile uint64 = 1 << 5
	MakeChar   uint64 = 1 << 6
	MakeDir    uint64 = 1 << 7
	MakeReg    uint64 = 1 << 8
	MakeSock   uint64 = 1 << 9
	MakeFifo   uint64 = 1 << 10
	MakeBlock  uint64 = 1 << 11
	MakeSym    uint64 = 1 << 12
	Refer      uint64 = 1 << 13 // ABI 2
	Truncate   uint64 = 1 << 14 // ABI 3
	IoctlDev   uint64 = 1 << 15 // ABI 5

	BindTCP    uint64 = 1 << 0 // ABI 4
	ConnectTCP uint64 = 1 << 1 // ABI 4

	ScopeAbstractUnix uint64 = 1 << 0 // ABI 6
	ScopeSignal       uint64 = 1 << 1 // ABI 6

	// abi1 are ABI 1's thirteen file-system rights.
	abi1 = MakeSym<<1 - 1
	// FileRights are the rights that apply to a file (a rule on a file
	// may grant only these).
	FileRights = Execute | WriteFile | ReadFile | Truncate | IoctlDev
	// ReadExec is what the read-only parts of the sandbox grant.
	ReadExec = Execute | ReadFile | ReadDir
	// Read is what /proc and /dev grant.
	Read = ReadFile | ReadDir
	// DevNode is what the device nodes bwrap's --dev makes grant.
	DevNode = ReadFile | WriteFile | Truncate | IoctlDev
)

// Landlock ABIs lunad knows.
const (
	// MinABI is the first ABI lunad applies: ABI 1 cannot let a command
	// rename or link a file into another directory (REFER, ABI 2,
	// handled but never granted), which breaks mv, pip and build tools;
	// there bwrap alone is the sandbox.
	MinABI = 2
	// MaxABI is the newest ABI whose rights lunad hands the kernel: a
	// newer kernel is asked for ABI 7's, which it honours.
	MaxABI = 7
)

// Spec is what lunad hands the shim through a pipe (SpecFD): the ruleset
// to restrict itself with, and the command's address-space limit, set
// just before the exec (the shim is a Go program, which cannot start
// under a small RLIMIT_AS).
type Spec struct {
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
	Paths []PathRule `json:"paths"`
	// Memory is RLIMIT_AS in bytes (0: left as it is).
	Memory uint64 `json:"memory,omitempty"`
}

// PathRule grants Access beneath Path (a LANDLOCK_RULE_PATH_BENEATH).
type PathRule struct {
	Path   string `json:"path"`
	Access uint64 `json:"access"`
}

// Handled are the rights and scopes lunad restricts at ABI abi (capped at
// MaxABI): every file right the ABI knows; TCP bind and connect (ABI 4)
// unless the command may use the network; abstract unix sockets and
// signals scoped to the sandbox (ABI 6). Below MinABI nothing.
func Handled(abi int, network bool) (fs, net, scoped uint64) {
	abi = min(abi, MaxABI)
	if abi < MinABI {
		return 0, 0, 0
	}
	fs = abi1 | Refer
	if abi >= 3 {
		fs |= Truncate
	}
	if abi >= 5 {
		fs |= IoctlDev
	}
	if abi >= 4 && !network {
		net = BindTCP | ConnectTCP
	}
	if abi >= 6 {
		scoped = ScopeAbstractUnix | ScopeSignal
	}
	return fs, net, scoped
}

// Describe names what a ruleset restricts: "files", "tcp", "scopes",
// joined by ", "; "" for nothing.
func Describe(fs, net, scoped uint64) string {
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

// Encode is the spec as the shim reads it.
func (s Spec) Encode() []byte {
	b, err := json.Marshal(s)
	if err != nil {
		panic("shim: encoding the spec: " + err.Error()) // plain data: cannot fail
	}
	return b
}

// Decode reads what Encode wrote, checking that it is a ruleset the shim
// may apply and understands whole: no field it does not know (a newer
// lunad's restriction it would silently leave out), one JSON value, a
// known ABI, rights and scopes that ABI knows, and absolute clean paths
// granting only handled rights. Its error says which.
func Decode(b []byte) (Spec, error) {
	var s Spec
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Spec{}, fmt.Errorf("the spec from lunad does not decode: %v (lunad and lunad-shim must be built together)", err)
	}
	if dec.More() {
		return Spec{}, fmt.Errorf("the spec from lunad does not decode: more than one JSON value")
	}
	if s.ABI < MinABI || s.ABI > MaxABI {
		return Spec{}, fmt.Errorf("the spec from lunad is for Landlock ABI %d; this shim applies ABIs %d to %d", s.ABI, MinABI, MaxABI)
	}
	fs, net, scoped := Handled(s.ABI, false)
	if s.FS == 0 || s.FS&^fs != 0 || s.Net&^net != 0 || s.Scoped&^scoped != 0 {
		return Spec{}, fmt.Errorf("the spec from lunad handles rights ABI %d does not know (fs %#x, net %#x, scoped %#x)", s.ABI, s.FS, s.Net, s.Scoped)
	}
	for _, r := range s.Paths {
		if !filepath.IsAbs(r.Path) || filepath.Clean(r.Path) != r.Path || strings.ContainsRune(r.Path, 0) {
			return Spec{}, fmt.Errorf("the spec from lunad has the path %q: paths are absolute and clean", r.Path)
		}
		if r.Access == 0 || r.Access&^s.FS != 0 {
			return Spec{}, fmt.Errorf("the spec from lunad grants %s rights it does not handle (%#x of %#x)", r.Path, r.Access, s.FS)
		}
	}
	return s, nil
}
