package procagent

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// fileSum is the hash of a file's content, valid while its size and
// modification time are unchanged.
type fileSum struct {
	size int64
	mod  time.Time
	sum  [sha256.Size]byte
}

// Version identifies the agent's code: "process:" and 12 hex digits of a
// hash over the command's arguments and the content of the workspace
// files they name (see the package documentation). It reads the files
// again when they change.
func (a *Agent) Version() string {
	h := sha256.New()
	for i, arg := range a.argv {
		writeField(h, "arg", []byte(arg))
		if path, ok := a.workspaceFile(i, arg); ok {
			if sum, ok := a.fileSum(path); ok {
				writeField(h, "file", sum[:])
			} else {
				writeField(h, "unreadable", nil)
			}
		}
	}
	return "process:" + hex.EncodeToString(h.Sum(nil))[:12]
}

// writeField writes a tagged, length-prefixed field: no two argument
// lists hash alike.
func writeField(h hash.Hash, tag string, b []byte) {
	io.WriteString(h, tag)
	h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(b))))
	h.Write(b)
}

// workspaceFile returns the path of argument i when it names a regular
// file inside the workspace. The command (i = 0) counts only when it
// holds a slash: exec looks a bare name up on PATH.
func (a *Agent) workspaceFile(i int, arg string) (string, bool) {
	if arg == "" || i == 0 && !strings.Contains(arg, "/") {
		return "", false
	}
	path := arg
	if !filepath.IsAbs(path) {
		path = filepath.Join(a.root, path)
	}
	rel, err := filepath.Rel(a.root, filepath.Clean(path))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	return path, true
}

// fileSum returns the hash of path's content, read again only when its
// size or modification time changed.
func (a *Agent) fileSum(path string) ([sha256.Size]byte, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return [sha256.Size]byte{}, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if c, ok := a.files[path]; ok && c.size == fi.Size() && c.mod.Equal(fi.ModTime()) {
		return c.sum, true
	}
	f, err := os.Open(path)
	if err != nil {
		return [sha256.Size]byte{}, false
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return [sha256.Size]byte{}, false
	}
	c := fileSum{size: fi.Size(), mod: fi.ModTime()}
	h.Sum(c.sum[:0])
	a.files[path] = c
	return c.sum, true
}
