package tools

import (
	"fmt"
	"path"
	"strings"
)

// Who writes a file is decided by its path — never by the type a model
// declares — as the workspace's index tells a document from code: prose
// is Markdown, reStructuredText and plain text by their extensions
// (.md, .markdown, .mdx, .rst, .txt, …); everything else — code,
// configuration, scripts, files without an extension — is the coder's.
// A document in a directory or with a name starting with a dot
// (.github/…, .gitlab/…, .env.txt) is configuration too: CI, editors and
// tools read those places.

// proseExt are the extensions of documents, the writer's.
var proseExt = map[string]bool{
	".md": true, ".markdown": true, ".mdx": true, ".rst": true, ".txt": true, ".adoc": true, ".asciidoc": true,
}

// RoleFor is the worker who writes the file at p (a workspace-relative
// slash path): Writer for a document outside dot-directories, else
// Coder. Extensions and names compare ignoring case.
func RoleFor(p string) string {
	if !proseExt[strings.ToLower(path.Ext(p))] {
		return Coder
	}
	for _, seg := range strings.Split(p, "/") {
		if strings.HasPrefix(seg, ".") {
			return Coder
		}
	}
	return Writer
}

// mayWrite refuses a write by the set's role of the artifact id at p
// (a new one: id is "") when the path is not the role's (RoleFor),
// whatever its type says.
func (s *Set) mayWrite(id, p string) error {
	owner := RoleFor(p)
	if s.role == Reviewer {
		return fmt.Errorf("the reviewer cannot write: report a finding instead")
	}
	if owner == s.role {
		return nil
	}
	what, handoff := p, fmt.Sprintf(`{"to":%q}`, owner)
	if id != "" {
		what, handoff = id+" ("+p+")", fmt.Sprintf(`{"to":%q,"target":%q}`, owner, id)
	}
	if owner == Coder {
		return fmt.Errorf("%s is code or configuration by its path: code is read-only for the writer; hand off to the coder (handoff %s) for a change to it", what, handoff)
	}
	return fmt.Errorf("%s is prose by its path: prose is the writer's; hand off to the writer (handoff %s) for a change to it", what, handoff)
}

// fitsPath refuses a type declared by a model (the call's or the route's)
// of the other kind than p's: a writer may not make evil.py a
// text/markdown artifact, nor a coder notes.md a code/python one. An
// inferred type is not checked: a Makefile is text/plain and the coder's.
func fitsPath(typ, p string) error {
	if typ == "" || IsCode(typ) == (RoleFor(p) == Coder) {
		return nil
	}
	kind := "prose"
	if RoleFor(p) == Coder {
		kind = "code or configuration"
	}
	return fmt.Errorf("type %s does not fit %s, which is %s by its path: leave the type out to infer it from the path", typ, p, kind)
}
