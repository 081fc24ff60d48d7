package gitstore

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// mountTmpfs mounts a small tmpfs (the tests run as root, as CI does) so
// that a full disk and a read-only filesystem are real.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("this test mounts a tmpfs and must run as root (CI does)")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

func TestFullDisk(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(mountTmpfs(t, "2m"), "ws")
	s, _, err := Init(dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("a\n")})
	if err != nil {
		t.Fatal(err)
	}
	checkRepo(t, s)
	head := git(t, dir, "rev-parse", "HEAD")
	filler := filepath.Join(filepath.Dir(dir), "filler")
	exec.Command("dd", "if=/dev/zero", "of="+filler, "bs=64k", "count=100").Run() // fills it
	big := strings.Repeat("line of text\n", 20000)
	_, err = s.Edit(ctx, r.Artifact.ID, lunad.Change{}, func([]byte) ([]byte, map[string]string, error) { return []byte(big), nil, nil })
	if err == nil || !strings.Contains(err.Error(), "disk is full") {
		t.Fatalf("edit on a full disk: %v", err)
	}
	if h := git(t, dir, "rev-parse", "HEAD"); h != head {
		t.Fatal("HEAD moved on a full disk")
	}
	os.Remove(filler)
	git(t, dir, "fsck", "--strict", "--no-progress")
	if _, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{}, replace("a", "b")); err != nil {
		t.Fatalf("edit after freeing space: %v", err)
	}
	checkRepo(t, s)
}

func TestReadOnlyWorkspace(t *testing.T) {
	ctx := context.Background()
	mnt := mountTmpfs(t, "4m")
	dir := filepath.Join(mnt, "ws")
	s, _, err := Init(dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	r, _ := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("a\n")})
	s.Close()
	if out, err := exec.Command("mount", "-o", "remount,ro", mnt).CombinedOutput(); err != nil {
		t.Fatalf("remount ro: %v %s", err, out)
	}
	defer exec.Command("mount", "-o", "remount,rw", mnt).Run()
	s, err = Open(dir, testOptions())
	if err != nil {
		t.Fatalf("open read-only workspace for reading: %v", err)
	}
	defer s.Close()
	if b, _, err := s.Read(ctx, r.Artifact.ID, ""); err != nil || string(b) != "a\n" {
		t.Fatalf("read: %q %v", b, err)
	}
	_, err = s.Edit(ctx, r.Artifact.ID, lunad.Change{}, replace("a", "b"))
	if err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("edit on read-only fs: %v", err)
	}
	git(t, dir, "fsck", "--strict", "--no-progress")
}
