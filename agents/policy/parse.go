package policy

import (
	"errors"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/lazyregexp"
)

// The keys each table of a policy file may have.
var (
	topKeys   = []string{"network", "shell", "unsandboxed", "root_without_landlock", "commands", "read_only", "limits", "deny", "confirm", "allow"}
	limitKeys = []string{"timeout", "cpu", "memory", "processes", "file_size", "output", "disk"}
	ruleKeys  = []string{"name", "reason", "tools", "program", "args", "paths", "writes"}
)

var ruleName = lazyregexp.New(`^[a-z0-9][a-z0-9_.-]*$`)

// Parse reads a policy file's content; name is what its problems are
// reported under. It returns a *lunad.CheckError (wrapping lunad.ErrInvalid)
// with every problem found: TOML syntax, unknown keys (with the known
// ones), values of the wrong type or out of range, rules that are
// incomplete or take a built-in rule's name.
func Parse(name string, data []byte) (*Policy, error) {
	src := string(data)
	r := &report{file: name, loc: newLocator(src)}
	if !utf8.ValidString(src) {
		line, col := r.loc.position(firstInvalid(src))
		r.atPos(line, col, "the file is not valid UTF-8")
		return nil, r.err()
	}
	var raw map[string]any
	if _, err := toml.Decode(src, &raw); err != nil {
		line, col := 1, 1
		msg := err.Error()
		var pe toml.ParseError
		if errors.As(err, &pe) {
			msg = "toml: " + pe.Message
			line, col = max(pe.Position.Line, 1), max(pe.Position.Col, 1)
			// toml's column can be off; its byte offset is not.
			if l, c := r.loc.position(pe.Position.Start); l == line {
				col = c
			}
		}
		r.atPos(line, col, "%s", msg)
		return nil, r.err()
	}
	r.loc = locate(src)
	p := Default()
	ps := parser{report: r}
	ps.policy(raw, p)
	if err := r.err(); err != nil {
		return nil, err
	}
	return p, nil
}

func firstInvalid(s string) int {
	for i, c := range s {
		if c == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
	}
	return 0
}

type parser struct {
	*report
}

func (ps parser) policy(raw map[string]any, p *Policy) {
	ps.unknown(raw, nil, "the policy", topKeys)
	if v, ok := ps.boolean(raw, nil, "network"); ok {
		p.network = v
	}
	if v, ok := ps.boolean(raw, nil, "shell"); ok {
		p.shell = v
	}
	if v, ok := ps.choice(raw, nil, "unsandboxed", string(Refuse), string(Warn)); ok {
		p.unsandboxed = Unsandboxed(v)
	}
	if v, ok := ps.choice(raw, nil, "root_without_landlock", string(Refuse), string(Warn)); ok {
		p.rootWithoutLandlock = Unsandboxed(v)
	}
	if v, ok := ps.choice(raw, nil, "commands", "any", "allowed"); ok {
		p.allowedOnly = v == "allowed"
	}
	if list, ok := ps.strings(raw, nil, "read_only"); ok {
		for _, it := range list {
			if clean, problem := workspacePath(it.s, false); problem != "" {
				ps.at(keyPath{"read_only", strconv.Itoa(it.i)}, "read_only %q %s", it.s, problem)
			} else if !slices.Contains(p.readOnly, clean) {
				p.readOnly = append(p.readOnly, clean)
			}
		}
		slices.Sort(p.readOnly)
	}
	if v, ok := raw["limits"]; ok {
		if m, isTable := v.(map[string]any); isTable {
			ps.limits(m, &p.limits)
		} else {
			ps.at(keyPath{"limits"}, `limits must be a table: [limits] with timeout = "10m", memory = "4GiB", …`)
		}
	}
	names := map[string]bool{}
	for _, kind := range []Verdict{Deny, Confirm, Allow} {
		for _, r := range ps.rules(raw, kind, names) {
			switch kind {
			case Deny:
				p.deny = append(p.deny, r)
			case Confirm:
				p.confirm = append(p.confirm, r)
			default:
				p.allow = append(p.allow, r)
			}
		}
	}
}

// workspacePath cleans a workspace-relative path of a policy file, or
// says what is wrong with it. Globs are allowed if glob is set.
func workspacePath(s string, glob bool) (string, string) {
	switch {
	case s == "":
		return "", "is empty; name a path relative to the workspace root"
	case strings.HasPrefix(s, "/"):
		return "", "is absolute; name a path relative to the workspace root"
	case strings.ContainsRune(s, 0) || strings.ContainsRune(s, '\\') && !glob:
		return "", "holds a NUL byte or a backslash; name a path relative to the workspace root"
	case !glob && strings.ContainsAny(s, "*?["):
		return "", "is a pattern; name a path (the sandbox binds it read-only)"
	}
	for _, seg := range strings.Split(s, "/") {
		if seg == ".." {
			return "", "leaves the workspace (..); name a path inside it"
		}
	}
	clean := path.Clean(s)
	if clean == "." {
		return "", "names the whole workspace; name a path inside it"
	}
	if glob {
		if problem := validGlob(s); problem != "" {
			return "", problem
		}
	}
	return clean, ""
}

func (ps parser) limits(m map[string]any, l *Limits) {
	at := keyPath{"limits"}
	ps.unknown(m, at, "[limits]", limitKeys)
	if d, ok := ps.duration(m, at, "timeout"); ok {
		l.Timeout = d
	}
	if d, ok := ps.duration(m, at, "cpu"); ok {
		l.CPU = d
	}
	if n, ok := ps.size(m, at, "memory"); ok {
		l.Memory = n
	}
	if n, ok := ps.size(m, at, "file_size"); ok {
		l.FileSize = n
	}
	if n, ok := ps.size(m, at, "disk"); ok {
		l.Disk = n
	}
	if n, ok := ps.size(m, at, "output"); ok {
		if n > 1<<30 {
			ps.at(at.child("output"), "output is %d bytes; at most 1GiB is kept of a command's output", n)
		} else {
			l.Output = int(n)
		}
	}
	if v, ok := m["processes"]; ok {
		n, isInt := v.(int64)
		switch {
		case !isInt:
			ps.at(at.child("processes"), "processes must be an integer, not %s", describe(v))
		case n < 1 || n > 1<<20:
			ps.at(at.child("processes"), "processes is %d; give a number from 1 to %d", n, 1<<20)
		default:
			l.Processes = int(n)
		}
	}
}

func (ps parser) duration(m map[string]any, at keyPath, key string) (time.Duration, bool) {
	s, ok := ps.str(m, at, key)
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		ps.at(at.child(key), "%s = %q is not a duration; write it as \"90s\", \"10m\" or \"1h30m\"", key, s)
		return 0, false
	case d <= 0:
		ps.at(at.child(key), "%s is %s; it must be positive", key, s)
		return 0, false
	}
	return d, true
}

// size reads a size: an integer (bytes) or a string with a binary unit.
func (ps parser) size(m map[string]any, at keyPath, key string) (int64, bool) {
	v, ok := m[key]
	if !ok {
		return 0, false
	}
	bad := func() (int64, bool) {
		ps.at(at.child(key), "%s = %s is not a size; write bytes as an integer, or a string such as \"512MiB\" or \"4GiB\" (units B, KiB, MiB, GiB, TiB)", key, tomlValue(v))
		return 0, false
	}
	var n int64
	switch v := v.(type) {
	case int64:
		n = v
	case string:
		// a string names its unit (every one ends in B): "512" is not a size here
		x, ok := lunad.ParseSize(v)
		if !ok || !strings.HasSuffix(strings.TrimSpace(v), "B") {
			return bad()
		}
		n = x
	default:
		return bad()
	}
	if n <= 0 {
		ps.at(at.child(key), "%s is %d bytes; it must be positive", key, n)
		return 0, false
	}
	return n, true
}
