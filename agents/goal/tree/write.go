package tree

import (
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

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

// WriteFile makes rel a regular file holding data with permissions perm,
// making the missing directories on its way: a new file is written under
// a temporary name in rel's directory and renamed over rel, so whatever
// rel was (a link, a file with other names) is replaced, never written
// through. A directory at rel is an error.
func (r *Root) WriteFile(rel string, data []byte, perm fs.FileMode) error {
	pfd, name, err := r.parent("write", rel, true, unix.EISDIR)
	if err != nil {
		return err
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
	pfd, name, err := r.parent("remove", rel, false, unix.EBUSY)
	if err != nil {
		return err
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
