package window

import "strings"

// tagWord is the word every tag of the compiled context starts with
// (<artifact ...>, </artifact>, <artifact_index>), so one escape covers all.
const tagWord = "artifact"

// Escape makes s safe inside a block: every "<" followed by backslashes,
// an optional "/" and "artifact" (in any case) gets one more backslash
// after the "<". So content never opens nor closes a block ("</artifact>"
// becomes "<\/artifact>"), and Unescape(Escape(s)) == s.
func Escape(s string) string {
	return rewrite(s, func(b *strings.Builder) { b.WriteByte('\\') }, 0)
}

// Unescape inverts Escape: it removes one backslash after the "<" of every
// "<\…artifact" and "<\…/artifact" sequence. A model quoting escaped
// content (a SEARCH block copied from a block) can be unescaped with it.
func Unescape(s string) string {
	return rewrite(s, func(*strings.Builder) {}, 1)
}

// rewrite copies s, calling mark after the "<" of each tag-like sequence
// that has at least drop backslashes, and dropping drop of them.
func rewrite(s string, mark func(*strings.Builder), drop int) string {
	i := strings.IndexByte(s, '<')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	last := 0
	for ; i >= 0; i = next(s, i+1) {
		n := tagLike(s[i+1:])
		if n < drop {
			continue
		}
		b.WriteString(s[last : i+1])
		mark(&b)
		last = i + 1 + drop
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func next(s string, from int) int {
	j := strings.IndexByte(s[from:], '<')
	if j < 0 {
		return -1
	}
	return from + j
}

// tagLike reports, for the text after a "<", the number of backslashes
// before an optional "/" and the word "artifact" (any case), or -1 when
// the text is not of that form.
func tagLike(t string) int {
	n := 0
	for n < len(t) && t[n] == '\\' {
		n++
	}
	r := t[n:]
	if len(r) > 0 && r[0] == '/' {
		r = r[1:]
	}
	if len(r) < len(tagWord) {
		return -1
	}
	for k := range len(tagWord) {
		if c := r[k]; c|0x20 != tagWord[k] { // ASCII case folding
			return -1
		}
	}
	return n
}
