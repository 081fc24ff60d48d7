package treesitter

import (
	"crypto/sha256"
	"encoding/hex"
)

// Fingerprint is the fingerprint of a definition's source: the first 16 hex
// digits of the SHA-256 of src with whitespace runs collapsed to one space
// and trimmed (comments kept). See the package doc.
func Fingerprint(src []byte) string {
	h := sha256.New()
	buf := make([]byte, 0, 512)
	space, started := false, false
	for _, b := range src {
		switch b {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			space = true
			continue
		}
		if space && started {
			buf = append(buf, ' ')
		}
		space, started = false, true
		buf = append(buf, b)
		if len(buf) >= 4096 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	sum := h.Sum(nil)
	return hex.EncodeToString(sum[:8])
}
