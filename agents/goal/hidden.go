package goal

import "github.com/lunad/lunad/agents/policy"

// hidden reports whether the policy forbids showing the model the file
// at rel (a worktree-relative slash path): search leaves it out, as
// read_artifact refuses it. A rule that needs confirmation hides it too —
// a search cannot ask for each file. Nothing of a hidden file is counted
// either: a count would tell whether it holds the query.
func (x *executor) hidden(rel string) bool {
	return x.a.o.Policy.Check(x.dir, policy.Action{Tool: ToolSearch, Paths: []string{rel}}).Verdict != policy.Allow
}
