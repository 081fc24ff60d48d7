package harness

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/lazyregexp"
)

// kind is how a test command's verdict is read.
type kind int

const (
	// byExit: any other runner, judged by its exit code.
	byExit kind = iota
	// goTest: go test, its -json stream on stdout.
	goTest
	// pytest: pytest, its JUnit XML report in a file.
	pytest
)

// invocation is a test command as the harness runs it.
type invocation struct {
	kind kind
	argv []string
	// env is set on top of the base spec's (pytest: no bytecode files in
	// the workspace).
	env map[string]string
}

// python matches the interpreters that may run pytest as a module:
// python, python3, python3.11, …
var python = lazyregexp.New(`^python[0-9.]*$`)

// rewrite makes argv a command whose verdict can be parsed: go test gets
// -json (unless it has it), pytest (pytest, py.test, pytest-3, or
// python -m pytest) gets --junitxml=junit and -p no:cacheprovider, so it
// leaves no .pytest_cache in the workspace. Any other command is run as
// it is and judged by its exit code.
func rewrite(argv []string, junit string) (invocation, error) {
	if len(argv) == 0 || argv[0] == "" {
		return invocation{}, fmt.Errorf("%w: a test command is empty; give each command as a program and its arguments, e.g. [\"go\", \"test\", \"./...\"] in [tests] commands of .luna/config.toml or --test", lunad.ErrInvalid)
	}
	prog := filepath.Base(argv[0])
	if at, ok := goTestAt(prog, argv); ok {
		return invocation{kind: goTest, argv: withGoJSON(argv, at)}, nil
	}
	at, ok := pytestAt(prog, argv)
	if !ok {
		return invocation{kind: byExit, argv: clone(argv)}, nil
	}
	for _, a := range argv[at:] {
		if a == "--" {
			break
		}
		if opt, _, _ := strings.Cut(a, "="); opt == "--junitxml" || opt == "--junit-xml" {
			return invocation{}, fmt.Errorf("%w: test command %s sets %s itself; remove it: the harness has pytest write its JUnit report where it reads it", lunad.ErrInvalid, commandLine(argv), opt)
		}
	}
	added := []string{"--junitxml=" + junit}
	if !hasPair(argv[at:], "-p", "no:cacheprovider") {
		added = append(added, "-p", "no:cacheprovider")
	}
	out := make([]string, 0, len(argv)+len(added))
	out = append(out, argv[:at]...)
	out = append(out, added...)
	out = append(out, argv[at:]...)
	return invocation{kind: pytest, argv: out, env: map[string]string{"PYTHONDONTWRITEBYTECODE": "1"}}, nil
}

// goTestAt reports whether argv is go test, and the index of the
// argument after "test" (where -json goes). go's own -C dir may come
// first.
func goTestAt(prog string, argv []string) (int, bool) {
	if prog != "go" {
		return 0, false
	}
	i := 1
	for i < len(argv) {
		switch a := argv[i]; {
		case a == "-C" || a == "--C":
			i += 2
		case strings.HasPrefix(a, "-C=") || strings.HasPrefix(a, "--C="):
			i++
		default:
			return i + 1, a == "test"
		}
	}
	return 0, false
}

// withGoJSON adds -json after "test" unless a -json flag comes before
// -args (what follows -args is the test binary's).
func withGoJSON(argv []string, at int) []string {
	for _, a := range argv[at:] {
		if a == "-args" || a == "--args" {
			break
		}
		if opt, _, _ := strings.Cut(a, "="); opt == "-json" || opt == "--json" {
			return clone(argv)
		}
	}
	out := make([]string, 0, len(argv)+1)
	out = append(out, argv[:at]...)
	out = append(out, "-json")
	return append(out, argv[at:]...)
}

// pytestAt reports whether argv runs pytest, and the index of its first
// argument (where the harness's options go, before any "--").
func pytestAt(prog string, argv []string) (int, bool) {
	switch {
	case prog == "pytest" || prog == "py.test" || prog == "pytest-3":
		return 1, true
	case !python().MatchString(prog):
		return 0, false
	}
	// python [options] -m pytest [args]: skip the interpreter's options
	// (-X and -W take a value); a script, -c or - ends the search.
	for i := 1; i < len(argv); i++ {
		switch a := argv[i]; {
		case a == "-m" && i+1 < len(argv):
			return i + 2, argv[i+1] == "pytest" || argv[i+1] == "py.test"
		case a == "-mpytest" || a == "-mpy.test":
			return i + 1, true
		case a == "-X" || a == "-W":
			i++
		case a == "-c" || a == "-" || !strings.HasPrefix(a, "-"):
			return 0, false
		}
	}
	return 0, false
}

// hasPair reports whether args has name followed by value, or
// name+value joined (pytest accepts -pno:cacheprovider).
func hasPair(args []string, name, value string) bool {
	for i, a := range args {
		if a == name+value || (a == name && i+1 < len(args) && args[i+1] == value) {
			return true
		}
	}
	return false
}

// commandLine writes argv as one line, quoting what a shell would split.
func commandLine(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`*?;&|<>()[]{}") {
			a = strconv.Quote(a)
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}

func clone(s []string) []string { return append([]string(nil), s...) }
