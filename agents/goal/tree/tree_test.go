package tree

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// resolutions runs f with openat2 and with the O_NOFOLLOW walk a kernel
// without openat2 gets.
func resolutions(t *testing.T, f func(t *testing.T)) {
	for _, walk := range []bool{false, true} {
		name := "openat2"
		if walk {
			name = "walk"
		}
		t.Run(name, func(t *testing.T) {
			was := noOpenat2.Load()
			noOpenat2.Store(walk)
			t.Cleanup(func() { noOpenat2.Store(was) })
			f(t)
		})
	}
}

// fixture is a worktree with a link to a directory outside, a link to a
// file outside, a dangling link, a FIFO and a file hard-linked to one
// outside; outside holds "secret".
func fixture(t testing.TB) (*Root, string, string) {
	t.Helper()
	dir, outside := t.TempDir(), t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(outside, "secret"), []byte("secret\n"), 0o600))
	must(os.MkdirAll(filepath.Join(dir, "src"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "src/a.txt"), []byte("a\n"), 0o644))
	must(os.Symlink(outside, filepath.Join(dir, "out")))
	must(os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "s.txt")))
	must(os.Symlink(filepath.Join(outside, "nowhere"), filepath.Join(dir, "dangling")))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	must(os.Link(filepath.Join(outside, "secret"), filepath.Join(dir, "hard.txt")))
	r, err := Open(dir)
	must(err)
	t.Cleanup(func() { r.Close() })
	return r, dir, outside
}

// unchanged fails t if outside is not as fixture made it.
func unchanged(t testing.TB, outside string) {
	t.Helper()
	entries, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "secret" {
		t.Fatalf("outside now holds %v", entries)
	}
	if b, err := os.ReadFile(filepath.Join(outside, "secret")); err != nil || string(b) != "secret\n" {
		t.Fatalf("outside/secret is now %q, %v", b, err)
	}
}

func TestReadFile(t *testing.T) {
	resolutions(t, func(t *testing.T) {
		r, _, outside := fixture(t)
		for _, c := range []struct {
			name, rel string
			limit     int64
			want      string
			err       error
		}{
			{name: "a file", rel: "src/a.txt", limit: 10, want: "a\n"},
			{name: "over the limit", rel: "src/a.txt", limit: 1, err: ErrTooLarge},
			{name: "a link to a file outside", rel: "s.txt", limit: 100, err: ErrSymlink},
			{name: "through a link to a directory outside", rel: "out/secret", limit: 100, err: ErrSymlink},
			{name: "a dangling link", rel: "dangling", limit: 100, err: ErrSymlink},
			{name: "a FIFO", rel: "fifo", limit: 100, err: ErrNotRegular},
			{name: "a directory", rel: "src", limit: 100, err: ErrNotRegular},
			{name: "dot-dot", rel: "../x", limit: 100, err: ErrBadPath},
			{name: "absolute", rel: "/etc/passwd", limit: 100, err: ErrBadPath},
			{name: "unclean", rel: "src/../s.txt", limit: 100, err: ErrBadPath},
			{name: "missing", rel: "nope", limit: 100, err: fs.ErrNotExist},
		} {
			t.Run(c.name, func(t *testing.T) {
				b, _, err := r.ReadFile(c.rel, c.limit)
				if c.err != nil {
					if !errors.Is(err, c.err) {
						t.Fatalf("%q, %v; want %v", b, err, c.err)
					}
					return
				}
				if err != nil || string(b) != c.want {
					t.Fatalf("%q, %v; want %q", b, err, c.want)
				}
			})
		}
		unchanged(t, outside)
	})
}

func TestWriteFile(t *testing.T) {
	resolutions(t, func(t *testing.T) {
		for _, c := range []struct {
			name, rel string
			err       error
		}{
			{name: "a file", rel: "src/a.txt"},
			{name: "a new file in new directories", rel: "new/deep/b.txt"},
			{name: "over a link to a file outside: the link is replaced", rel: "s.txt"},
			{name: "over a file hard-linked outside: the name is replaced", rel: "hard.txt"},
			{name: "over a FIFO: it is replaced", rel: "fifo"},
			{name: "through a link to a directory outside", rel: "out/secret", err: ErrSymlink},
			{name: "through a link, a new file", rel: "out/new", err: ErrSymlink},
			{name: "through a dangling link", rel: "dangling/x", err: ErrSymlink},
			{name: "over a directory", rel: "src", err: syscall.EISDIR},
			{name: "dot-dot", rel: "../x", err: ErrBadPath},
		} {
			t.Run(c.name, func(t *testing.T) {
				r, dir, outside := fixture(t)
				err := r.WriteFile(c.rel, []byte("new\n"), 0o640)
				if c.err != nil {
					if !errors.Is(err, c.err) {
						t.Fatalf("%v; want %v", err, c.err)
					}
				} else {
					if err != nil {
						t.Fatal(err)
					}
					info, err := os.Lstat(filepath.Join(dir, c.rel))
					if b, _ := os.ReadFile(filepath.Join(dir, c.rel)); err != nil || string(b) != "new\n" || !info.Mode().IsRegular() || info.Mode().Perm() != 0o640 {
						t.Fatalf("%s is %q (%v, %v)", c.rel, b, info, err)
					}
				}
				unchanged(t, outside)
				if m, _ := filepath.Glob(filepath.Join(dir, "*", ".lunad-tmp-*")); len(m) > 0 {
					t.Errorf("temporary files left: %v", m)
				}
			})
		}
	})
}

func TestRemoveAndLstat(t *testing.T) {
	resolutions(t, func(t *testing.T) {
		r, dir, outside := fixture(t)
		if info, err := r.Lstat("out"); err != nil || info.Mode&fs.ModeSymlink == 0 {
			t.Fatalf("Lstat(out) = %v, %v; want a link", info, err)
		}
		if _, err := r.Lstat("out/secret"); !errors.Is(err, ErrSymlink) {
			t.Fatalf("Lstat(out/secret): %v; want ErrSymlink", err)
		}
		if err := r.Remove("out/secret"); !errors.Is(err, ErrSymlink) {
			t.Fatalf("Remove(out/secret): %v; want ErrSymlink", err)
		}
		if target, err := r.Readlink("s.txt"); err != nil || target != filepath.Join(outside, "secret") {
			t.Fatalf("Readlink(s.txt) = %q, %v", target, err)
		}
		for _, rel := range []string{"out", "s.txt", "hard.txt", "fifo", "src/a.txt", "src"} {
			if err := r.Remove(rel); err != nil {
				t.Fatalf("Remove(%s): %v", rel, err)
			}
		}
		if err := r.Remove("src"); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Remove(src) again: %v; want ErrNotExist", err)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 || entries[0].Name() != "dangling" {
			t.Fatalf("left %v", entries)
		}
		unchanged(t, outside)
	})
}

func TestWalk(t *testing.T) {
	resolutions(t, func(t *testing.T) {
		r, _, _ := fixture(t)
		var got []string
		err := r.Walk(".", 100, func(rel string, info Info) error {
			got = append(got, rel+" "+info.Mode.Type().String())
			return nil
		})
		want := []string{". d---------", "dangling L---------", "fifo p---------", "hard.txt ----------", "out L---------", "s.txt L---------", "src d---------", "src/a.txt ----------"}
		if err != nil || len(got) != len(want) {
			t.Fatalf("%v, %v; want %v", got, err, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%v; want %v", got, want)
			}
		}
		if err := r.Walk(".", 3, func(string, Info) error { return nil }); !errors.Is(err, ErrTooMany) {
			t.Fatalf("a walk past its bound: %v; want ErrTooMany", err)
		}
	})
}

// FuzzPaths: whatever path lunad is given, reading, writing and removing
// it never changes anything outside the worktree.
func FuzzPaths(f *testing.F) {
	for _, s := range []string{"src/a.txt", "out/secret", "s.txt", "hard.txt", "../x", "/etc/passwd", "dangling/x", "fifo", ".", "out", "src/../out/secret", "a//b", "new/x"} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, rel string, op uint8) {
		r, _, outside := fixture(t)
		switch op % 4 {
		case 0:
			r.ReadFile(rel, 1<<10)
		case 1:
			r.WriteFile(rel, []byte("x"), 0o644)
		case 2:
			r.Remove(rel)
		case 3:
			r.Walk(rel, 100, func(string, Info) error { return nil })
		}
		unchanged(t, outside)
	})
}
