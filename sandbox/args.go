package sandbox

import (
	"os"
	"path/filepath"
	"strconv"

	"github.com/lunad/lunad/sandbox/shim"
)

// systemDirs are the host directories a sandboxed command sees,
// read-only: the system, never / and never a home. A merged-/usr host's
// /bin, /sbin and /lib* are symlinks, made again as symlinks inside.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"}

// secretFiles are files of /etc a command must not read: its uid maps
// to lunad's, and when lunad is root it owns these, so owner permissions
// would let it read them. Each one present is covered by /dev/null,
// which bwrap mounts nodev, so opening it fails.
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
	var files, dirs []string
	for _, pattern := range secretFiles {
		matches, _ := filepath.Glob(pattern)
		for _, f := range matches {
			if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() {
				files = append(files, f)
			}
		}
	}
	for _, d := range secretDirs {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			dirs = append(dirs, d)
		}
	}
	args = append(args, coverArgs(files, dirs)...)
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

// sandboxUID is the uid (and gid) a command has inside its user
// namespace when lunad runs as root: never 0, so that nothing in the
// sandbox is root even in its own namespace. It maps to lunad's uid
// outside, so the workspace stays the command's to write.
const sandboxUID = 1000

// bwrapConfig is what bwrap's arguments take besides the plan.
type bwrapConfig struct {
	mounts    []string // the system mounts (systemMounts)
	shim      string   // the Landlock shim's host path ("" without Landlock)
	seccompFD int      // the descriptor bwrap reads the seccomp filter from (0: none)
	uid       int      // the command's uid and gid inside (0: lunad's own, unchanged)
}

// bwrapArgs are bwrap's arguments for plan p: new namespaces (the
// network's unless p.network) with a user namespace of the command's
// own in which it holds no capability and can make no other (and, when
// lunad is root, a uid that is not 0), the seccomp filter, the system
// read-only, /dev, /proc, a private /tmp and /dev/shm and the user's
// home as empty tmpfs sized to the memory limit, the binds, Home and
// Root writable, the read-only paths over Root, the hidden paths
// covered, the working directory, then the command. The environment is
// not passed as arguments (--setenv would put it in the world-readable
// /proc/PID/cmdline): bwrap hands its own, the scrubbed one, on. With a
// shim (the host path of lunad-shim), the command is run
// through the Landlock shim, bound read-only at shim.Path.
func bwrapArgs(p *plan, c bwrapConfig) []string {
	args := []string{"--die-with-parent", "--new-session", "--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL"}
	if c.uid != 0 {
		args = append(args, "--uid", strconv.Itoa(c.uid), "--gid", strconv.Itoa(c.uid))
	}
	if p.network {
		args = append(args, "--share-net")
	}
	args = append(args, "--info-fd", strconv.Itoa(infoFD))
	if c.seccompFD != 0 {
		args = append(args, "--seccomp", strconv.Itoa(c.seccompFD))
	}
	args = append(args, c.mounts...)
	size := strconv.FormatInt(p.limits.Memory, 10)
	args = append(args, "--dev", "/dev", "--size", size, "--tmpfs", "/dev/shm", "--proc", "/proc", "--size", size, "--tmpfs", "/tmp")
	if p.userHome != "" {
		args = append(args, "--size", size, "--tmpfs", p.userHome)
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
	args = append(args, coverArgs(p.hiddenFiles, p.hiddenDirs)...)
	if c.shim != "" {
		args = append(args, "--ro-bind", c.shim, shim.Path)
	}
	args = append(args, "--chdir", p.dir, "--")
	if c.shim != "" {
		args = append(args, shim.Path)
	}
	return append(args, p.argv...)
}

// coverArgs are bwrap's arguments that hide files and directories: a
// file is covered by /dev/null, which bwrap mounts nodev, so opening it
// fails; a directory by an empty read-only tmpfs.
func coverArgs(files, dirs []string) []string {
	var args []string
	for _, f := range files {
		args = append(args, "--ro-bind", "/dev/null", f)
	}
	for _, d := range dirs {
		args = append(args, "--size", "4096", "--tmpfs", d, "--remount-ro", d)
	}
	return args
}

// within reports whether path is dir or inside it (both clean and
// absolute).
func within(dir, path string) bool {
	if dir == "/" {
		return true
	}
	return path == dir || len(path) > len(dir) && path[len(dir)] == '/' && path[:len(dir)] == dir
}
