package atomicfile_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/lunad/lunad/internal/atomicfile"
)

// TestWrite: the target holds the new content whole, with the mode asked
// for, whether it existed or not, durable or not, the temporary file made
// beside it or in another directory; a failure leaves the target as it
// was; no temporary file is left either way.
func TestWrite(t *testing.T) {
	for _, tc := range []struct {
		name    string
		old     string // the target's content before; "" for none
		opt     func(dir string) atomicfile.Options
		write   func(io.Writer) error // nil: atomicfile.Write with "new"
		want    string                // the target's content after
		mode    fs.FileMode
		wantErr bool
	}{
		{name: "new file", opt: none, want: "new", mode: 0o600},
		{name: "replaced", old: "old", opt: none, want: "new", mode: 0o600},
		{name: "durable", old: "old", opt: func(string) atomicfile.Options { return atomicfile.Options{Durable: true} }, want: "new", mode: 0o600},
		{name: "mode", old: "old", opt: func(string) atomicfile.Options { return atomicfile.Options{Perm: 0o644} }, want: "new", mode: 0o644},
		{name: "temp dir", old: "old", opt: func(dir string) atomicfile.Options {
			return atomicfile.Options{TempDir: filepath.Join(dir, "tmp"), Durable: true}
		}, want: "new", mode: 0o600},
		{name: "streamed", old: "old", opt: none, write: func(w io.Writer) error {
			_, err := io.WriteString(w, "ne")
			if err == nil {
				_, err = io.WriteString(w, "w")
			}
			return err
		}, want: "new", mode: 0o600},
		{name: "a failed stream", old: "old", opt: none, write: func(w io.Writer) error {
			io.WriteString(w, "torn")
			return errors.New("out of data")
		}, want: "old", mode: 0o644, wantErr: true},
		{name: "a missing temp dir", old: "old", opt: func(dir string) atomicfile.Options {
			return atomicfile.Options{TempDir: filepath.Join(dir, "missing")}
		}, want: "old", mode: 0o644, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "tmp"), 0o755); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(dir, "f")
			if tc.old != "" {
				if err := os.WriteFile(target, []byte(tc.old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var err error
			if tc.write != nil {
				err = atomicfile.WriteFrom(target, tc.opt(dir), tc.write)
			} else {
				err = atomicfile.Write(target, []byte("new"), tc.opt(dir))
			}
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, want an error: %v", err, tc.wantErr)
			}
			b, rerr := os.ReadFile(target)
			if rerr != nil || string(b) != tc.want {
				t.Errorf("the target holds %q (%v), want %q", b, rerr, tc.want)
			}
			if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != tc.mode {
				t.Errorf("the target's mode: %v (%v), want %v", fi.Mode().Perm(), err, tc.mode)
			}
			for _, d := range []string{dir, filepath.Join(dir, "tmp")} {
				left, _ := filepath.Glob(filepath.Join(d, ".*"))
				if len(left) != 0 {
					t.Errorf("temporary files left: %v", left)
				}
			}
		})
	}
}

func none(string) atomicfile.Options { return atomicfile.Options{} }

// TestWriteReplacesSymlink: a symbolic link planted at the target is
// replaced by the new file; the file it points to is not written through.
func TestWriteReplacesSymlink(t *testing.T) {
	for _, durable := range []bool{false, true} {
		dir := t.TempDir()
		victim := filepath.Join(t.TempDir(), "victim")
		if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(dir, "HEAD")
		if err := os.Symlink(victim, target); err != nil {
			t.Fatal(err)
		}
		if err := atomicfile.Write(target, []byte("new"), atomicfile.Options{Durable: durable}); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(victim); string(b) != "precious" {
			t.Errorf("durable %v: written through the link: the victim holds %q", durable, b)
		}
		fi, err := os.Lstat(target)
		if err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("durable %v: the target is %v (%v), want a regular file", durable, fi.Mode(), err)
		}
		if b, _ := os.ReadFile(target); string(b) != "new" {
			t.Errorf("durable %v: the target holds %q", durable, b)
		}
	}
}

// TestWriteDanglingSymlink: a link to a path that does not exist is
// replaced too, and nothing is created where it pointed.
func TestWriteDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	elsewhere := filepath.Join(t.TempDir(), "created")
	target := filepath.Join(dir, "f")
	if err := os.Symlink(elsewhere, target); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(target, []byte("new"), atomicfile.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(elsewhere); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file was created where the link pointed: %v", err)
	}
	if fi, err := os.Lstat(target); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the target is %v (%v), want a regular file", fi.Mode(), err)
	}
}
