package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/lazyregexp"
)

// defaultPath is the command's PATH when none of lunad's own PATH is
// visible inside the sandbox.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// localeRe is what a LANG passed through may look like.
var localeRe = lazyregexp.New(`^[A-Za-z0-9_.@-]{1,64}$`)

// envKeyRe is what a variable's name may look like.
var envKeyRe = lazyregexp.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

// scrubbedEnv is the whole environment of a command: PATH (lunad's own
// PATH, keeping only directories visible to the command), HOME, LANG
// (lunad's if it is a locale name, else C.UTF-8), TERM=dumb and TMPDIR,
// then extra on top. Nothing else of lunad's environment passes: no API
// key, token or credential reaches a command unless extra names it. The
// list is sorted by name.
func scrubbedEnv(getenv func(string) string, visible func(string) bool, home, tmp string, extra map[string]string) []string {
	m := map[string]string{
		"PATH":   commandPath(getenv("PATH"), visible),
		"HOME":   home,
		"LANG":   "C.UTF-8",
		"TERM":   "dumb",
		"TMPDIR": tmp,
	}
	if l := getenv("LANG"); localeRe().MatchString(l) {
		m["LANG"] = l
	}
	for k, v := range extra {
		m[k] = v
	}
	env := make([]string, 0, len(m))
	for k, v := range m {
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	return env
}

// commandPath keeps the absolute directories of path the command can see,
// without repeats; defaultPath when none is left.
func commandPath(path string, visible func(string) bool) string {
	var keep []string
	for d := range strings.SplitSeq(path, ":") {
		if !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		if visible(d) && !slices.Contains(keep, d) {
			keep = append(keep, d)
		}
	}
	if len(keep) == 0 {
		return defaultPath
	}
	return strings.Join(keep, ":")
}

// checkEnv refuses variables a process cannot be given.
func checkEnv(env map[string]string) error {
	for k, v := range env {
		if !envKeyRe().MatchString(k) {
			return fmt.Errorf("sandbox: Spec.Env has the variable name %q: a name is letters, digits and _, not starting with a digit: %w", k, lunad.ErrInvalid)
		}
		if strings.ContainsRune(v, 0) {
			return fmt.Errorf("sandbox: Spec.Env[%s] contains a NUL byte, which no environment can hold: %w", k, lunad.ErrInvalid)
		}
	}
	return nil
}

// onPath reports whether execvp would find prog on path, looking at the
// host's directories (the command sees the same ones at the same paths);
// a prog with a slash is not looked up.
func onPath(prog, path string, isExec func(string) bool) bool {
	if strings.Contains(prog, "/") {
		return true
	}
	for d := range strings.SplitSeq(path, ":") {
		if isExec(filepath.Join(d, prog)) {
			return true
		}
	}
	return false
}
