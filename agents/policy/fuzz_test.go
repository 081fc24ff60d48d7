package policy

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/lunad/lunad"
)

// FuzzParse: Parse never panics; it returns a policy that parses the
// same again and checks actions without panicking, or a *lunad.CheckError
// wrapping ErrInvalid whose problems lie inside the file, one line each.
func FuzzParse(f *testing.F) {
	for _, tc := range badPolicies {
		f.Add([]byte(tc.src))
	}
	for _, tc := range checkCases {
		f.Add([]byte(tc.policy))
	}
	f.Add([]byte(fullPolicy))
	f.Add([]byte(docsExampleErrors))
	root, home := fixture(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("f.toml", data)
		if err != nil {
			var fe *lunad.CheckError
			if !errors.As(err, &fe) || !errors.Is(err, lunad.ErrInvalid) || len(fe.Problems) == 0 {
				t.Fatalf("Parse error %T %v: want a *lunad.CheckError wrapping ErrInvalid", err, err)
			}
			lines := strings.Count(string(data), "\n") + 1
			for _, pr := range fe.Problems {
				if pr.Line < 1 || pr.Line > lines || pr.Col < 1 || pr.File != "f.toml" || strings.ContainsAny(pr.Msg, "\r\n") {
					t.Fatalf("bad problem %+v in a file of %d lines", pr, lines)
				}
			}
			return
		}
		again, err := Parse("f.toml", data)
		if err != nil || !reflect.DeepEqual(p, again) {
			t.Fatalf("Parse is not deterministic: %+v, then %+v, %v", p, again, err)
		}
		s := p.Sandbox()
		if s.Limits.Timeout <= 0 || s.Limits.CPU <= 0 || s.Limits.Memory <= 0 || s.Limits.Processes <= 0 || s.Limits.FileSize <= 0 || s.Limits.Output <= 0 {
			t.Fatalf("limits %+v: every limit must be positive", s.Limits)
		}
		if s.Unsandboxed != Refuse && s.Unsandboxed != Warn {
			t.Fatalf("unsandboxed %q", s.Unsandboxed)
		}
		p.home = home
		for _, a := range []Action{run("make", "deploy"), write("db/migrations/1.sql"), run("sh", "-c", "git push"), read("src/main.go")} {
			d := p.Check(root, a)
			if d.Verdict != Allow && (d.Rule == "" || d.Reason == "") {
				t.Fatalf("Check(%+v) = %+v: a %s names its rule and reason", a, d, d.Verdict)
			}
		}
	})
}

// FuzzCheck: Check never panics, is deterministic, gives a one-line
// message, names the rule and reason of every denial, and never allows
// what lunad always denies: a path that leaves the workspace, a write
// into .git, sudo, git push.
func FuzzCheck(f *testing.F) {
	for _, tc := range checkCases {
		if tc.policy != "" {
			continue
		}
		p := ""
		if len(tc.action.Paths) > 0 {
			p = tc.action.Paths[0]
		}
		f.Add(uint8(indexOf(tc.action.Tool)), strings.Join(tc.action.Argv, "\x00"), tc.action.Dir, p, tc.action.Writes, false, false)
	}
	f.Add(uint8(5), "sh\x00-c\x00curl x | sh; rm -rf ~ $(wget y) <<EOF\nEOF", "", "", false, true, true)
	f.Add(uint8(4), "", "", "inlink/../../x", true, false, false)
	root, home := fixture(f)
	policies := map[[2]bool]*Policy{}
	for _, network := range []bool{false, true} {
		for _, shell := range []bool{false, true} {
			p := Default()
			p.network, p.shell, p.home = network, shell, home
			policies[[2]bool{network, shell}] = p
		}
	}
	f.Fuzz(func(t *testing.T, tool uint8, argv, dir, path string, writes, network, shell bool) {
		a := Action{Tool: Tools[int(tool)%len(Tools)], Dir: dir, Writes: writes}
		if argv != "" {
			a.Argv = strings.Split(argv, "\x00")
		}
		if path != "" {
			a.Paths = []string{path}
		}
		p := policies[[2]bool{network, shell}]
		d := p.Check(root, a)
		if again := p.Check(root, a); again != d {
			t.Fatalf("Check is not deterministic: %+v, then %+v", d, again)
		}
		switch d.Verdict {
		case Allow:
		case Deny:
			if d.Rule == "" || d.Reason == "" {
				t.Fatalf("a denial without its rule and reason: %+v", d)
			}
		default:
			t.Fatalf("verdict %q from a policy without [[confirm]] rules", d.Verdict)
		}
		for _, r := range d.Message() {
			if unicode.IsControl(r) {
				t.Fatalf("message %q holds a control character", d.Message())
			}
		}
		if d.Verdict != Allow {
			return
		}
		// Allowed: so no path of it leaves the workspace (the fixture's
		// symlinks never bring a path that leaves it back in), ...
		if path != "" {
			lex := path
			if !filepath.IsAbs(lex) {
				lex = filepath.Join(root, lex)
			}
			if !within(root, filepath.Clean(lex)) {
				t.Fatalf("allowed %+v: %q leaves the workspace", a, path)
			}
			if writes {
				rel, _ := filepath.Rel(root, filepath.Clean(lex))
				for _, seg := range strings.Split(filepath.ToSlash(rel), "/") {
					if strings.EqualFold(seg, ".git") || strings.EqualFold(seg, ".luna") {
						t.Fatalf("allowed %+v: writes into %s", a, seg)
					}
				}
			}
		}
		// ... and its command is neither sudo nor git push.
		if a.Tool == ToolRunCommand && len(a.Argv) > 0 {
			e := effective(a.Argv)
			if len(e) > 0 && (filepath.Base(e[0]) == "sudo" || filepath.Base(e[0]) == "doas") {
				t.Fatalf("allowed %+v: runs %s", a, e[0])
			}
			if len(e) > 1 && filepath.Base(e[0]) == "git" && e[1] == "push" {
				t.Fatalf("allowed %+v: git push", a)
			}
		}
	})
}

func indexOf(tool string) int {
	for i, t := range Tools {
		if t == tool {
			return i
		}
	}
	return 0
}

// FuzzMatchPath: the path matcher ignores case on both sides — a
// pattern matches a path exactly when it matches the path in upper or
// lower case, and the upper-cased pattern matches as the pattern — and
// never panics.
func FuzzMatchPath(f *testing.F) {
	for _, s := range [][2]string{
		{".github/workflows", ".GitHub/Workflows/ci.yml"}, {"*.pem", "keys/A.PEM"}, {"db/**/x", "DB/a/b/X"},
		{"config/secrets", "config/secrets"}, {`\*`, "*"}, {"?", "İ"}, {"k", "\u212A"}, {"**", "."},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, rel string) {
		got := matchPath(pattern, rel)
		for _, variant := range []struct{ p, r string }{
			{pattern, strings.ToUpper(rel)}, {pattern, strings.ToLower(rel)},
			{strings.ToUpper(pattern), rel}, {strings.ToLower(pattern), rel},
		} {
			if !foldsLike(variant.p, pattern) || !foldsLike(variant.r, rel) {
				continue // a case mapping that is not a simple fold (ß → SS)
			}
			if matchPath(variant.p, variant.r) != got {
				t.Fatalf("matchPath(%q, %q) = %v but matchPath(%q, %q) = %v", pattern, rel, got, variant.p, variant.r, !got)
			}
		}
	})
}

// foldsLike reports whether a and b are the same text ignoring case as
// strings.EqualFold takes it, rune for rune.
func foldsLike(a, b string) bool {
	return strings.EqualFold(a, b) && utf8.RuneCountInString(a) == utf8.RuneCountInString(b)
}

// FuzzLaunchers: reading a launcher's commands — find -exec, flock,
// strace, awk programs, perl and ruby inline code — never panics, is
// deterministic, and finds make deploy only where the text says deploy.
func FuzzLaunchers(f *testing.F) {
	for _, s := range []string{`BEGIN{system("make deploy")}`, `exec "make", "deploy"`, "print `make deploy`", `qx{make deploy}`,
		`system('a\'b', "c\"d")`, `"x" | getline; print | "y"`, "make\x00deploy\x00;", `system("`, `exec "`} {
		f.Add(s)
	}
	root, home := fixture(f)
	p := mustParse(f, shellOn+denyDeploy, home)
	f.Fuzz(func(t *testing.T, s string) {
		for _, argv := range [][]string{
			{"awk", s}, {"gawk", "-e", s}, {"perl", "-e", s}, {"ruby", "-we", s},
			append([]string{"find", ".", "-exec"}, strings.Split(s, "\x00")...),
			append([]string{"strace", "-f", "flock", "/tmp/l"}, strings.Split(s, "\x00")...),
			{"flock", "/tmp/l", "-c", s},
		} {
			d := p.Check(root, run(argv...))
			if again := p.Check(root, run(argv...)); again != d {
				t.Fatalf("Check(%q) is not deterministic: %+v, then %+v", argv, d, again)
			}
			if d.Rule == "no-deploy" && !strings.Contains(s, "deploy") {
				t.Fatalf("Check(%q) found a deploy that is not there", argv)
			}
		}
	})
}
