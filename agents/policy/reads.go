package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Reading. A rule on paths alone — no program, no args, not writes =
// true — that applies to a tool reading files (read_artifact, search,
// run_command, run_tests, or every tool when it names none) forbids
// reading those paths: read_artifact refuses them, search, listings and
// the agents' compiled contexts leave them out (CheckRead), and the
// sandbox hides them from commands (DeniedReads). read_artifact and
// search show the same content, so a rule naming either applies to both.

// readTools are the tools that show the model a file's content.
var readTools = []string{ToolReadArtifact, ToolSearch}

// appliesTo reports whether the rule applies to the tool.
func (r *rule) appliesTo(tool string) bool {
	if len(r.tools) == 0 || contains(r.tools, tool) {
		return true
	}
	return contains(readTools, tool) && slices.ContainsFunc(r.tools, func(t string) bool { return contains(readTools, t) })
}

// guardsReads reports whether the rule forbids reading its paths.
func (r *rule) guardsReads() bool {
	if len(r.paths) == 0 || r.onPrograms() || r.writes {
		return false
	}
	return len(r.tools) == 0 || slices.ContainsFunc(r.tools, func(t string) bool {
		return contains(readTools, t) || t == ToolRunCommand || t == ToolRunTests
	})
}

// DeniedReads are the path patterns of the [[deny]] rules that forbid
// reading (see CheckRead), in file order without repeats: what the
// sandbox hides from a goal's commands. A pattern is matched as the
// policy file's paths are (matchPath, ignoring case): one with a / is
// anchored at the workspace root and covers what is under the directory
// it names, one without matches a file or directory name at any depth;
// *, ? and ** as documented. A nil *Policy's is Default's: none.
func (p *Policy) DeniedReads() []string {
	if p == nil {
		return nil
	}
	var out []string
	for _, r := range p.deny {
		if !r.guardsReads() {
			continue
		}
		for _, pat := range r.paths {
			if !slices.Contains(out, pat) {
				out = append(out, pat)
			}
		}
	}
	return out
}

// ReadDenied reports whether a workspace-relative slash path is matched
// by DeniedReads (what the sandbox masks), ignoring case.
func (p *Policy) ReadDenied(rel string) bool {
	return slices.ContainsFunc(p.DeniedReads(), func(pat string) bool { return matchPath(pat, cleanRel(rel)) })
}

// CheckRead decides whether the model may be shown the content of the
// file at rel, a workspace-relative slash path (an artifact's path, a
// file a search reads): Deny by the first [[deny]] rule forbidding
// reading it, Confirm by the first such [[confirm]] rule (a search or a
// compiled context cannot ask, so callers leave out all but Allow),
// Deny (bad-path, outside-workspace) for a path that is not relative or
// leaves the workspace; Allow otherwise. It reads no file: rel is taken
// as written, without following symlinks (Check resolves them).
func (p *Policy) CheckRead(rel string) Decision {
	if p == nil {
		p = Default()
	}
	switch {
	case rel == "" || strings.ContainsRune(rel, 0):
		return *deny(RuleBadPath, fmt.Sprintf("%q is not a path; name a file relative to the workspace root", rel))
	case path.IsAbs(rel) || cleanRel(rel) == ".." || strings.HasPrefix(cleanRel(rel), "../"):
		return *deny(RuleOutside, fmt.Sprintf(reasonOutside, quoteWord(rel)))
	}
	rel = cleanRel(rel)
	for _, list := range [][]*rule{p.deny, p.confirm} {
		for _, r := range list {
			if r.guardsReads() && r.appliesTo(ToolReadArtifact) && matchAny(r.paths, rel) {
				return Decision{Verdict: r.verdict, Rule: r.name, Reason: r.reason}
			}
		}
	}
	return Decision{Verdict: Allow}
}

func cleanRel(rel string) string { return path.Clean(rel) }
