package shim

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fullSpec is a spec as lunad makes it at ABI 7, without the network.
func fullSpec() Spec {
	fs, net, scoped := Handled(7, false)
	return Spec{ABI: 7, FS: fs, Net: net, Scoped: scoped, Memory: 1 << 30, Paths: []PathRule{
		{Path: "/usr", Access: ReadExec}, {Path: "/proc", Access: Read}, {Path: "/dev/null", Access: DevNode}, {Path: "/ws", Access: fs}}}
}

// badSpecs are specs the shim must refuse, each with what its error says.
var badSpecs = []struct {
	name, spec, want string
}{
	{"nothing", "", "the spec from lunad does not decode"},
	{"not JSON", "{", "the spec from lunad does not decode"},
	{"a field this shim does not know", `{"abi":7,"fs":1,"paths":[],"deny_exec":true}`, `unknown field "deny_exec"`},
	{"two values", `{"abi":7,"fs":1,"paths":[]} {}`, "more than one JSON value"},
	{"an unknown ABI", `{"abi":99,"fs":1,"paths":[]}`, "Landlock ABI 99"},
	{"ABI 1", `{"abi":1,"fs":1,"paths":[]}`, "Landlock ABI 1"},
	{"no file rights handled", `{"abi":7,"fs":0,"paths":[]}`, "handles rights ABI 7 does not know"},
	{"a right the ABI lacks", `{"abi":2,"fs":32767,"paths":[]}`, "rights ABI 2 does not know"},
	{"a network right before ABI 4", `{"abi":3,"fs":1,"net":1,"paths":[]}`, "rights ABI 3 does not know"},
	{"a relative path", `{"abi":7,"fs":1,"paths":[{"path":"usr","access":1}]}`, `the path "usr"`},
	{"a path that is not clean", `{"abi":7,"fs":1,"paths":[{"path":"/usr/../home","access":1}]}`, `the path "/usr/../home"`},
	{"an unhandled right", `{"abi":7,"fs":1,"paths":[{"path":"/usr","access":3}]}`, "grants /usr rights it does not handle"},
	{"a rule granting nothing", `{"abi":7,"fs":1,"paths":[{"path":"/usr","access":0}]}`, "grants /usr rights it does not handle"},
}

// TestDecode: a spec lunad makes decodes as encoded; every spec the shim
// cannot apply whole is refused, saying why.
func TestDecode(t *testing.T) {
	s := fullSpec()
	back, err := Decode(s.Encode())
	if err != nil || !reflect.DeepEqual(back, s) {
		t.Fatalf("Decode(Encode(%+v)) = %+v, %v", s, back, err)
	}
	for _, tt := range badSpecs {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Decode([]byte(tt.spec)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decode(%q) = %v; want an error saying %q", tt.spec, err, tt.want)
			}
		})
	}
}

// TestHandled pins the rights handled at each ABI.
func TestHandled(t *testing.T) {
	tests := []struct {
		abi             int
		network         bool
		fs, net, scoped uint64
		describe        string
	}{
		{1, false, 0, 0, 0, ""},
		{2, false, 1<<14 - 1, 0, 0, "files"},
		{3, false, 1<<15 - 1, 0, 0, "files"},
		{4, false, 1<<15 - 1, 3, 0, "files, tcp"},
		{4, true, 1<<15 - 1, 0, 0, "files"},
		{5, false, 1<<16 - 1, 3, 0, "files, tcp"},
		{6, false, 1<<16 - 1, 3, 3, "files, tcp, scopes"},
		{9, false, 1<<16 - 1, 3, 3, "files, tcp, scopes"},
	}
	for _, tt := range tests {
		fs, net, scoped := Handled(tt.abi, tt.network)
		if fs != tt.fs || net != tt.net || scoped != tt.scoped || Describe(fs, net, scoped) != tt.describe {
			t.Errorf("Handled(%d, %v) = %#x, %#x, %#x (%q); want %#x, %#x, %#x (%q)", tt.abi, tt.network, fs, net, scoped, Describe(fs, net, scoped), tt.fs, tt.net, tt.scoped, tt.describe)
		}
	}
}

// FuzzDecode: the shim's decoder never panics, and what it accepts
// encodes and decodes to itself and grants only handled rights on
// absolute paths.
func FuzzDecode(f *testing.F) {
	f.Add(fullSpec().Encode())
	f.Add([]byte(`{"abi":2,"fs":16383,"paths":[{"path":"/","access":1}]}`))
	f.Add([]byte(`{"abi":7,"fs":1,"net":3,"scoped":3,"paths":null,"memory":1}`))
	f.Add([]byte(`{"abi":1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Decode(b)
		if err != nil {
			return
		}
		for _, r := range s.Paths {
			if !filepath.IsAbs(r.Path) || r.Access&^s.FS != 0 {
				t.Fatalf("accepted %+v", r)
			}
		}
		back, err := Decode(s.Encode())
		if err != nil || !reflect.DeepEqual(back, s) {
			t.Fatalf("%+v encodes and decodes to %+v, %v", s, back, err)
		}
	})
}
