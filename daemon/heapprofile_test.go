package daemon

import (
	"bytes"
	"compress/gzip"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteHeapProfile(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, path string
		wantFile   bool
		wantLog    string
	}{
		{"unset: nothing written", "", false, ""},
		{"a path: a gzipped pprof profile there", filepath.Join(dir, "heap.pprof"), true, "heap profile written"},
		{"an unwritable path: logged, naming the variable", filepath.Join(dir, "missing", "heap.pprof"), false, heapProfileEnv},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log bytes.Buffer
			writeHeapProfile(func(k string) string {
				if k == heapProfileEnv {
					return tt.path
				}
				return ""
			}, slog.New(slog.NewTextHandler(&log, nil)))
			if !strings.Contains(log.String(), tt.wantLog) {
				t.Errorf("log %q does not contain %q", log.String(), tt.wantLog)
			}
			if tt.path == "" {
				if log.Len() != 0 {
					t.Errorf("logged %q with the variable unset", log.String())
				}
				return
			}
			f, err := os.Open(tt.path)
			if !tt.wantFile {
				if err == nil {
					f.Close()
					t.Errorf("%s was written", tt.path)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			z, err := gzip.NewReader(f)
			if err != nil {
				t.Fatalf("the profile is not gzipped: %v", err)
			}
			b, err := io.ReadAll(z)
			if err != nil || !bytes.Contains(b, []byte("inuse_space")) {
				t.Errorf("the profile (%d bytes, err %v) has no inuse_space sample type", len(b), err)
			}
		})
	}
}
