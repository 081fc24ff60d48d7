package policy

import (
	"strings"
	"testing"
)

// TestLaunchers: make deploy, denied by a workspace rule, run through
// the launchers an attacker used — flock, find -exec, strace, awk's
// system and perl's exec — is denied by that rule, and the denial says
// that program rules are advisory. What a launcher builds at run time is
// not seen (the last cases): the sandbox is the boundary there.
func TestLaunchers(t *testing.T) {
	root, home := fixture(t)
	for _, tc := range []struct {
		name   string
		policy string
		argv   []string
		rule   string // "" for Allow
	}{
		{"direct", "", []string{"make", "deploy"}, "no-deploy"},
		{"flock", "", []string{"flock", "/tmp/lock", "make", "deploy"}, "no-deploy"},
		{"flock-options", "", []string{"flock", "-x", "-w", "5", "/tmp/lock", "make", "deploy-prod"}, "no-deploy"},
		{"flock-c-no-shell", "", []string{"flock", "/tmp/lock", "-c", "make deploy"}, RuleShell},
		{"flock-c-shell", shellOn, []string{"flock", "/tmp/lock", "-c", "make deploy"}, "no-deploy"},
		{"find-exec", "", []string{"find", ".", "-maxdepth", "0", "-exec", "make", "deploy", ";"}, "no-deploy"},
		{"find-execdir-plus", "", []string{"find", "src", "-name", "*.go", "-execdir", "make", "deploy", "{}", "+"}, "no-deploy"},
		{"find-ok", "", []string{"find", ".", "-ok", "make", "deploy", ";"}, "no-deploy"},
		{"strace", "", []string{"strace", "-f", "-o", "/tmp/trace", "make", "deploy"}, "no-deploy"},
		{"strace-e", "", []string{"strace", "-e", "trace=execve", "make", "deploy"}, "no-deploy"},
		{"awk-system", "", []string{"awk", `BEGIN{system("make deploy")}`}, "no-deploy"},
		{"gawk-system-escaped", "", []string{"gawk", "-v", "x=1", `BEGIN { system("make \"deploy\"") }`}, "no-deploy"},
		{"awk-pipe", "", []string{"awk", `BEGIN{print "" | "make deploy"}`}, "no-deploy"},
		{"awk-getline", "", []string{"awk", `BEGIN{"make deploy" | getline x}`}, "no-deploy"},
		{"perl-exec-list", "", []string{"perl", "-e", `exec "make", "deploy"`}, "no-deploy"},
		{"perl-exec-string", "", []string{"perl", "-e", `exec "make deploy"`}, "no-deploy"},
		{"perl-system-parens", "", []string{"perl", "-we", `system('make', 'deploy') == 0 or die`}, "no-deploy"},
		{"perl-backticks", "", []string{"perl", "-e", "print `make deploy`"}, "no-deploy"},
		{"ruby-system", "", []string{"ruby", "-e", `system("make", "deploy")`}, "no-deploy"},
		{"nested-launchers", "", []string{"strace", "-f", "flock", "/tmp/l", "find", ".", "-exec", "perl", "-e", `exec "make","deploy"`, ";"}, "no-deploy"},
		{"awk-other-target", "", []string{"awk", `BEGIN{system("make test")}`}, ""},
		// Built at run time: not seen (advisory; the sandbox is the boundary).
		{"awk-built-command", "", []string{"awk", `BEGIN{t="deploy"; system("make " t)}`}, ""},
		{"perl-built-command", "", []string{"perl", "-e", `$t="deploy"; exec "make", $t`}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustParse(t, tc.policy+denyDeploy, home)
			d := p.Check(root, run(tc.argv...))
			want := Deny
			if tc.rule == "" {
				want = Allow
			}
			if d.Verdict != want || d.Rule != tc.rule {
				t.Fatalf("Check(%q) = %s", tc.argv, d.Message())
			}
			if tc.rule == "no-deploy" && (!d.Advisory || !strings.Contains(d.Message(), AdvisoryNote)) {
				t.Errorf("the denial does not say program rules are advisory: %s", d.Message())
			}
		})
	}
}

// TestAdvisoryText: every denial by a program rule says it is advisory
// and that the sandbox is the boundary; a path rule's does not.
func TestAdvisoryText(t *testing.T) {
	root, home := fixture(t)
	for _, tc := range []struct {
		name, policy string
		action       Action
		advisory     bool
	}{
		{"deny-program", denyDeploy, run("make", "deploy"), true},
		{"confirm-program", "[[confirm]]\nname = \"ask-make\"\nprogram = \"make\"\nreason = \"ask\"\n", run("make"), true},
		{"not-allowed", allowGo, run("make", "test"), true},
		{"deny-paths", denySecrets, read("config/secrets/a"), false},
		{"builtin", "", write(".git/config"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := mustParse(t, tc.policy, home).Check(root, tc.action)
			if d.Verdict == Allow {
				t.Fatalf("allowed: %s", d.Message())
			}
			msg := d.Message()
			says := strings.Contains(msg, "advisory") && strings.Contains(msg, "the sandbox is the boundary")
			if d.Advisory != tc.advisory || says != tc.advisory {
				t.Errorf("Advisory = %v, message %q; want advisory %v", d.Advisory, msg, tc.advisory)
			}
		})
	}
}
