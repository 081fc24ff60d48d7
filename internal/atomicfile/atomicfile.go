package atomicfile

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Options say how Write and WriteFrom replace a file.
type Options struct {
	// TempDir is where the temporary file is made: "" for the target's
	// directory, else a directory on the target's filesystem (a rename
	// does not cross filesystems).
	TempDir string
	// Durable fsyncs the data before the rename and the target's
	// directory after it, so that the new content survives a crash once
	// the call returns.
	Durable bool
	// Perm is the file's mode; 0 keeps the temporary file's 0600.
	Perm fs.FileMode
}

// Write replaces the file name with data, as the package says. Errors
// are those of making, writing, syncing and renaming the temporary file,
// which is removed whenever the rename has not happened, the target then
// being left as it was; or, once renamed, of syncing the directory
// (durable only), when the new content is in place but may not survive a
// crash.
func Write(name string, data []byte, o Options) error {
	return WriteFrom(name, o, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFrom is Write with the content written by write, for content
// produced as a stream; write's error is returned as is, and the target is
// then left as it was.
func WriteFrom(name string, o Options, write func(io.Writer) error) error {
	dir := o.TempDir
	if dir == "" {
		dir = filepath.Dir(name)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return err
	}
	err = write(tmp)
	if err == nil && o.Perm != 0 {
		err = tmp.Chmod(o.Perm)
	}
	if err == nil && o.Durable {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if o.Durable {
		return Sync(filepath.Dir(name))
	}
	return nil
}

// Sync fsyncs the file or directory name: for a directory, the names
// created, renamed or removed in it become durable.
func Sync(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
