package lunad

import (
	"fmt"
	"strings"
)

// Typed errors carry the facts of a failure so that each adapter can say
// what to do in its own terms — the CLI names a command, MCP a tool —
// without reading another layer's message. Each is its sentinel for
// errors.Is, and its Error is the message without any such hint.

// NotFoundError: what a request names does not exist.
type NotFoundError struct {
	// Kind is "artifact", "version", "branch" or "symbol reference".
	Kind string `json:"kind"`
	// Ref is what was asked for: the artifact's ID or path, the version,
	// the branch, the symbol.
	Ref string `json:"ref"`
	// Artifact is the artifact of a version or of a symbol reference.
	Artifact string `json:"artifact,omitempty"`
	// Latest is a version's artifact's current version.
	Latest int `json:"latest,omitempty"`
}

func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }
func (e *NotFoundError) Error() string        { return e.Message("") }

// Message is the error's text with hint (an adapter's "see …") where it
// reads best; "" for none.
func (e *NotFoundError) Message(hint string) string {
	var what string
	switch e.Kind {
	case "version":
		in := fmt.Sprintf("it is at version %d", e.Latest)
		if hint != "" {
			in += "; " + hint
		}
		return fmt.Sprintf("%v: artifact %s has no version %s (%s)", ErrNotFound, e.Artifact, e.Ref, in)
	case "branch":
		what = "branch " + e.Ref
	case "symbol reference":
		what = fmt.Sprintf("%s has no reference to a symbol %q", e.Artifact, e.Ref)
	default:
		what = fmt.Sprintf("no %s %q", e.Kind, e.Ref)
	}
	if hint != "" {
		what += " (" + hint + ")"
	}
	return fmt.Sprintf("%v: %s", ErrNotFound, what)
}

// KeyReusedError: an idempotency key was used before for another request;
// reusing it for this one would drop this write.
type KeyReusedError struct {
	Key string `json:"key"`
	// Use describes the write the key was used for, and Why how this
	// request differs from it.
	Use string `json:"use"`
	Why string `json:"why"`
}

func (e *KeyReusedError) Is(target error) bool { return target == ErrConflict }
func (e *KeyReusedError) Error() string {
	return fmt.Sprintf("%v: idempotency key %q was already used for %s, and %s; use a fresh key for a new write (repeating exactly that request returns its result)", ErrConflict, e.Key, e.Use, e.Why)
}

// LinkExistsError: the link asked for is there already.
type LinkExistsError struct {
	Src  string `json:"src"`
	Dst  string `json:"dst"`
	Kind string `json:"kind"`
}

func (e *LinkExistsError) Is(target error) bool { return target == ErrExists }
func (e *LinkExistsError) Error() string {
	return fmt.Sprintf("%v: %s already links to %s (%s)", ErrExists, e.Src, e.Dst, e.Kind)
}

// BranchMovedError: the branch an isolated run was made from is no
// longer where the run started from, so accepting the run's work by a
// fast-forward would drop the commits made there since.
type BranchMovedError struct {
	// Branch is the branch the run was made from; Base the commit it was
	// at then, Now the commit it is at.
	Branch string `json:"branch"`
	Base   string `json:"base"`
	Now    string `json:"now"`
	// Run is the run, RunBranch its branch, holding its work.
	Run       string `json:"run"`
	RunBranch string `json:"run_branch"`
}

func (e *BranchMovedError) Is(target error) bool { return target == ErrConflict }
func (e *BranchMovedError) Error() string {
	return fmt.Sprintf("%v: %s; merge %s yourself with git (git merge %s), or discard the run", ErrConflict, e.Facts(), e.RunBranch, e.RunBranch)
}

// Facts is the error's message without the sentinel or what to do: an
// adapter adds its own way to discard the run.
func (e *BranchMovedError) Facts() string {
	return fmt.Sprintf("branch %s moved since run %s started (%.12s → %.12s)", e.Branch, e.Run, e.Base, e.Now)
}

// Reword is err's message with the text of one error of its chain, inner
// (found with errors.As), replaced by text: an adapter words a typed error
// its own way — with its own hint, or without the facts it shows in its
// own form — and keeps the context the layers around it added ("edit
// a.md: …"). It never reads the message for meaning.
func Reword(err, inner error, text string) string {
	return strings.Replace(err.Error(), inner.Error(), text, 1)
}

// MergeConflictError: a stage's write was computed from version Base of
// an artifact that has moved since (to Current, by a person or another
// writer), and merging the two changes conflicts at Lines (1-based lines
// of the current content). Nothing was written.
type MergeConflictError struct {
	Path    string `json:"path"`
	Base    string `json:"base"`    // the commit the write was computed from
	Current string `json:"current"` // the commit of the artifact's current version
	Lines   []int  `json:"lines"`
}

func (e *MergeConflictError) Is(target error) bool { return target == ErrConflict }
func (e *MergeConflictError) Error() string {
	lines := make([]string, len(e.Lines))
	for i, l := range e.Lines {
		lines[i] = fmt.Sprint(l)
	}
	return fmt.Sprintf("%v: %s changed since the version the stage read (%.12s, now %.12s) and the stage's write conflicts with that change at line %s; nothing was written",
		ErrConflict, e.Path, e.Base, e.Current, strings.Join(lines, ", "))
}
