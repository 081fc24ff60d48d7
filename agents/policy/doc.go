// Package policy decides whether an agent's action may run: the rules of
// a workspace's .luna/policy.toml over safe defaults — no reads or writes
// outside the workspace, no writes into .git and .luna, no network,
// command allow and deny lists by program and argument patterns, the
// built-in denials (rm -rf of / or home, git push, git reset --hard,
// curl … | sh, sudo, chmod -R 777, writes to dotfiles such as .bashrc,
// .git/hooks and .vscode/settings.json) and the actions that need a
// person's confirmation. A Decision names its rule and says, in words a
// model acts on, why and what to do instead: Decision.Message gives
//
//	denied by rule no-network: curl reaches the network; ask the user or work offline
//
// Check is pure: the same policy, action and files give the same
// decision. It is a courtesy to the model as much as a guard — a clear
// denial before a command fails in the sandbox, which is the guarantee
// (package sandbox); what the policy cannot tell from argv (a variable,
// a script file, a program's own network use) it leaves to the sandbox.
// Rules on programs and arguments are therefore advisory: a decision
// they make is marked Advisory and its Message says so (AdvisoryNote).
//
// Rules on paths alone deny reading them (CheckRead, DeniedReads): the
// agents' search and listing tools and their contexts leave those paths
// out, and the sandbox hides them from commands.
//
// # The policy file
//
// .luna/policy.toml; every key is optional, and a workspace without the
// file has the defaults shown:
//
//	network = false         # commands may reach the network (lifts no-network)
//	shell = false           # sh -c and bash -c may run (lifts no-shell); their commands are still checked
//	unsandboxed = "refuse"  # where the sandbox cannot run: "refuse", or "warn" and run without it
//	root_without_landlock = "refuse"  # lunad is root and the kernel has no Landlock: "refuse", or "warn" and run
//	commands = "any"        # "allowed": only commands an [[allow]] rule matches run
//	read_only = []          # workspace paths kept read-only besides .git and .luna: ["vendor"]
//
//	[limits]                # each command's
//	timeout = "10m"         # wall time of its process group
//	cpu = "10m"             # CPU time
//	memory = "8GiB"         # address space (bytes as an integer, or B, KiB, MiB, GiB, TiB)
//	processes = 1024        # processes and threads at once
//	file_size = "1GiB"      # the largest file it may write
//	output = "1MiB"         # kept of each of stdout and stderr (head and tail)
//
//	[[deny]]                # and [[confirm]], [[allow]]: any number, in order
//	name = "no-deploy"      # required, unique, not one of lunad's rule names
//	program = "make"        # the program: by name, or by path if the pattern has a /
//	args = ["deploy*"]      # patterns matching arguments in order (others may come between)
//	paths = ["deploy"]      # paths the action reads or writes (a command's directory and operands)
//	writes = false          # true: only actions that write those paths (or any, without paths)
//	tools = ["run_command"] # the agent's tools it applies to
//	reason = "deploys are done by CI; stop at the tests"  # required for deny and confirm
//
// A rule matches an action when all of the fields it gives match. In
// program and args, * matches any text and ? one character; in paths, *
// and ? stay within a path segment, ** matches any number of segments, a
// pattern with a / is anchored at the workspace root and covers what is
// under the directory it names, and one without a / matches a name at
// any depth ("*.pem", "secrets"); paths compare ignoring case, as
// strings.EqualFold does. A command is read through its wrappers (env,
// timeout, nice, xargs, sudo, busybox, flock, strace …), find -exec,
// literal commands of awk, perl and ruby inline code and, when shell is
// allowed, its script's commands, and a rule matches when it matches any
// program the command runs. Unknown keys, values of the wrong type
// and incomplete rules are refused: Load and Parse return a *lunad.CheckError,
// one `file:line:col: message` per problem.
//
// # Order
//
// The first that applies decides (Check has the details):
//
//  1. lunad's built-in rules (Rules): always Deny. No policy lifts them,
//     except no-network (network = true) and no-shell (shell = true);
//  2. the policy's [[deny]] rules — Deny;
//  3. its [[confirm]] rules — Confirm: the action runs only if a person
//     confirms it (Ask with a Confirmer; TerminalConfirmer denies where
//     there is no terminal);
//  4. lunad's default rules (git-switch, git-clean, git-history,
//     ci-config) — Deny, unless an [[allow]] rule matches the same
//     command or action;
//  5. with commands = "allowed", a command no [[allow]] rule matches —
//     Deny (not-allowed);
//  6. Allow.
//
// So deny beats confirm beats allow, and [[allow]] lifts only lunad's
// default rules and the allow list, never a safety denial.
//
// # Paths
//
// An action's paths and a command's directory are resolved against the
// workspace root as the kernel would: "..", absolute paths, and symlinks
// of the part of the path that exists (a ".." after a symlink leaves the
// symlink's target; a dangling symlink leads where it points). Anything
// that ends outside the workspace is denied (outside-workspace), for
// reads as for writes. Writing is denied to .git and everything in it
// (git-dir; .git/hooks is git-hooks), to .luna (luna-dir), to the files
// shells, git, editors and tools run or trust (dotfile: .bashrc,
// .profile, .zshrc, .gitconfig, .envrc, .netrc, .npmrc, .ssh/**,
// .vscode/settings.json, .vscode/tasks.json, …), each at any depth and
// ignoring case, and to the policy's read_only paths (ignoring case too). CI configuration
// (.github/workflows/**, .gitlab-ci.yml, …) is a default rule: an
// [[allow]] rule naming it lifts it. The files a command writes as far
// as its argv says (cp, mv, tee, touch, sed -i, dd of=, a script's >
// redirections, rm's operands) get the same checks; absolute paths in
// /tmp (the sandbox's private one) and /dev/null are scratch.
//
// HiddenUnder finds the denied reads beneath a directory, which the sandbox
// hides from a command.
package policy
