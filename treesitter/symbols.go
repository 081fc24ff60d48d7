package treesitter

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// SymbolFingerprint is the fingerprint of the definitions of f with this
// name and container (headings or code symbols, as heading says): the
// fingerprint itself for one definition, a hash of all of them, in file
// order, for overloads. ok is false when f has no such definition.
func (f *File) SymbolFingerprint(name, container string, heading bool) (fp string, ok bool) {
	var fps []string
	for _, s := range f.Symbols {
		if s.Name == name && s.Container == container && (s.Kind == "heading") == heading {
			fps = append(fps, s.Fingerprint)
		}
	}
	switch len(fps) {
	case 0:
		return "", false
	case 1:
		return fps[0], true
	}
	sum := sha256.Sum256([]byte(strings.Join(fps, "\n")))
	return hex.EncodeToString(sum[:8]), true
}

// SymbolAt returns the innermost definition whose span contains the
// 1-based line, if any.
func (f *File) SymbolAt(line int) (Symbol, bool) {
	var best Symbol
	found := false
	for _, s := range f.Symbols {
		end := s.Span.End.Line
		if s.Span.End.Column == 0 && end > s.Span.Start.Line {
			end-- // the span ends at the start of the next line
		}
		if s.Span.Start.Line+1 <= line && line <= end+1 {
			if !found || s.Span.End.Byte-s.Span.Start.Byte < best.Span.End.Byte-best.Span.Start.Byte {
				best, found = s, true
			}
		}
	}
	return best, found
}
