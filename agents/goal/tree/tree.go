package tree

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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

// mkdir makes directory rel (its parent must be there).
func (r *Root) mkdir(rel string) error {
	d, name := split(rel)
	pfd, err := r.dir(d, false)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	return unix.Mkdirat(pfd, name, 0o755)
}

// Lstat is what lstat(2) says of rel, its parent directories reached
// without following a link.
func (r *Root) Lstat(rel string) (Info, error) {
	var st unix.Stat_t
	if rel == "." {
		if err := unix.Fstat(r.fd, &st); err != nil {
			return Info{}, &fs.PathError{Op: "lstat", Path: rel, Err: err}
		}
		return infoOf(&st), nil
	}
	if err := check(rel); err != nil {
		return Info{}, &fs.PathError{Op: "lstat", Path: rel, Err: err}
	}
	d, name := split(rel)
	pfd, err := r.dir(d, false)
	if err != nil {
		return Info{}, &fs.PathError{Op: "lstat", Path: rel, Err: err}
	}
	defer unix.Close(pfd)
	if err := unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return Info{}, &fs.PathError{Op: "lstat", Path: rel, Err: err}
	}
	return infoOf(&st), nil
}

// OpenFile opens regular file rel for reading, and says what it is. A
// FIFO, a device or a socket is ErrNotRegular without a byte read: the
// open does not block. The caller closes the file.
func (r *Root) OpenFile(rel string) (*os.File, Info, error) {
	fd, err := r.open(rel, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, Info{}, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, Info{}, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	info := infoOf(&st)
	if !info.Mode.IsRegular() {
		unix.Close(fd)
		return nil, info, &fs.PathError{Op: "open", Path: rel, Err: ErrNotRegular}
	}
	return os.NewFile(uintptr(fd), rel), info, nil
}

// ReadFile reads regular file rel (as OpenFile opens it), at most limit
// bytes (ErrTooLarge past them), and says what it was.
func (r *Root) ReadFile(rel string, limit int64) ([]byte, Info, error) {
	f, info, err := r.OpenFile(rel)
	if err != nil {
		return nil, info, err
	}
	defer f.Close()
	if info.Size > limit {
		return nil, info, &fs.PathError{Op: "read", Path: rel, Err: fmt.Errorf("%w: %d bytes, over %d", ErrTooLarge, info.Size, limit)}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, info, &fs.PathError{Op: "read", Path: rel, Err: err}
	}
	if int64(len(data)) > limit {
		return nil, info, &fs.PathError{Op: "read", Path: rel, Err: fmt.Errorf("%w: over %d bytes", ErrTooLarge, limit)}
	}
	return data, info, nil
}

// Readlink is symbolic link rel's target (never followed).
func (r *Root) Readlink(rel string) (string, error) {
	if err := check(rel); err != nil || rel == "." {
		return "", &fs.PathError{Op: "readlink", Path: rel, Err: cmpErr(err, unix.EINVAL)}
	}
	d, name := split(rel)
	pfd, err := r.dir(d, false)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: rel, Err: err}
	}
	defer unix.Close(pfd)
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(pfd, name, buf)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: rel, Err: err}
	}
	return string(buf[:n]), nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// Entry is one name of a directory and what lstat(2) says of it.
type Entry struct {
	Name string
	Info Info
}

// ReadDir lists directory rel, in no particular order, at most max
// entries (ErrTooMany past them); an entry gone between the listing and
// its lstat is left out.
func (r *Root) ReadDir(rel string, max int) ([]Entry, error) {
	fd, err := r.open(rel, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: rel, Err: err}
	}
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	var out []Entry
	for {
		names, err := f.Readdirnames(256)
		for _, name := range names {
			var st unix.Stat_t
			if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
				continue
			}
			if len(out) == max {
				return nil, &fs.PathError{Op: "readdir", Path: rel, Err: fmt.Errorf("%w: over %d", ErrTooMany, max)}
			}
			out = append(out, Entry{Name: name, Info: infoOf(&st)})
		}
		if errors.Is(err, io.EOF) || (err == nil && len(names) == 0) {
			return out, nil
		}
		if err != nil {
			return nil, &fs.PathError{Op: "readdir", Path: rel, Err: err}
		}
	}
}

// WriteFile makes rel a regular file holding data with permissions perm,
// making the missing directories on its way: a new file is written under
// a temporary name in rel's directory and renamed over rel, so whatever
// rel was (a link, a file with other names) is replaced, never written
// through. A directory at rel is an error.
func (r *Root) WriteFile(rel string, data []byte, perm fs.FileMode) error {
	if err := check(rel); err != nil || rel == "." {
		return &fs.PathError{Op: "write", Path: rel, Err: cmpErr(err, unix.EISDIR)}
	}
	d, name := split(rel)
	pfd, err := r.dir(d, true)
	if err != nil {
		return &fs.PathError{Op: "write", Path: rel, Err: err}
	}
	defer unix.Close(pfd)
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := ".lunad-tmp-" + hex.EncodeToString(rnd[:])
	fd, err := unix.Openat(pfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return &fs.PathError{Op: "write", Path: rel, Err: err}
	}
	f := os.NewFile(uintptr(fd), tmp)
	_, err = f.Write(data)
	if err == nil {
		err = unix.Fchmod(fd, uint32(perm.Perm()))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(pfd, tmp, pfd, name)
	}
	if err != nil {
		unix.Unlinkat(pfd, tmp, 0)
		return &fs.PathError{Op: "write", Path: rel, Err: err}
	}
	return nil
}

// Remove deletes rel, a file, a link (itself) or an empty directory;
// nothing there is fs.ErrNotExist.
func (r *Root) Remove(rel string) error {
	if err := check(rel); err != nil || rel == "." {
		return &fs.PathError{Op: "remove", Path: rel, Err: cmpErr(err, unix.EBUSY)}
	}
	d, name := split(rel)
	pfd, err := r.dir(d, false)
	if err != nil {
		return &fs.PathError{Op: "remove", Path: rel, Err: err}
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if err := unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &fs.PathError{Op: "remove", Path: rel, Err: err}
	}
	flags := 0
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		flags = unix.AT_REMOVEDIR
	}
	if err := unix.Unlinkat(pfd, name, flags); err != nil {
		return &fs.PathError{Op: "remove", Path: rel, Err: err}
	}
	return nil
}
