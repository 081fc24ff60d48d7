package sandbox

import "github.com/lunad/lunad/sandbox/shim"

// devNodes are the device nodes bwrap's --dev makes (null, zero, full,
// random, urandom, tty), read and written by commands.
var devNodes = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

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
func newShimSpec(p *plan, mounts []string, abi int) shim.Spec {
	fs, net, scoped := shim.Handled(abi, p.network)
	s := shim.Spec{ABI: min(abi, shim.MaxABI), FS: fs, Net: net, Scoped: scoped, Memory: uint64(p.limits.Memory)}
	add := func(path string, access uint64) {
		if access &= fs; access != 0 {
			s.Paths = append(s.Paths, shim.PathRule{Path: path, Access: access})
		}
	}
	for _, d := range readOnlyBound(mounts) {
		add(d, shim.ReadExec)
	}
	add("/proc", shim.Read)
	add("/dev", shim.Read)
	for _, n := range devNodes {
		add(n, shim.DevNode)
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
			add(b.Path, shim.ReadExec)
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
