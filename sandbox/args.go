package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
)

// systemDirs are the host directories a sandboxed command sees,
// read-only: the system, never / and never a home. A merged-/usr host's
// /bin, /sbin and /lib* are symlinks, made again as symlinks inside.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"}

// secretFiles are files of /etc a command must not read even as uid 0
// (bwrap drops capabilities, but root still owns these): each one present
// is covered by /dev/null, which bwrap mounts nodev, so opening it fails.
var secretFiles = []string{"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/ssh/ssh_host_*key", "/etc/sudoers"}

// secretDirs are directories of /etc covered by an empty tmpfs.
var secretDirs = []string{"/etc/ssl/private"}

// systemMounts are bwrap's arguments that show this host's system
// directories read-only, with the secrets of /etc covered.
func systemMounts() []string {
	var args []string
	etc := false
	for _, d := range systemDirs {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			if target, err := os.Readlink(d); err == nil {
				args = append(args, "--symlink", target, d)
			}
		case fi.IsDir():
			args = append(args, "--ro-bind", d, d)
			etc = etc || d == "/etc"
		}
	}
	if !etc {
		return args
	}
	for _, pattern := range secretFiles {
		matches, _ := filepath.Glob(pattern)
		for _, f := range matches {
			if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() {
				args = append(args, "--ro-bind", "/dev/null", f)
			}
		}
	}
	for _, d := range secretDirs {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			args = append(args, "--tmpfs", d, "--remount-ro", d)
		}
	}
	// systemd-resolved's hosts make /etc/resolv.conf a symlink into /run:
	// its target, read-only, so that a command let on the network
	// resolves names.
	if real, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil && !underSystem(real) {
		args = append(args, "--ro-bind", real, real)
	}
	return args
}

// underSystem reports whether path is in one of the system directories.
func underSystem(path string) bool {
	for _, s := range systemDirs {
		if within(s, path) {
			return true
		}
	}
	return false
}

// visibleDir reports whether the host directory d is visible to a
// sandboxed command of plan p at the same path: under a system
// directory, Root, Home or a bind.
func (p *plan) visibleDir(d string) bool {
	if underSystem(d) {
		return true
	}
	if within(p.root, d) || p.home != "" && within(p.home, d) {
		return true
	}
	for _, b := range p.binds {
		if within(b.Path, d) {
			return true
		}
	}
	return false
}

// infoFD is the descriptor bwrap writes its JSON info to (the child's
// pid and namespaces): the gate's ExtraFiles[1].
const infoFD = 4

// bwrapArgs are bwrap's arguments for plan p, given the system mounts:
// new namespaces (the network's unless p.network), the system read-only,
// /dev, /proc, a private /tmp, the user's home an empty tmpfs, the binds,
// Home and Root writable, the read-only paths over Root, the working
// directory, then the command. The environment is not passed as
// arguments (--setenv would put it in the world-readable
// /proc/PID/cmdline): bwrap hands its own, the scrubbed one, on. With
// a shim (the host path of lunad's executable), the command is run
// through the Landlock shim, bound read-only at ShimPath.
func bwrapArgs(p *plan, mounts []string, shim string) []string {
	args := []string{"--die-with-parent", "--new-session", "--unshare-all"}
	if p.network {
		args = append(args, "--share-net")
	}
	args = append(args, "--info-fd", strconv.Itoa(infoFD))
	args = append(args, mounts...)
	args = append(args, "--dev", "/dev", "--tmpfs", "/dev/shm", "--proc", "/proc", "--tmpfs", "/tmp")
	if p.userHome != "" {
		args = append(args, "--tmpfs", p.userHome)
	}
	for _, b := range p.binds {
		if b.Writable {
			args = append(args, "--bind", b.Path, b.Path)
		} else {
			args = append(args, "--ro-bind", b.Path, b.Path)
		}
	}
	if p.home != "" {
		args = append(args, "--bind", p.home, p.home)
	}
	args = append(args, "--bind", p.rootSrc, p.root)
	for _, ro := range p.readOnly {
		args = append(args, "--ro-bind", ro, ro)
	}
	for _, m := range p.missing {
		args = append(args, "--tmpfs", m, "--remount-ro", m)
	}
	if shim != "" {
		args = append(args, "--ro-bind", shim, ShimPath)
	}
	args = append(args, "--chdir", p.dir, "--")
	if shim != "" {
		args = append(args, ShimPath)
	}
	return append(args, p.argv...)
}

// within reports whether path is dir or inside it (both clean and
// absolute).
func within(dir, path string) bool {
	if dir == "/" {
		return true
	}
	return path == dir || len(path) > len(dir) && path[len(dir)] == '/' && path[:len(dir)] == dir
}
