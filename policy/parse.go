package policy

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// The keys each table of a policy file may have.
var (
	topKeys   = []string{"network", "shell", "unsandboxed", "commands", "read_only", "limits", "deny", "confirm", "allow"}
	limitKeys = []string{"timeout", "cpu", "memory", "processes", "file_size", "output"}
	ruleKeys  = []string{"name", "reason", "tools", "program", "args", "paths", "writes"}
)

var ruleName = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]*$`)

// Parse reads a policy file's content; name is what its problems are
// reported under. It returns a *FileError (wrapping lunad.ErrInvalid)
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

// unknown reports the keys of m not in known, with the known ones.
func (ps parser) unknown(m map[string]any, at keyPath, what string, known []string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if slices.Contains(known, k) {
			continue
		}
		hint := ""
		if near := nearest(k, known); near != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", near)
		}
		ps.at(at.child(k), "unknown key %q in %s%s; the known keys are %s", k, what, hint, strings.Join(known, ", "))
	}
}

// nearest is the known key closest to k, if it is a typo away.
func nearest(k string, known []string) string {
	best, bestD := "", 3
	for _, c := range known {
		if d := distance(strings.ToLower(k), c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the Levenshtein distance of two short strings.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func (ps parser) boolean(m map[string]any, at keyPath, key string) (bool, bool) {
	v, ok := m[key]
	if !ok {
		return false, false
	}
	b, isBool := v.(bool)
	if !isBool {
		ps.at(at.child(key), "%s must be true or false, not %s", key, describe(v))
	}
	return b, isBool
}

func (ps parser) str(m map[string]any, at keyPath, key string) (string, bool) {
	v, ok := m[key]
	if !ok {
		return "", false
	}
	s, isStr := v.(string)
	if !isStr {
		ps.at(at.child(key), "%s must be a string, not %s", key, describe(v))
	}
	return s, isStr
}

func (ps parser) choice(m map[string]any, at keyPath, key string, choices ...string) (string, bool) {
	s, ok := ps.str(m, at, key)
	if ok && !slices.Contains(choices, s) {
		ps.at(at.child(key), "%s is %q; use %s", key, s, quoteList(choices))
		return "", false
	}
	return s, ok
}

// item is one string of an array, at its index.
type item struct {
	i int
	s string
}

func texts(items []item) []string {
	out := make([]string, len(items))
	for k, it := range items {
		out[k] = it.s
	}
	return out
}

// strings reads an array of strings: the strings in it, and whether the
// key holds an array; an element that is not a string is reported and
// left out.
func (ps parser) strings(m map[string]any, at keyPath, key string) ([]item, bool) {
	v, ok := m[key]
	if !ok {
		return nil, false
	}
	list, isList := v.([]any)
	if !isList {
		ps.at(at.child(key), "%s must be an array of strings, not %s", key, describe(v))
		return nil, false
	}
	out := make([]item, 0, len(list))
	for i, x := range list {
		if s, isStr := x.(string); isStr {
			out = append(out, item{i, s})
		} else {
			ps.at(at.child(key, strconv.Itoa(i)), "%s[%d] must be a string, not %s", key, i, describe(x))
		}
	}
	return out, true
}

// tomlValue is a scalar as TOML writes it (other values described).
func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(cut(v, 40))
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return describe(v)
}

// describe names a TOML value's type for a message.
func describe(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", cut(v, 40))
	case int64:
		return fmt.Sprintf("the integer %d", v)
	case float64:
		return fmt.Sprintf("the number %v", v)
	case bool:
		return fmt.Sprintf("%v", v)
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return "a date"
}

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	if len(q) == 2 {
		return q[0] + " or " + q[1]
	}
	return strings.Join(q, ", ")
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

var sizeUnits = []struct {
	suffix string
	bytes  int64
}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"B", 1}}

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
		s := strings.TrimSpace(v)
		for _, u := range sizeUnits {
			num, found := strings.CutSuffix(s, u.suffix)
			if !found {
				continue
			}
			x, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
			if err != nil || x > (1<<62)/u.bytes {
				return bad()
			}
			n = x * u.bytes
			break
		}
		if n == 0 && !strings.HasPrefix(s, "0") {
			return bad()
		}
	default:
		return bad()
	}
	if n <= 0 {
		ps.at(at.child(key), "%s is %d bytes; it must be positive", key, n)
		return 0, false
	}
	return n, true
}

// rules reads the [[deny]], [[confirm]] or [[allow]] tables.
func (ps parser) rules(raw map[string]any, kind Verdict, names map[string]bool) []*rule {
	key := string(kind)
	v, ok := raw[key]
	if !ok {
		return nil
	}
	var tables []map[string]any
	switch v := v.(type) {
	case []map[string]any:
		tables = v
	case []any:
		for _, x := range v {
			if t, isTable := x.(map[string]any); isTable {
				tables = append(tables, t)
			} else {
				ps.at(keyPath{key}, "%s must hold tables ([[%s]] with name, reason, program, args, paths …), not %s", key, key, describe(x))
				return nil
			}
		}
	default:
		ps.at(keyPath{key}, "%s must be an array of tables: write [[%s]] with name, reason, program, args, paths …", key, key)
		return nil
	}
	var out []*rule
	for i, t := range tables {
		if r := ps.rule(t, kind, keyPath{key, strconv.Itoa(i)}, names); r != nil {
			out = append(out, r)
		}
	}
	return out
}

func (ps parser) rule(m map[string]any, kind Verdict, at keyPath, names map[string]bool) *rule {
	what := fmt.Sprintf("[[%s]]", kind)
	r := &rule{verdict: kind}
	before := len(ps.list)
	ps.unknown(m, at, what, ruleKeys)
	name, ok := ps.str(m, at, "name")
	switch {
	case !ok && m["name"] == nil:
		ps.at(at, "a %s rule needs a name, which denials and the report show", what)
	case !ok:
	case !ruleName.MatchString(name):
		ps.at(at.child("name"), "rule name %q: use lower-case letters, digits, '-', '_' and '.'", name)
	case builtinName(name):
		ps.at(at.child("name"), "rule name %q is one of lunad's own rules; choose another name", name)
	case names[name]:
		ps.at(at.child("name"), "rule name %q is used twice; rule names are unique", name)
	}
	names[name] = true
	r.name = name

	reason, ok := ps.str(m, at, "reason")
	switch {
	case !ok && m["reason"] == nil && kind != Allow:
		ps.at(at, "%s rule %q needs a reason: say why, and what to do instead (the model reads it)", what, name)
	case !ok && m["reason"] != nil:
	case strings.ContainsAny(reason, "\r\n"):
		ps.at(at.child("reason"), "reason must be one line")
	case ok && strings.TrimSpace(reason) == "" && kind != Allow:
		ps.at(at.child("reason"), "reason is empty: say why, and what to do instead (the model reads it)")
	}
	r.reason = strings.TrimSpace(reason)

	r.tools = ps.patterns(m, at, "tools", "match every tool", func(t string) string {
		if !contains(Tools, t) {
			return "is not a tool; use " + strings.Join(Tools, ", ")
		}
		return ""
	})
	if s, ok := ps.str(m, at, "program"); ok {
		if problem := validGlob(s); problem != "" {
			ps.at(at.child("program"), "program %q %s", s, problem)
		}
		r.program = s
	}
	r.args = ps.patterns(m, at, "args", "match any arguments", validGlob)
	r.paths = ps.patterns(m, at, "paths", "match any path", func(p string) string {
		_, problem := workspacePath(p, true)
		return problem
	})
	r.writes, _ = ps.boolean(m, at, "writes")
	if len(ps.list) > before {
		return nil
	}
	if r.program == "" && r.args == nil && r.paths == nil && r.tools == nil && !r.writes {
		ps.at(at, "%s rule %q matches every action; give program, args, paths, tools or writes = true", what, name)
		return nil
	}
	return r
}

// patterns reads one of a rule's arrays of strings, checking each with
// check (a problem, or ""); an empty array is refused, saying what
// leaving it out means.
func (ps parser) patterns(m map[string]any, at keyPath, key, omit string, check func(string) string) []string {
	list, ok := ps.strings(m, at, key)
	if !ok {
		return nil
	}
	if len(m[key].([]any)) == 0 {
		ps.at(at.child(key), "%s is empty; leave it out to %s", key, omit)
	}
	for _, it := range list {
		if problem := check(it.s); problem != "" {
			ps.at(at.child(key, strconv.Itoa(it.i)), "%s[%d] %q %s", key, it.i, it.s, problem)
		}
	}
	return texts(list)
}
