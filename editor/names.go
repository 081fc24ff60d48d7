package editor

import (
	"path"
	"strings"
)

// PatchPaths returns the file paths a unified diff's "--- "/"+++ " headers
// name before its first hunk, without timestamps and without /dev/null (a
// created or deleted file's other side). Git's a/ and b/ prefixes are kept:
// SamePath accepts them.
func PatchPaths(patch string) []string {
	lines := strings.Split(patch, "\n")
	var out []string
	for i := 0; i < len(lines) && !strings.HasPrefix(lines[i], "@@"); i++ {
		if !isFileHeader(lines, i) {
			continue
		}
		for _, l := range lines[i : i+2] {
			p, _, _ := strings.Cut(l[4:], "\t")
			if p = strings.TrimSpace(strings.TrimRight(p, "\r")); p != "" && p != "/dev/null" {
				out = append(out, p)
			}
		}
		i++
	}
	return out
}

// SamePath reports whether a path written in an edit (a SEARCH/REPLACE
// block's file line, a patch header) names the artifact at artifactPath:
// the same once cleaned, or one ending in the other at a directory boundary
// — a model often writes only the file name, or the path from its own root
// (git's a/ and b/ prefixes included). A path that climbs with ".." names
// the artifact only if it cleans to exactly its path.
func SamePath(named, artifactPath string) bool {
	named = strings.TrimPrefix(strings.ReplaceAll(named, `\`, "/"), "./")
	clean := path.Clean(named)
	if clean == artifactPath {
		return true
	}
	for _, c := range strings.Split(named, "/") {
		if c == ".." {
			return false
		}
	}
	return strings.HasSuffix(clean, "/"+artifactPath) || strings.HasSuffix(artifactPath, "/"+strings.TrimPrefix(clean, "/"))
}
