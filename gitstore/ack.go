package gitstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lunad/lunad"
)

// trSymbol is the Extra key (Luna-Symbol trailer) naming the symbol an ack
// is about.
const trSymbol = "Symbol"

// maxSymbol caps the length of an acknowledged symbol's name in bytes.
const maxSymbol = 200

// Ack records that artifact ref's references (all of them, or only those to
// symbol when symbol is non-empty) were reviewed and are still right: one
// commit that changes no file, with Luna-Op: ack and, for a symbol, a
// Luna-Symbol trailer (Version.Extra["Symbol"]). Returns ErrNotFound for an
// unknown artifact and ErrInvalid for a bad symbol.
//
// Like every operation on an existing artifact, changes a person left in
// the file are committed first as the human's version, an idempotency key
// that was used already for the same ack returns that write's result (and
// for any other request is ErrConflict), and a base version
// that moved on fails with ErrConflict. The ack commit has the same tree
// as its parent. Acks are not changes for Undo and Redo: they are skipped
// on both stacks and cannot be undone.
func (s *Store) Ack(ctx context.Context, ref, symbol string, ch lunad.Change) (lunad.Result, error) {
	symbol, err := CheckSymbol(symbol)
	if err != nil {
		return lunad.Result{}, err
	}
	if err := validateChange(ch); err != nil {
		return lunad.Result{}, err
	}
	if v, ok := ch.Extra[trSymbol]; ok && v != symbol {
		return lunad.Result{}, fmt.Errorf("%w: the %s trailer is set by Ack itself; pass the symbol as Ack's symbol argument, not in lunad.Change.Extra", lunad.ErrInvalid, trSymbol)
	}
	var extra map[string]string
	if len(ch.Extra) > 0 || symbol != "" {
		extra = make(map[string]string, len(ch.Extra)+1)
		for k, v := range ch.Extra {
			extra[k] = v
		}
		if symbol != "" {
			extra[trSymbol] = symbol
		}
	}
	w := newWrite(lunad.OpAck, ch, []byte(symbol))
	return s.submit(ctx, func(t *txn) (lunad.Result, error) {
		id, m, replayed, err := t.begin(ref, w)
		if err != nil || replayed != nil {
			return deref(replayed), err
		}
		what := "ack " + m.Path
		if symbol != "" {
			what += " symbol " + symbol
		}
		// No changes: the commit keeps its parent's tree.
		return t.commitOp(id, w, what, extra, 0, nil)
	})
}

// CheckSymbol validates the symbol an ack names and returns it without
// surrounding spaces; a bad one is ErrInvalid, saying what to change. ""
// (no symbol) is valid: the ack covers every reference of the artifact.
func CheckSymbol(symbol string) (string, error) {
	if symbol == "" {
		return "", nil
	}
	if !utf8.ValidString(symbol) {
		off := 0
		for off < len(symbol) {
			r, n := utf8.DecodeRuneInString(symbol[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return "", fmt.Errorf("%w: symbol is not valid UTF-8 (byte %d); pass the symbol's name as UTF-8 text", lunad.ErrInvalid, off)
	}
	for _, r := range symbol {
		if unicode.IsControl(r) {
			return "", fmt.Errorf("%w: symbol %q contains the control character %U; pass the symbol's name on one line, without newlines or other control characters", lunad.ErrInvalid, symbol, r)
		}
	}
	symbol = strings.TrimSpace(symbol)
	if symbol == "" {
		return "", fmt.Errorf("%w: symbol is blank; pass a symbol's name, or no symbol to acknowledge all of the artifact's references", lunad.ErrInvalid)
	}
	if len(symbol) > maxSymbol {
		return "", fmt.Errorf("%w: symbol is %d bytes; the limit is %d (pass the symbol's name, not its text)", lunad.ErrInvalid, len(symbol), maxSymbol)
	}
	return symbol, nil
}

// CacheDir is a directory for caches derived from the repository (other
// packages keep their indexes there); anything in it may be deleted at any
// time. It is <git dir>/luna/cache, created (mode 0700) when missing;
// should that fail, the error shows when the directory is used.
func (s *Store) CacheDir() string {
	dir := filepath.Join(s.lunaDir, "cache")
	_ = os.MkdirAll(dir, 0o700)
	return dir
}
