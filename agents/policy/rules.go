package policy

// The rules lunad knows without a policy file. Built-in rules are safety
// denials no policy file lifts, except no-network (network = true) and
// no-shell (shell = true). Default rules are lunad's choices for a goal
// working on its own branch: a workspace's [[allow]] rule matching the
// same action lifts them.
const (
	// Malformed actions.
	RuleUnknownTool  = "unknown-tool"
	RuleEmptyCommand = "empty-command"
	RuleBadPath      = "bad-path"
	RuleTooComplex   = "too-complex"

	// Where an action may read and write.
	RuleOutside  = "outside-workspace"
	RuleGitHooks = "git-hooks"
	RuleGitDir   = "git-dir"
	RuleLunaDir  = "luna-dir"
	RuleDotfile  = "dotfile"
	RuleReadOnly = "read-only"

	// What a command may do.
	RuleSudo         = "no-sudo"
	RulePipeToShell  = "pipe-to-shell"
	RuleRmRoot       = "rm-root"
	RuleRmHome       = "rm-home"
	RuleRmOutside    = "rm-outside"
	RuleRmWorkspace  = "rm-workspace"
	RuleChmod777     = "chmod-777"
	RuleGitPush      = "git-push"
	RuleGitResetHard = "git-reset-hard"
	RuleNetwork      = "no-network"
	RuleShell        = "no-shell"

	// The workspace allows only its [[allow]] commands (commands = "allowed").
	RuleNotAllowed = "not-allowed"

	// Default rules, lifted by a matching [[allow]] rule.
	RuleGitSwitch  = "git-switch"
	RuleGitClean   = "git-clean"
	RuleGitHistory = "git-history"
	RuleCIConfig   = "ci-config"
)

// RuleInfo describes one of lunad's own rules.
type RuleInfo struct {
	Name string
	// Lifted says what lifts the rule: "" (nothing: a safety denial),
	// "network = true", "shell = true", "[[allow]]" (a default rule), or
	// "commands = \"any\"" (not-allowed).
	Lifted string
	// Summary says what the rule denies.
	Summary string
}

// Rules lists lunad's own rules in the order Check applies them (the
// first that matches an action decides).
func Rules() []RuleInfo {
	return []RuleInfo{
		{RuleUnknownTool, "", "a tool lunad does not know"},
		{RuleBadPath, "", "an empty path, a path with a NUL byte, a loop of symlinks, a path that cannot be resolved"},
		{RuleOutside, "", "a path outside the workspace (.., absolute, or through a symlink), as a file's path, a command's directory or a path a command writes"},
		{RuleGitHooks, "", "writing .git/hooks/** (at any depth)"},
		{RuleGitDir, "", "writing .git or anything in it (at any depth)"},
		{RuleLunaDir, "", "writing .luna or anything in it (at any depth)"},
		{RuleDotfile, "", "writing a file that shells, git, editors or tools run or trust: .bashrc, .profile, .zshrc, .gitconfig, .envrc, .netrc, .npmrc, .ssh/**, .vscode/settings.json, .vscode/tasks.json, … (at any depth)"},
		{RuleReadOnly, "", "writing a path the policy's read_only lists"},
		{RuleEmptyCommand, "", "a command without a program"},
		{RuleTooComplex, "", "a command nesting shells and wrappers deeper than lunad checks"},
		{RuleSudo, "", "sudo, su, doas, pkexec, runuser"},
		{RulePipeToShell, "", "a download piped or substituted into a shell or interpreter (curl … | sh, bash <(curl …))"},
		{RuleRmRoot, "", "rm of /, a root-level path (/usr, /*) or with --no-preserve-root"},
		{RuleRmHome, "", "rm of ~, $HOME or anything in the home directory outside the workspace"},
		{RuleRmOutside, "", "rm of anything else outside the workspace"},
		{RuleRmWorkspace, "", "rm -r of the workspace itself (., *)"},
		{RuleChmod777, "", "chmod -R giving everyone write access (777, a+w, o+w)"},
		{RuleGitPush, "", "git push (and git send-pack)"},
		{RuleGitResetHard, "", "git reset --hard"},
		{RuleNetwork, "network = true", "programs that reach the network: curl, wget, ssh, scp, nc, …; pip install, npm install, go get, git clone/fetch/pull, …; python -c with socket code"},
		{RuleShell, "shell = true", "sh -c, bash -c and other shells running a script given as an argument"},
		{RuleGitSwitch, "[[allow]]", "git switch, git checkout of another branch or commit"},
		{RuleGitClean, "[[allow]]", "git clean -f with -d, -x or -X"},
		{RuleGitHistory, "[[allow]]", "git commit, merge, rebase, cherry-pick, revert, am, stash, update-ref, filter-branch"},
		{RuleCIConfig, "[[allow]]", "writing CI configuration: .github/workflows/**, .gitlab-ci.yml, .circleci/**"},
		{RuleNotAllowed, `commands = "any"`, `with commands = "allowed", a command no [[allow]] rule matches`},
	}
}

// builtinName reports whether name is one of lunad's own rules (a
// workspace's rule may not take it).
func builtinName(name string) bool {
	for _, r := range Rules() {
		if r.Name == name {
			return true
		}
	}
	return false
}

// The reasons: what happened and what to do instead, in words a model
// acts on. %s is the program, the path or the command.
const (
	reasonNetwork     = "%s reaches the network; ask the user or work offline"
	reasonShell       = "%s runs a shell script given as an argument, which the policy does not allow (shell = false); run the program directly with its argv"
	reasonSudo        = "%s runs a program as another user; work without elevated privileges, or ask the user"
	reasonPipeToShell = "%s runs code downloaded from the network without anyone reading it; download nothing, or ask the user"
	reasonRmRoot      = "%s deletes system directories; delete only files inside the workspace, by name"
	reasonRmHome      = "%s deletes the user's home directory or files in it; delete only files inside the workspace, by name"
	reasonRmOutside   = "%s deletes files outside the workspace; delete only files inside the workspace, by name"
	reasonRmWorkspace = "%s deletes the whole workspace; delete the files you mean, by name"
	reasonChmod777    = "%s lets every user write those files; set the permissions a file needs (chmod 644, chmod +x)"
	reasonGitPush     = "%s publishes the user's work; lunad keeps the goal's commits on its branch for the user to review — never push"
	reasonGitReset    = "%s throws away work; lunad keeps every step as a commit — undo a change by editing the files back"
	reasonGitSwitch   = "%s leaves the goal's branch; stay on it: lunad commits every change there"
	reasonGitClean    = "%s deletes untracked and ignored files (build caches, virtual environments) the user may need; delete the files you mean, by name"
	reasonGitHistory  = "%s writes git history; lunad commits every change itself — edit the files and let lunad commit them"
	reasonTooComplex  = "%s nests shells and wrappers too deep to check; run simpler commands"
	reasonOutside     = "%s is outside the workspace; use paths inside it, relative to the workspace root"
	reasonOutsideLink = "%s leads outside the workspace (%s is a symlink to %s); use paths inside the workspace"
	reasonGitHooks    = "%s is a git hook, which would run code on the user's machine; leave .git/hooks alone"
	reasonGitDir      = "%s is inside .git, git's own data; lunad commits every change itself — edit the workspace's files instead"
	reasonLunaDir     = "%s is lunad's configuration (.luna); ask the user to change it"
	reasonDotfile     = "%s is a file that shells, git, editors or tools run or trust; leave it alone, or ask the user to change it"
	reasonReadOnly    = "%s is read-only by the workspace's policy (read_only in .luna/policy.toml); leave it alone, or ask the user"
	reasonCIConfig    = "%s is CI configuration, which runs with the repository's secrets; ask the user to change it"
)
