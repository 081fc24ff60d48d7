package tree

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

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
	pfd, name, err := r.parent("lstat", rel, false, nil)
	if err != nil {
		return Info{}, err
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
	pfd, name, err := r.parent("readlink", rel, false, unix.EINVAL)
	if err != nil {
		return "", err
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
