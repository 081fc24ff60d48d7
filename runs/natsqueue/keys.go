package natsqueue

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/nats-io/nkeys"

	"github.com/lunad/lunad"
)

// LoadKey reads the signing key whose seed is in the file at path, and
// creates it there (a new nkeys user key, the file 0600, its directory
// 0700) when the file does not exist. A file that others may read is
// refused: the seed is the key.
func LoadKey(path string) (nkeys.KeyPair, error) {
	kp, err := readKey(path)
	if errors.Is(err, fs.ErrNotExist) {
		return createKey(path)
	}
	return kp, err
}

// ExistingPublicKey is the public key ("U…") of the signing key at path,
// which it never creates: an error wrapping fs.ErrNotExist when there is
// no file, else LoadKey's errors for a file it would refuse.
func ExistingPublicKey(path string) (string, error) {
	kp, err := readKey(path)
	if err != nil {
		return "", err
	}
	return kp.PublicKey()
}

// readKey is LoadKey on a file that exists (fs.ErrNotExist, unwrapped,
// when it does not).
func readKey(path string) (nkeys.KeyPair, error) {
	seed, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w", path, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w", path, err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%w: signing key %s may be read by others (mode %v): chmod 600 it, and make a new key if others did read it", lunad.ErrInvalid, path, fi.Mode().Perm())
	}
	kp, err := nkeys.FromSeed(bytes.TrimSpace(seed))
	if err != nil {
		return nil, fmt.Errorf("%w: signing key %s does not hold an nkeys seed (%v): remove it to make a new key", lunad.ErrInvalid, path, err)
	}
	if pub, err := kp.PublicKey(); err != nil || !nkeys.IsValidPublicUserKey(pub) {
		return nil, fmt.Errorf("%w: signing key %s is not an nkeys user key (seed \"SU…\"): remove it to make a new key", lunad.ErrInvalid, path)
	}
	return kp, nil
}

// createKey makes a new user key and writes its seed to path, which must
// not exist (another process making it at once wins, and its key is read).
func createKey(path string) (nkeys.KeyPair, error) {
	kp, err := nkeys.CreateUser()
	if err != nil {
		return nil, err
	}
	seed, err := kp.Seed()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("signing key %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return LoadKey(path)
	}
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w", path, err)
	}
	_, err = f.Write(append(seed, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("signing key %s: %w", path, err)
	}
	return kp, nil
}

// PublicKey is the public key ("U…") of the signing key at path, created
// when missing (LoadKey): what the other side registers.
func PublicKey(path string) (string, error) {
	kp, err := LoadKey(path)
	if err != nil {
		return "", err
	}
	return kp.PublicKey()
}

// ValidPublicKey reports whether s is an nkeys user public key ("U…"),
// as a registered key must be.
func ValidPublicKey(s string) bool { return nkeys.IsValidPublicUserKey(s) }
