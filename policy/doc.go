// Package policy decides whether an agent's action may run: the rules of
// a workspace's .luna/policy.toml over safe defaults — no writes outside
// the workspace or into .git and .luna, no network, command allow and
// deny lists by program and argument patterns, the built-in denials (rm
// -rf of / or home, git push, git reset --hard, curl … | sh, sudo, chmod
// -R 777, writes to dotfiles such as .bashrc, .git/hooks and
// .vscode/settings.json) and the actions that need a person's
// confirmation. A Decision names its rule and says, in words a model
// acts on, why and what to do instead. Check is pure: the same policy
// and action give the same decision.
package policy
