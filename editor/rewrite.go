package editor

import "bytes"

// Rewrite replaces the whole content with newContent, which must be UTF-8
// text (ErrBinary, ErrInvalidUTF8); old is not checked. The new content is
// taken literally: if old used CRLF and newContent uses LF, the result uses
// LF (nothing is converted), and a final newline is neither added nor
// removed. Identical content is not an error. The one Match (tier
// "rewrite") spans all of old's lines.
func Rewrite(old, newContent []byte) (Result, error) {
	if err := validate("new content", newContent); err != nil {
		return Result{}, err
	}
	n := bytes.Count(old, []byte{'\n'})
	if len(old) > 0 && old[len(old)-1] != '\n' {
		n++
	}
	out := append([]byte{}, newContent...)
	return Result{Content: out, Matches: []Match{{Block: 0, Tier: TierRewrite, StartLine: 1, EndLine: n}}}, nil
}
