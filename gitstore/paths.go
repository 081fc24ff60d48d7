package gitstore

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/lazyregexp"
)

// maxPathLen bounds an artifact path in bytes.
const maxPathLen = 1024

// maxComponentLen is the longest file or directory name the common file
// systems (ext4, APFS, NTFS) store.
const maxComponentLen = 255

var gitShortName = lazyregexp.New(`(?i)^git~[0-9]+$`)

// isDotGit reports whether a path component names .git on some filesystem
// git supports: any case, trailing spaces or dots (NTFS), the 8.3 short
// name GIT~1, or with Unicode characters HFS+ ignores (U+200C …).
func isDotGit(c string) bool {
	c = strings.Map(func(r rune) rune {
		switch {
		case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
			return -1
		}
		return r
	}, c)
	return strings.ToLower(strings.TrimRight(c, " .")) == ".git" || gitShortName().MatchString(c)
}

// checkPath validates an artifact path: a safe repository path (see
// checkRepoPath) outside lunad's own .luna directory.
func checkPath(p string) error {
	if err := checkRepoPath(p); err != nil {
		return err
	}
	if first, _, _ := strings.Cut(p, "/"); strings.EqualFold(strings.TrimRight(first, " ."), ".luna") {
		return fmt.Errorf("%w: path %q points into .luna, which holds lunad's metadata", lunad.ErrInvalid, p)
	}
	return nil
}

// checkRepoPath validates a path lunad may write in the working tree:
// relative, slash-separated, clean, valid UTF-8 without control
// characters, and outside .git in any spelling a filesystem might fold to it.
func checkRepoPath(p string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w: path %q %s", lunad.ErrInvalid, p, why)
	}
	switch {
	case p == "":
		return bad("is empty")
	case len(p) > maxPathLen:
		return bad(fmt.Sprintf("is longer than %d bytes", maxPathLen))
	case !utf8.ValidString(p):
		return bad("is not valid UTF-8")
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p) || (len(p) > 1 && p[1] == ':'):
		return bad("is absolute; give a path relative to the workspace root")
	case strings.Contains(p, `\`):
		return bad("contains a backslash; use / between directories")
	}
	for _, r := range p {
		if r == 0 || unicode.IsControl(r) {
			return bad("contains a NUL or control character")
		}
	}
	if path.Clean(p) != p {
		return bad(fmt.Sprintf("is not clean (did you mean %q?)", path.Clean(p)))
	}
	for _, c := range strings.Split(p, "/") {
		if len(c) > maxComponentLen {
			return fmt.Errorf("%w: path component %.40q… is %d bytes; file systems allow %d per file or directory name", lunad.ErrInvalid, c, len(c), maxComponentLen)
		}
		if c == ".." {
			return bad("leads out of the workspace with ..")
		}
		if isDotGit(c) {
			return bad("points into .git; artifacts cannot live in git's own directory")
		}
		if strings.Contains(c, ":") {
			return bad("contains a colon (an NTFS stream name on Windows)")
		}
		if c != strings.TrimRight(c, " .") {
			return bad("has a component ending in a space or dot")
		}
	}
	return nil
}

// typeByExt maps file extensions to artifact types.
var typeByExt = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain", ".rst": "text/x-rst",
	".go": "code/go", ".py": "code/python", ".js": "code/javascript", ".mjs": "code/javascript",
	".ts": "code/typescript", ".tsx": "code/typescript", ".jsx": "code/javascript", ".rs": "code/rust",
	".java": "code/java", ".c": "code/c", ".h": "code/c", ".cc": "code/cpp", ".cpp": "code/cpp",
	".hpp": "code/cpp", ".rb": "code/ruby", ".sh": "code/shell", ".lua": "code/lua",
	".toml": "config/toml", ".yaml": "config/yaml", ".yml": "config/yaml", ".json": "config/json",
	".ini": "config/ini", ".html": "text/html", ".css": "text/css", ".sql": "code/sql",
}

// TypeForPath returns the artifact type lunad infers from a file name:
// "text/markdown" for .md, "code/python" for .py, "text/plain" otherwise.
func TypeForPath(p string) string {
	if t, ok := typeByExt[strings.ToLower(path.Ext(p))]; ok {
		return t
	}
	return "text/plain"
}

// extForType returns the usual extension of an artifact type, for paths
// derived from a title.
func extForType(typ string) string {
	best := ""
	for ext, t := range typeByExt {
		if t == typ && (best == "" || len(ext) < len(best) || (len(ext) == len(best) && ext < best)) {
			best = ext
		}
	}
	if best == "" {
		return ".txt"
	}
	return best
}

var typePattern = lazyregexp.New(`^[a-z][a-z0-9-]*/[a-z0-9][a-z0-9.+-]*$`)

func checkType(t string) error {
	if !typePattern().MatchString(t) || len(t) > 100 {
		return fmt.Errorf("%w: type %q is not of the form kind/name (e.g. text/markdown, code/python)", lunad.ErrInvalid, t)
	}
	return nil
}

// slug turns a title into a file name stem.
func slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 60 {
			break
		}
	}
	s := strings.Trim(b.String(), "-")
	if s == "" {
		s = "untitled"
	}
	return s
}

// checkTitle validates an artifact's title: one line of at most maxTrailer
// bytes (it is written into commit subjects and the metadata file).
func checkTitle(t string) error {
	switch {
	case t == "":
		return fmt.Errorf("%w: a title is required", lunad.ErrInvalid)
	case len(t) > maxTrailer:
		return fmt.Errorf("%w: the title is %d bytes; the limit is %d (put longer text in the artifact's content)", lunad.ErrInvalid, len(t), maxTrailer)
	case strings.ContainsAny(t, "\r\n"):
		return fmt.Errorf("%w: the title must be one line; it contains a line break", lunad.ErrInvalid)
	case strings.TrimSpace(t) != t:
		return fmt.Errorf("%w: the title %q has leading or trailing spaces", lunad.ErrInvalid, t)
	}
	for _, r := range t {
		if unicode.IsControl(r) {
			return fmt.Errorf("%w: the title %q contains a control character", lunad.ErrInvalid, t)
		}
	}
	return nil
}
