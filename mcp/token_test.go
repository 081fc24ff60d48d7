package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteToken: each token is new and random, written alone with a
// newline to a 0600 file in a 0700 directory, and Remove deletes it; a
// file of the same name left by a dead server is replaced; a directory
// others can enter is refused.
func TestWriteToken(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mcp")
	a, err := WriteToken(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(a.File); err != nil || string(b) != a.Secret+"\n" || len(a.Secret) != 64 {
		t.Fatalf("%s: %q %v, want the 64-digit token and a newline", a.File, b, err)
	}
	fi, _ := os.Stat(a.File)
	di, _ := os.Stat(dir)
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Errorf("file mode %v, directory mode %v; want 0600 and 0700", fi.Mode(), di.Mode())
	}
	b, err := WriteToken(dir) // same process ID: a dead server's file
	if err != nil {
		t.Fatal(err)
	}
	if b.Secret == a.Secret || b.File != a.File {
		t.Errorf("second token %+v, first %+v: want a new secret in the same file", b, a)
	}
	if err := b.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(b.File); !os.IsNotExist(err) {
		t.Errorf("after Remove: %v", err)
	}

	open := filepath.Join(t.TempDir(), "open")
	os.Mkdir(open, 0o755)
	os.Chmod(open, 0o755)
	if _, err := WriteToken(open); err == nil || !strings.Contains(err.Error(), "0700") {
		t.Errorf("WriteToken in a directory others can enter = %v, want it refused", err)
	}
}

// FuzzBearerToken: whatever the header, a token is returned only with the
// Bearer scheme, is not empty and holds no blank.
func FuzzBearerToken(f *testing.F) {
	for _, s := range []string{"", "Bearer", "Bearer ", "Bearer abc", "bearer  abc", "Basic abc", "Bearer a b", "Bearer\tabc", "BEARER x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		tok, ok := bearerToken(h)
		if !ok {
			if tok != "" {
				t.Fatalf("%q: refused but returned %q", h, tok)
			}
			return
		}
		if tok == "" || strings.ContainsAny(tok, " \t") || !strings.EqualFold(h[:7], "bearer ") || !strings.HasSuffix(h, tok) {
			t.Fatalf("%q: token %q", h, tok)
		}
	})
}
