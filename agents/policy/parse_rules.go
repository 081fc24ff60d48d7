package policy

import (
	"fmt"
	"strconv"
	"strings"
)

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
	case !ruleName().MatchString(name):
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
