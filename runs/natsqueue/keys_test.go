package natsqueue

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/nats-io/nkeys"

	"github.com/lunad/lunad"
)

func accountSeed(t *testing.T) string {
	t.Helper()
	kp, err := nkeys.CreateAccount()
	if err != nil {
		t.Fatal(err)
	}
	seed, err := kp.Seed()
	if err != nil {
		t.Fatal(err)
	}
	return string(seed) + "\n"
}

// TestLoadKey: a key is made on first use, its seed in a 0600 file in a
// 0700 directory, and read back the same; a seed others may read, or a
// file that holds no user seed, is refused.
func TestLoadKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "luna")
	path := filepath.Join(dir, "queue-worker.nk")
	pub, err := PublicKey(path)
	if err != nil || !ValidPublicKey(pub) {
		t.Fatalf("PublicKey: %q, %v", pub, err)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, dir: 0o700} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: %v, %v; want mode %v", p, fi.Mode(), err, want)
		}
	}
	if again, err := PublicKey(path); err != nil || again != pub {
		t.Fatalf("read back %q, %v; want %q", again, err, pub)
	}
	for _, c := range []struct {
		name    string
		content string
		mode    os.FileMode
	}{
		{"readable by others", "", 0o644},
		{"not a seed", "not a seed\n", 0o600},
		{"an account seed", accountSeed(t), 0o600},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "key.nk")
			content := c.content
			if content == "" {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				content = string(b)
			}
			if err := os.WriteFile(p, []byte(content), c.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, c.mode); err != nil {
				t.Fatal(err)
			}
			if _, err := LoadKey(p); !errors.Is(err, lunad.ErrInvalid) {
				t.Fatalf("LoadKey: %v, want ErrInvalid", err)
			}
		})
	}
}
