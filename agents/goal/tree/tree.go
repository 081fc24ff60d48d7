package tree

import (
	"errors"
	"io/fs"
	"path"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Errors of a path the worktree holds as lunad does not take it. Each is
// returned inside an *fs.PathError naming the path.
var (
	// ErrSymlink: a symbolic link is where lunad expects a file or a
	// directory (at the path or on its way).
	ErrSymlink = errors.New("a symbolic link is in the way, and lunad does not follow links in a goal's worktree")
	// ErrNotRegular: the path is not a regular file (a FIFO, a socket, a
	// device, a directory where a file is expected).
	ErrNotRegular = errors.New("not a regular file, and lunad reads and writes only regular files in a goal's worktree")
	// ErrTooLarge: the file is larger than the read's limit.
	ErrTooLarge = errors.New("larger than lunad reads")
	// ErrTooMany: a directory or a walk has more entries than its limit.
	ErrTooMany = errors.New("more entries than lunad reads")
	// ErrBadPath: the path is not a clean, local, slash-separated one.
	ErrBadPath = errors.New("not a clean path relative to the worktree")
)

// Info is what lstat(2) says of a path.
type Info struct {
	Mode  fs.FileMode // the type bits and the permissions
	Size  int64
	Nlink uint64 // hard links: above 1, the file has another name, maybe outside
	Disk  int64  // bytes it takes on disk (st_blocks × 512)
}

func infoOf(st *unix.Stat_t) Info {
	m := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	}
	return Info{Mode: m, Size: st.Size, Nlink: uint64(st.Nlink), Disk: st.Blocks * 512}
}

// Root is a worktree's directory, held open: every path is resolved
// from its descriptor. Its methods are safe for concurrent use; Close
// ends it.
type Root struct {
	path string
	fd   int
}

// noOpenat2 is set once openat2(2) said ENOSYS: the component walk is
// used from then on.
var noOpenat2 atomic.Bool

// Open holds dir (lunad's own path, followed as it is) open as a Root.
func Open(dir string) (*Root, error) {
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return &Root{path: dir, fd: fd}, nil
}

// Dir is the root's directory, as Open was given it.
func (r *Root) Dir() string { return r.path }

// Close releases the root's descriptor.
func (r *Root) Close() error { return unix.Close(r.fd) }

// check requires rel to be "." or a clean local slash-separated path.
func check(rel string) error {
	if rel == "." {
		return nil
	}
	if rel == "" || path.Clean(rel) != rel || path.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") || strings.ContainsRune(rel, 0) {
		return ErrBadPath
	}
	return nil
}

// split is rel's parent directory (".": the root) and its last name.
func split(rel string) (string, string) {
	d, b := path.Split(rel)
	d = strings.TrimSuffix(d, "/")
	if d == "" {
		d = "."
	}
	return d, b
}

// open opens rel beneath the root with flags (O_CLOEXEC and O_NOFOLLOW
// added), never through a symbolic link.
func (r *Root) open(rel string, flags int, mode uint32) (int, error) {
	if err := check(rel); err != nil {
		return -1, err
	}
	flags |= unix.O_CLOEXEC | unix.O_NOFOLLOW
	if rel == "." {
		return retry(func() (int, error) { return unix.Openat(r.fd, ".", flags, mode) })
	}
	if !noOpenat2.Load() {
		how := &unix.OpenHow{Flags: uint64(flags), Mode: uint64(mode), Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
		fd, err := retry(func() (int, error) { return unix.Openat2(r.fd, rel, how) })
		if !errors.Is(err, unix.ENOSYS) {
			return fd, symlinkErr(err)
		}
		noOpenat2.Store(true)
	}
	return r.walkOpen(rel, flags, mode)
}

// walkOpen is open without openat2: each directory on the way opened
// with O_PATH|O_NOFOLLOW from the last and required to be a directory.
func (r *Root) walkOpen(rel string, flags int, mode uint32) (int, error) {
	names := strings.Split(rel, "/")
	dfd, err := unix.Dup(r.fd)
	if err != nil {
		return -1, err
	}
	for _, name := range names[:len(names)-1] {
		next, err := retry(func() (int, error) {
			return unix.Openat(dfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		})
		unix.Close(dfd)
		if err != nil {
			return -1, err
		}
		if err := requireDir(next); err != nil {
			return -1, err
		}
		dfd = next
	}
	defer unix.Close(dfd)
	fd, err := retry(func() (int, error) { return unix.Openat(dfd, names[len(names)-1], flags, mode) })
	return fd, symlinkErr(err)
}

// retry repeats an open interrupted by a signal, or refused by openat2
// because a rename raced its lookup (EAGAIN), a few times.
func retry(f func() (int, error)) (int, error) {
	for i := 0; ; i++ {
		fd, err := f()
		if i < 8 && (errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN)) {
			continue
		}
		return fd, err
	}
}

// symlinkErr words a link openat refused (ELOOP with O_NOFOLLOW or
// RESOLVE_NO_SYMLINKS, EXDEV for a path that would leave the root).
func symlinkErr(err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
		return ErrSymlink
	}
	return err
}

// dir opens directory rel (O_PATH) beneath the root; with create, the
// directories missing on the way are made (mode 0755) first.
func (r *Root) dir(rel string, create bool) (int, error) {
	if create && rel != "." {
		if err := check(rel); err != nil {
			return -1, err
		}
		names := strings.Split(rel, "/")
		for i := range names {
			if err := r.mkdir(strings.Join(names[:i+1], "/")); err != nil && !errors.Is(err, unix.EEXIST) {
				return -1, err
			}
		}
	}
	fd, err := r.open(rel, unix.O_PATH, 0) // not O_DIRECTORY: a final link is then opened itself, and named
	if err != nil {
		return -1, err
	}
	if err := requireDir(fd); err != nil {
		return -1, err
	}
	return fd, nil
}

// requireDir checks that fd (opened O_PATH|O_NOFOLLOW, which opens a
// link itself) is a directory; otherwise it closes fd and says what it is.
func requireDir(fd int) error {
	var st unix.Stat_t
	err := unix.Fstat(fd, &st)
	switch {
	case err != nil:
	case st.Mode&unix.S_IFMT == unix.S_IFDIR:
		return nil
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		err = ErrSymlink
	default:
		err = unix.ENOTDIR
	}
	unix.Close(fd)
	return err
}

// parent opens the directory rel is in (made first with create) and
// gives rel's last name; the root itself ("." for rel) is dotErr. Errors
// are *fs.PathError of op. The caller closes the descriptor.
func (r *Root) parent(op, rel string, create bool, dotErr error) (int, string, error) {
	if err := check(rel); err != nil || rel == "." {
		return -1, "", &fs.PathError{Op: op, Path: rel, Err: cmpErr(err, dotErr)}
	}
	d, name := split(rel)
	pfd, err := r.dir(d, create)
	if err != nil {
		return -1, "", &fs.PathError{Op: op, Path: rel, Err: err}
	}
	return pfd, name, nil
}
