package policy

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

// badPolicies are policy files with problems; testdata/parse.golden holds
// each one's error (go test -update rewrites it).
var badPolicies = []struct{ name, src string }{
	{"syntax", "network = \n"},
	{"syntax-later-line", "shell = true\n[limits\ntimeout = \"1m\"\n"},
	{"duplicate-key", "network = true\nnetwork = false\n"},
	{"not-utf8", "shell = true\nreason = \"\xff\"\n"},
	{"unknown-key", "netwrok = true\n"},
	{"unknown-key-far", "sandbox = \"bwrap\"\n"},
	{"unknown-limit", "[limits]\nmem = \"1GiB\"\n"},
	{"unknown-rule-key", "[[deny]]\nname = \"x\"\nprogramm = \"make\"\nreason = \"r\"\n"},
	{"network-string", "network = \"yes\"\n"},
	{"shell-int", "shell = 1\n"},
	{"unsandboxed-choice", "unsandboxed = \"allow\"\n"},
	{"commands-choice", "commands = \"some\"\n"},
	{"read-only-bad", "read_only = [\"../x\", \"/abs\", \"a*\", \"\", \".\", 3]\n"},
	{"read-only-string", "read_only = \"vendor\"\n"},
	{"limits-not-table", "limits = 5\n"},
	{"limits-bad", "[limits]\ntimeout = \"10 minutes\"\ncpu = \"-1s\"\nmemory = \"4GB\"\nprocesses = 0\nfile_size = -1\noutput = \"2GiB\"\n"},
	{"limits-inline", "limits = { timeout = 5 }\n"},
	{"deny-not-array", "deny = 3\n"},
	{"deny-array-of-strings", "deny = [\"curl\"]\n"},
	{"rule-no-name", "[[deny]]\nprogram = \"make\"\nreason = \"r\"\n"},
	{"rule-no-reason", "[[confirm]]\nname = \"x\"\nprogram = \"make\"\n"},
	{"rule-empty-reason", "[[deny]]\nname = \"x\"\nprogram = \"make\"\nreason = \"  \"\n"},
	{"rule-multiline-reason", "[[deny]]\nname = \"x\"\nprogram = \"make\"\nreason = \"\"\"a\nb\"\"\"\n"},
	{"rule-builtin-name", "[[deny]]\nname = \"no-network\"\nprogram = \"curl\"\nreason = \"r\"\n"},
	{"rule-bad-name", "[[allow]]\nname = \"Go Tools\"\nprogram = \"go\"\n"},
	{"rule-duplicate-name", "[[deny]]\nname = \"x\"\nprogram = \"a\"\nreason = \"r\"\n\n[[allow]]\nname = \"x\"\nprogram = \"b\"\n"},
	{"rule-matches-everything", "[[deny]]\nname = \"x\"\nreason = \"r\"\n"},
	{"rule-unknown-tool", "[[confirm]]\nname = \"x\"\ntools = [\"write_file\", \"rm_rf\"]\nreason = \"r\"\n"},
	{"rule-empty-lists", "[[deny]]\nname = \"x\"\ntools = []\nargs = []\npaths = []\nreason = \"r\"\n"},
	{"rule-bad-paths", "[[deny]]\nname = \"x\"\npaths = [\"../up\", \"/etc\", \"a/\\\\\"]\nreason = \"r\"\n"},
	{"rule-bad-program", "[[deny]]\nname = \"x\"\nprogram = 'make\\'\nreason = \"r\"\n"},
	{"rule-types", "[[deny]]\nname = 1\nprogram = [\"make\"]\nargs = \"x\"\nwrites = \"yes\"\nreason = 2\n"},
	{"second-rule-located", "[[deny]]\nname = \"a\"\nprogram = \"a\"\nreason = \"r\"\n\n[[deny]]\nname = \"b\"\nprogram = \"b\"\nreason = \"r\"\nwrites = 1\n"},
	{"limits-bad-disk", "[limits]\ndisk = \"lots\"\n"},
	{"limits-disk-not-positive", "[limits]\nprocesses = 8\ndisk = 0\n"},
	{"inline-rules", "deny = [{ name = \"a\", program = \"a\", reason = \"r\" }, { name = \"b\" }]\n"},
}

func TestParseErrors(t *testing.T) {
	var golden strings.Builder
	for _, tc := range badPolicies {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse("policy.toml", []byte(tc.src))
			if err == nil {
				t.Fatalf("Parse = %+v, nil; want an error", p)
			}
			var fe *lunad.CheckError
			if !errors.As(err, &fe) || !errors.Is(err, lunad.ErrInvalid) || len(fe.Problems) == 0 {
				t.Fatalf("Parse error %T %v: want a *lunad.CheckError wrapping ErrInvalid", err, err)
			}
			lines := strings.Count(tc.src, "\n") + 1
			for _, pr := range fe.Problems {
				if pr.Line < 1 || pr.Line > lines || pr.Col < 1 || pr.File != "policy.toml" {
					t.Errorf("problem %+v is not in the file (%d lines)", pr, lines)
				}
			}
			golden.WriteString("## " + tc.name + "\n" + err.Error() + "\n")
		})
	}
	compareGolden(t, "parse.golden", golden.String())
}

// TestParseSecondRuleLocated: a problem of the second [[deny]] is placed
// on its own line, not the first rule's.
func TestParseSecondRuleLocated(t *testing.T) {
	src := "[[deny]]\nname = \"a\"\nprogram = \"a\"\nreason = \"r\"\n\n[[deny]]\nname = \"b\"\nprogram = \"b\"\nreason = \"r\"\nwrites = 1\n"
	_, err := Parse("p.toml", []byte(src))
	if want := "p.toml:10:1: writes must be true or false, not the integer 1"; err == nil || err.Error() != want {
		t.Errorf("Parse error %v; want %s", err, want)
	}
}

const fullPolicy = `network = true
shell = true
unsandboxed = "warn"
commands = "allowed"
read_only = ["vendor", "testdata/golden/", "vendor"]

[limits]
timeout = "90s"
cpu = "1m"
memory = "512MiB"
processes = 64
file_size = 1048576
output = "64KiB"
disk = "3GiB"

[[deny]]
name = "no-deploy"
program = "make"
args = ["deploy*"]
reason = "deploys are done by CI"

[[confirm]]
name = "migrations"
paths = ["db/migrations/**"]
writes = true
reason = "schema changes need review"

[[allow]]
name = "go"
program = "go"
tools = ["run_command", "run_tests"]
`

func TestParseFull(t *testing.T) {
	p, err := Parse("policy.toml", []byte(fullPolicy))
	if err != nil {
		t.Fatal(err)
	}
	want := SandboxSettings{
		Unsandboxed: Warn, RootWithoutLandlock: Refuse,
		Network: true,
		Shell:   true,
		Limits: Limits{Timeout: 90 * time.Second, CPU: time.Minute, Memory: 512 << 20, Processes: 64,
			FileSize: 1 << 20, Output: 64 << 10, Disk: 3 << 30},
		ReadOnly: []string{".git", ".luna", "testdata/golden", "vendor"},
	}
	if got := p.Sandbox(); !reflect.DeepEqual(got, want) {
		t.Errorf("Sandbox() = %+v\nwant %+v", got, want)
	}
	if got := p.Sandbox().ReadOnlyUnder("/ws"); !reflect.DeepEqual(got, []string{"/ws/.git", "/ws/.luna", "/ws/testdata/golden", "/ws/vendor"}) {
		t.Errorf("ReadOnlyUnder = %v", got)
	}
	wantRules := []*rule{
		{verdict: Deny, name: "no-deploy", program: "make", args: []string{"deploy*"}, reason: "deploys are done by CI"},
		{verdict: Confirm, name: "migrations", paths: []string{"db/migrations/**"}, writes: true, reason: "schema changes need review"},
		{verdict: Allow, name: "go", program: "go", tools: []string{"run_command", "run_tests"}},
	}
	if got := append(append(append([]*rule{}, p.deny...), p.confirm...), p.allow...); !reflect.DeepEqual(got, wantRules) {
		t.Errorf("rules = %+v\nwant %+v", got, wantRules)
	}
	if !p.allowedOnly {
		t.Error(`commands = "allowed" not read`)
	}
}

func TestDefault(t *testing.T) {
	want := SandboxSettings{Unsandboxed: Refuse, RootWithoutLandlock: Refuse, Limits: DefaultLimits(), ReadOnly: []string{".git", ".luna"}}
	if got := Default().Sandbox(); !reflect.DeepEqual(got, want) {
		t.Errorf("Default().Sandbox() = %+v; want %+v", got, want)
	}
	var none *Policy
	if got := none.Sandbox(); !reflect.DeepEqual(got, want) {
		t.Errorf("a nil Policy's Sandbox() = %+v; want the default %+v", got, want)
	}
	if d := none.Check("/", run("git", "push")); d.Rule != RuleGitPush {
		t.Errorf("a nil Policy's Check(git push) = %+v; want the default's denial", d)
	}
	empty, err := Parse("p.toml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := empty.Sandbox(); !reflect.DeepEqual(got, want) {
		t.Errorf("an empty file's Sandbox() = %+v; want the default %+v", got, want)
	}
}

func TestLoad(t *testing.T) {
	t.Run("absent", func(t *testing.T) {
		p, err := Load(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p, Default()) {
			t.Errorf("Load of a workspace without a policy = %+v; want Default", p)
		}
	})
	writePolicy := func(t *testing.T, src string) string {
		root := t.TempDir()
		if err := os.MkdirAll(filepath.Join(root, ".luna"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, ".luna", "policy.toml"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return root
	}
	t.Run("valid", func(t *testing.T) {
		p, err := Load(writePolicy(t, fullPolicy))
		if err != nil {
			t.Fatal(err)
		}
		if s := p.Sandbox(); !s.Network || s.Limits.Processes != 64 {
			t.Errorf("Load read %+v", s)
		}
	})
	t.Run("invalid", func(t *testing.T) {
		root := writePolicy(t, "shell = true\nnetwrok = true\n")
		_, err := Load(root)
		want := filepath.Join(root, ".luna", "policy.toml") + `:2:1: unknown key "netwrok" in the policy (did you mean "network"?); the known keys are network, shell, unsandboxed, root_without_landlock, commands, read_only, limits, deny, confirm, allow`
		if err == nil || err.Error() != want || !errors.Is(err, lunad.ErrInvalid) {
			t.Errorf("Load error %v;\nwant %s", err, want)
		}
	})
	t.Run("unreadable", func(t *testing.T) {
		root := t.TempDir()
		if err := os.MkdirAll(filepath.Join(root, ".luna", "policy.toml"), 0o755); err != nil {
			t.Fatal(err)
		}
		_, err := Load(root)
		if err == nil || errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "read the policy") {
			t.Errorf("Load of a directory = %v; want the read error", err)
		}
	})
}

// docsExampleErrors is a file whose problems docs/goals.md shows.
const docsExampleErrors = "netwrok = true\nshell = false\n\n[limits]\ntimeout = \"10m\"\ncpu = \"5m\"\nmemory = \"4GB\"\n\n[[allow]]\nname = \"go\"\nprogram = \"go\"\n[[deny]]\nname = \"no-deploy\"\nprogram = \"make\"\n"

// TestDocs keeps docs/goals.md's Policy section true: its TOML parses to
// the defaults it claims plus its rules, its error output is Parse's, its
// program denial is Check's (advisory note included), and every rule of
// lunad's is in its table.
func TestDocs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "goals.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The Policy section: from its heading to the next of its level.
	doc, ok := strings.CutPrefix(string(data)[max(strings.Index(string(data), "\n## Policy\n"), 0):], "\n## Policy\n")
	if !ok {
		t.Fatal("docs/goals.md has no ## Policy section")
	}
	if end := strings.Index(doc, "\n## "); end >= 0 {
		doc = doc[:end]
	}
	blocks := regexp.MustCompile("(?s)```toml\n(.*?)```").FindAllStringSubmatch(doc, -1)
	if len(blocks) != 1 {
		t.Fatalf("docs/goals.md's Policy section has %d toml blocks; want 1", len(blocks))
	}
	p, err := Parse("docs/goals.md", []byte(blocks[0][1]))
	if err != nil {
		t.Fatalf("the documented policy does not parse: %v", err)
	}
	def := Default().Sandbox()
	got := p.Sandbox()
	// The example's no-secrets rule denies reading paths: the sandbox
	// hides them.
	if want := []string{"config/secrets", "*.pem"}; !reflect.DeepEqual(got.Denied, want) {
		t.Errorf("the documented denied paths are %q; want %q", got.Denied, want)
	}
	got.Denied = nil
	if !reflect.DeepEqual(got, def) {
		t.Errorf("the documented values %+v are not the defaults %+v", got, def)
	}
	if msg := p.Check(t.TempDir(), run("make", "deploy")).Message(); !strings.Contains(doc, "\n"+msg+"\n") {
		t.Errorf("docs/goals.md does not show the no-deploy denial as Check words it:\n%s", msg)
	}
	_, err = Parse(".luna/policy.toml", []byte(docsExampleErrors))
	if err == nil || !strings.Contains(doc, "```\n"+err.Error()+"\n```") {
		t.Errorf("docs/goals.md does not show Parse's errors:\n%v", err)
	}
	for _, r := range Rules() {
		if !strings.Contains(doc, "| `"+r.Name+"` |") {
			t.Errorf("docs/goals.md's table lacks rule %s", r.Name)
		}
	}
}
