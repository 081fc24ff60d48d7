package gitstore

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestIndexCacheWriteDoesNotCopy: write streams the patched chunks to the
// lock file instead of joining them into a new buffer (an index of the
// 10,000-artifact workspace is 2 MB: joining it was a sixth of a one-shot
// edit's page faults), and the next read still returns the written bytes,
// trusted.
func TestIndexCacheWriteDoesNotCopy(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<17) // 2 MiB
	tests := []struct {
		name   string
		chunks [][]byte
	}{
		{"one chunk", [][]byte{big}},
		{"runs around a patched entry", [][]byte{big[:1<<20], []byte("patched entry"), big[1<<20:]}},
		{"many small chunks", func() [][]byte {
			var cs [][]byte
			for i := 0; i < len(big); i += 1000 {
				cs = append(cs, big[i:min(i+1000, len(big))])
			}
			return cs
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gitDir := t.TempDir()
			lock, err := lockIndex(gitDir)
			if err != nil {
				t.Fatal(err)
			}
			var c indexCache
			defer c.drop()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if err := c.write(gitDir, lock, tt.chunks); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			if n := after.TotalAlloc - before.TotalAlloc; n > 256<<10 {
				t.Errorf("write allocated %d bytes for a %d-byte index, want ≤ 256 KiB (no copy)", n, len(big))
			}
			want := bytes.Join(tt.chunks, nil)
			got, err := os.ReadFile(filepath.Join(gitDir, "index"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf(".git/index has %d bytes, want the %d written", len(got), len(want))
			}
			b, trusted, err := c.read(gitDir)
			if err != nil || !trusted || !bytes.Equal(b, want) {
				t.Fatalf("read after write = %d bytes, trusted %v, err %v; want the written bytes, trusted", len(b), trusted, err)
			}
			if b2, _, _ := c.read(gitDir); &b2[0] != &b[0] {
				t.Error("a second read joined the chunks again")
			}
		})
	}
}
