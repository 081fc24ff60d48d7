package policy

// Action is one action an agent proposes, as the policy sees it.
type Action struct {
	// Tool is the agent's tool: read_artifact, search, edit_artifact,
	// apply_patch, write_file, run_command, run_tests, finish.
	Tool string
	// Argv and Dir are a command's (run_command, run_tests); Dir is
	// relative to the workspace root ("" or "." for the root).
	Argv []string
	Dir  string
	// Paths are the workspace-relative paths the action reads or writes
	// (as the model wrote them: the policy resolves "..", absolute paths
	// and symlinks' names against Root).
	Paths []string
	// Writes: the action writes Paths (edit_artifact, apply_patch,
	// write_file).
	Writes bool
}

// Verdict is a Decision's answer.
type Verdict string

const (
	Allow   Verdict = "allow"
	Deny    Verdict = "deny"
	Confirm Verdict = "confirm" // allowed only if a person confirms
)

// Decision is the policy's answer to one Action.
type Decision struct {
	Verdict Verdict
	// Rule names the rule that decided (a built-in one such as
	// "no-network", "outside-workspace", "git-push", or a rule of the
	// workspace's policy file); "" for the default allow.
	Rule string
	// Reason says why, for the model and the report: "curl reaches the
	// network; ask the user or work offline".
	Reason string
	// Advisory: a rule on programs and their arguments decided (a
	// workspace rule naming program or args, or the allow list of
	// commands = "allowed"). Such a rule is checked on the command's argv
	// and the programs the policy sees it start, not on every program
	// executed in the sandbox; Message says so (AdvisoryNote).
	Advisory bool
}

// AdvisoryNote says what a program rule guarantees: the words every
// program denial carries and lunad doctor prints.
const AdvisoryNote = "program rules are advisory: lunad checks a command's argv and the programs it can see it start, not every program executed; the sandbox is the boundary"

// Confirmer asks a person to confirm an action; it returns false when
// there is no one to ask (no terminal), and the action is then denied.
type Confirmer interface {
	Confirm(a Action, d Decision) bool
}
