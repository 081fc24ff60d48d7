package mcp

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/lunad/lunad/internal/unixsock"
)

// Token is the bearer token a Serve requires of every request, and the
// file it is kept in for the owner's clients.
type Token struct {
	// Secret is the token: 32 random bytes in hex.
	Secret string
	// File holds Secret and a newline: http-<pid>.token in the directory
	// given to WriteToken, mode 0600.
	File string
}

// WriteToken makes a new random token and writes it to a new file in dir,
// which is made with mode 0700 if missing and must be a directory of the
// caller's user that nobody else can enter (else an error saying so):
// other local accounts can reach a loopback port but not the file. The
// file is created exclusively (O_EXCL, not through a symbolic link) with
// mode 0600; a file of the same name, left by a server that died whose
// process ID is reused, is replaced. Remove deletes it.
func WriteToken(dir string) (Token, error) {
	if err := unixsock.PrivateDir(dir); err != nil {
		return Token{}, fmt.Errorf("MCP token: %w", err)
	}
	var b [32]byte
	rand.Read(b[:])
	t := Token{Secret: hex.EncodeToString(b[:]), File: filepath.Join(dir, "http-"+strconv.Itoa(os.Getpid())+".token")}
	f, err := os.OpenFile(t.File, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, fs.ErrExist) {
		// Only this user can write in dir: a dead server of ours left it.
		if err := os.Remove(t.File); err != nil {
			return Token{}, fmt.Errorf("MCP token: %w", err)
		}
		f, err = os.OpenFile(t.File, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	}
	if err != nil {
		return Token{}, fmt.Errorf("MCP token: %w", err)
	}
	_, err = f.WriteString(t.Secret + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(t.File)
		return Token{}, fmt.Errorf("MCP token: %w", err)
	}
	return t, nil
}

// Remove deletes the token's file.
func (t Token) Remove() error {
	if err := os.Remove(t.File); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("MCP token: %w", err)
	}
	return nil
}
