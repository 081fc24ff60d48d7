package workflow

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/lunad/lunad"
)

// validName is what a workflow or stage name may be: it names files and
// refs, and is a key of `outputs`.
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_-]*$`) })

// The keys each table may have (in the order messages list them).
var (
	workflowKeys   = []string{"name", "version", "start", "isolated", "stages"}
	stageKeys      = []string{"command", "agent", "params", "timeout", "retry", "sandbox", "next"}
	retryKeys      = []string{"max_attempts", "initial", "max"}
	transitionKeys = []string{"to", "when", "status"}
)

// Parse parses and checks the workflow definition data, read from file
// (the name problems are reported under). It returns a *lunad.CheckError
// holding every problem found, or the workflow with its `when`
// expressions compiled and ready for Next.
func Parse(file string, data []byte) (*Workflow, error) {
	return parse(file, data, "")
}

// parse is Parse, checking also that the name is fileName if it is set.
func parse(file string, data []byte, fileName string) (*Workflow, error) {
	ps := &problems{file: file}
	var raw map[string]any
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		ps.ix = &index{src: string(data), lines: lineStarts(string(data))}
		line, col, msg := 1, 1, err.Error()
		var pe toml.ParseError
		if errors.As(err, &pe) {
			line, col, msg = max(pe.Position.Line, 1), max(pe.Position.Col, 1), "toml: "+pe.Message
			// toml's column can be off by a line; its byte offset is not.
			if l, c := ps.ix.position(pe.Position.Start); l == line {
				col = c
			}
		}
		ps.atPos(line, col, "%s", msg)
		return nil, ps.err()
	}
	ps.ix = newIndex(string(data))
	p := parser{problems: ps, fileName: fileName}
	w := p.workflow(raw, md)
	if err := ps.err(); err != nil {
		return nil, err
	}
	w.File, w.Blob = file, BlobHash(data)
	return w, nil
}

type parser struct {
	*problems
	fileName string // the name the workflow must have, if set
}

func (p *parser) workflow(raw map[string]any, md toml.MetaData) *Workflow {
	w := &Workflow{Stages: map[string]*Stage{}}
	p.unknownKeys(raw, nil, "the workflow", workflowKeys)

	var isStr bool
	w.Name, isStr = p.str(raw, nil, "name")
	switch {
	case raw["name"] == nil:
		p.at(nil, "missing name")
	case !isStr:
	case w.Name != "" && !validName().MatchString(w.Name):
		p.at([]string{"name"}, "name %q: use letters, digits, '_' and '-'", w.Name)
	case w.Name == "":
		p.at([]string{"name"}, "name is empty")
	case p.fileName != "" && w.Name != p.fileName:
		p.at([]string{"name"}, "name %q is not the file's name: rename the workflow to %q or the file to %s.toml", w.Name, p.fileName, w.Name)
	}
	if v, ok := raw["version"].(int64); ok {
		w.Version = strconv.FormatInt(v, 10)
	} else {
		w.Version, _ = p.str(raw, nil, "version")
	}
	w.Start, isStr = p.str(raw, nil, "start")
	if v, has := raw["isolated"]; has {
		b, isBool := v.(bool)
		if !isBool {
			p.at([]string{"isolated"}, "isolated must be true or false (unquoted): true runs each run on a branch of its own")
		}
		w.Isolated = b
	}

	stages, ok := raw["stages"].(map[string]any)
	if raw["stages"] != nil && !ok {
		p.at([]string{"stages"}, "stages must be a table of stages ([stages.NAME])")
	}
	w.Order = stageOrder(md, stages)
	for _, name := range w.Order {
		if st := p.stage(name, stages[name]); st != nil {
			w.Stages[name] = st
		}
	}
	names := w.Order

	switch {
	case raw["start"] == nil:
		p.at(nil, "missing start")
	case !isStr || len(names) == 0 || slices.Contains(names, w.Start):
	default:
		p.at([]string{"start"}, "start %q names no stage (stages: %s)", w.Start, strings.Join(names, ", "))
	}
	if len(names) == 0 && (raw["stages"] == nil || ok) {
		p.at(nil, "no stages: define at least one [stages.NAME]")
	}

	for _, name := range w.Order {
		if st := w.Stages[name]; st != nil {
			p.transitions(st, w.Stages, names)
		}
	}
	checkGraph(w, p.problems)
	return w
}

// stageOrder lists the stage names in the order the document defines them.
func stageOrder(md toml.MetaData, stages map[string]any) []string {
	var order []string
	seen := map[string]bool{}
	for _, k := range md.Keys() {
		if len(k) >= 2 && k[0] == "stages" && !seen[k[1]] {
			if _, ok := stages[k[1]]; ok {
				seen[k[1]] = true
				order = append(order, k[1])
			}
		}
	}
	var rest []string
	for name := range stages {
		if !seen[name] {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	return append(order, rest...)
}

func (p *parser) stage(name string, v any) *Stage {
	path := stagePath(name)
	m, ok := v.(map[string]any)
	if !ok {
		p.at(path, "stage %q must be a table ([stages.%s])", name, name)
		return nil
	}
	st := &Stage{Name: name, Timeout: DefaultTimeout,
		Retry: Retry{MaxAttempts: DefaultMaxAttempts, Initial: DefaultInitial, Max: DefaultMax}}
	bad := false
	switch {
	case name == End:
		p.at(path, "a stage may not be named %q: `to = \"end\"` ends the run", End)
		bad = true
	case !validName().MatchString(name):
		p.at(path, "stage name %q: use letters, digits, '_' and '-'", name)
		bad = true
	}
	p.unknownKeys(m, path, "a stage", stageKeys)

	if c, ok := m["command"]; ok {
		st.Command, ok = stringList(c)
		switch {
		case !ok:
			p.at(append(path, "command"), "command must be an array of strings (the program and its arguments)")
		case len(st.Command) == 0 || st.Command[0] == "":
			p.at(append(path, "command"), "command is empty: name the program to run")
		}
	}
	st.Agent, _ = p.str(m, path, "agent")
	_, hasCommand := m["command"]
	_, hasAgent := m["agent"]
	switch {
	case hasCommand && hasAgent:
		p.at(append(path, "agent"), "stage %q has both command and agent: give exactly one", name)
	case !hasCommand && !hasAgent:
		p.at(path, "stage %q has neither command nor agent: give exactly one", name)
	case hasAgent && st.Agent == "":
		if _, isStr := m["agent"].(string); isStr {
			p.at(append(path, "agent"), "agent is empty: name a built-in agent")
		}
	}

	if v, ok := m["params"]; ok {
		pm, isMap := v.(map[string]any)
		if !isMap {
			p.at(append(path, "params"), "params must be a table of strings")
		}
		for _, k := range sortedKeys(pm) {
			s, isStr := pm[k].(string)
			if !isStr {
				p.at(append(path, "params", k), "params.%s must be a string", toml.Key{k})
				continue
			}
			if st.Params == nil {
				st.Params = map[string]string{}
			}
			st.Params[k] = s
		}
	}
	if d, ok := p.duration(m, path, "timeout"); ok {
		st.Timeout = d
	}
	if v, has := m["sandbox"]; has {
		b, isBool := v.(bool)
		switch {
		case !isBool:
			p.at(append(path, "sandbox"), "sandbox must be true or false (unquoted): false runs the command on `lunad worker` without the sandbox")
		case !hasCommand:
			p.at(append(path, "sandbox"), "sandbox applies to a stage's command, and stage %q has none", name)
		}
		st.Unsandboxed = isBool && !b
	}
	if v, ok := m["retry"]; ok {
		p.retry(v, append(path, "retry"), &st.Retry)
	}
	p.rawTransitions(m, path, st)
	if bad {
		return nil
	}
	return st
}

func (p *parser) retry(v any, path []string, r *Retry) {
	m, ok := v.(map[string]any)
	if !ok {
		p.at(path, "retry must be a table: { max_attempts = N, initial = \"100ms\", max = \"5s\" }")
		return
	}
	p.unknownKeys(m, path, "retry", retryKeys)
	if v, ok := m["max_attempts"]; ok {
		n, isInt := v.(int64)
		switch {
		case !isInt:
			p.at(append(path, "max_attempts"), "max_attempts must be an integer")
		case n < 1:
			p.at(append(path, "max_attempts"), "max_attempts is %d: it counts the first attempt, so it must be at least 1", n)
		case n > 1000:
			p.at(append(path, "max_attempts"), "max_attempts is %d: at most 1000", n)
		default:
			r.MaxAttempts = int(n)
		}
	}
	initial, okI := p.duration(m, path, "initial")
	if okI {
		r.Initial = initial
	}
	maxd, okM := p.duration(m, path, "max")
	if okM {
		r.Max = maxd
	}
	if r.Initial > r.Max && (okI || okM) {
		key := "initial"
		if okM {
			key = "max"
		}
		p.at(append(path, key), "retry initial %v is more than max %v", r.Initial, r.Max)
	}
}

// rawTransitions reads a stage's `next` (an array of tables, or an array
// of inline tables); the `when` expressions are compiled here.
func (p *parser) rawTransitions(m map[string]any, path []string, st *Stage) {
	v, ok := m["next"]
	if !ok {
		return
	}
	var list []map[string]any
	switch v := v.(type) {
	case []map[string]any:
		list = v
	case []any:
		for i, e := range v {
			t, isMap := e.(map[string]any)
			if !isMap {
				p.at(append(path, "next", strconv.Itoa(i)), "next must be an array of tables ([[stages.%s.next]])", st.Name)
				return
			}
			list = append(list, t)
		}
	default:
		p.at(append(path, "next"), "next must be an array of tables ([[stages.%s.next]])", st.Name)
		return
	}
	for i, t := range list {
		tp := append(slices.Clone(path), "next", strconv.Itoa(i))
		p.unknownKeys(t, tp, "a transition", transitionKeys)
		var tr Transition
		var isStr bool
		tr.To, isStr = p.str(t, tp, "to")
		if t["to"] == nil {
			p.at(tp, "a transition of stage %q has no `to`", st.Name)
		} else if isStr && tr.To == "" {
			p.at(append(tp, "to"), "to is empty: name a stage, or \"end\"")
		}
		if _, has := t["status"]; has {
			if tr.Status, isStr = p.str(t, tp, "status"); isStr {
				p.status(tr, append(tp, "status"))
			}
		}
		when, has := t["when"]
		tr.When, isStr = p.str(t, tp, "when")
		switch {
		case !has:
		case !isStr:
			tr.When = fmt.Sprint(when) // conditional all the same
		case strings.TrimSpace(tr.When) == "":
			p.at(append(tp, "when"), "when is empty: leave it out for the default branch")
			tr.When = "-"
		default:
			tr.prog = p.compile(tr.When, append(tp, "when"))
		}
		st.Next = append(st.Next, tr)
	}
}

// outcomeName is what an end outcome may be: it becomes the run's status.
var outcomeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`) })

// status checks a transition's `status`: an outcome of the run, so only
// on a transition to end, and none of the statuses the engine gives.
func (p *parser) status(tr Transition, path []string) {
	switch {
	case tr.To != "" && tr.To != End:
		p.at(path, "status %q on a transition to %q: only a transition to %q ends the run with an outcome", tr.Status, tr.To, End)
	case tr.Status == "":
		p.at(path, "status is empty: leave it out, and a run that ends here is %q", lunad.RunCompleted)
	case !outcomeName().MatchString(tr.Status):
		p.at(path, "status %q: use a lowercase identifier (a-z, 0-9, '_'; a letter first; at most 63), like \"budget_exhausted\"", tr.Status)
	case slices.Contains(engineStatuses, lunad.RunStatus(tr.Status)):
		p.at(path, "status %q is the engine's own; choose another outcome (or leave status out: a run that ends here is %q)", tr.Status, lunad.RunCompleted)
	}
}

// engineStatuses are the run statuses the engine gives itself.
var engineStatuses = []lunad.RunStatus{lunad.RunRunning, lunad.RunCompleted, lunad.RunAborted, lunad.RunCancelled, lunad.RunDeadLettered}

// compile compiles a `when`, reporting its problems at their place in the
// expression when the file holds it verbatim, else at the key.
func (p *parser) compile(expr string, path []string) program {
	prog, issues := compileWhen(expr)
	for _, is := range issues {
		if is.line < 0 {
			p.at(path, "when %s %s", quoteExpr(expr), is.msg)
			continue
		}
		if off, ok := p.ix.stringValue(expr, path...); ok && is.line == 1 {
			if b := runeOffset(expr, is.col); b >= 0 {
				line, col := p.ix.position(off + b)
				p.atPos(line, col, "when: %s", is.msg)
				continue
			}
		}
		p.at(path, "when: %s (line %d, column %d of the expression)", is.msg, is.line, is.col+1)
	}
	return prog
}

// runeOffset is the byte offset of the n-th code point of s (-1 past it).
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	if n == 0 {
		return len(s)
	}
	return -1
}

func quoteExpr(expr string) string {
	return strconv.Quote(truncate(expr, 80))
}

// transitions checks the targets and the default branches of a stage.
func (p *parser) transitions(st *Stage, stages map[string]*Stage, names []string) {
	path := stagePath(st.Name)
	if len(st.Next) == 0 {
		if _, ok := p.ix.spans[pathKey(append(path, "next"))]; !ok {
			p.at(path, "stage %q has no next: add [[stages.%s.next]] with to = %q to end the run there", st.Name, st.Name, End)
		}
		return
	}
	firstDefault := -1
	for i, t := range st.Next {
		tp := append(slices.Clone(path), "next", strconv.Itoa(i))
		if t.To != "" && t.To != End && !slices.Contains(names, t.To) {
			p.at(append(tp, "to"), "to %q names no stage (stages: %s; or %q to end the run)", t.To, strings.Join(names, ", "), End)
		}
		if t.When != "" {
			continue
		}
		if firstDefault >= 0 {
			p.at(append(tp, "to"), "a second unconditional branch (to %q): the one to %q before it is always taken", t.To, st.Next[firstDefault].To)
			continue
		}
		firstDefault = i
		if i < len(st.Next)-1 && slices.ContainsFunc(st.Next[i+1:], func(t Transition) bool { return t.When != "" }) {
			p.at(append(tp, "to"), "the unconditional branch to %q is not last: the branches after it are never taken (put it last)", t.To)
		}
	}
}

// str reads key as a string, reporting a value of another type.
func (p *parser) str(m map[string]any, path []string, key string) (string, bool) {
	v, ok := m[key]
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		p.at(append(slices.Clone(path), key), "%s must be a string", key)
	}
	return s, ok
}

// duration reads key as a positive duration ("30s", "1m30s").
func (p *parser) duration(m map[string]any, path []string, key string) (time.Duration, bool) {
	s, ok := p.str(m, path, key)
	if !ok {
		return 0, false
	}
	kp := append(slices.Clone(path), key)
	d, err := time.ParseDuration(s)
	if err != nil {
		p.at(kp, "%s %q is not a duration (like \"30s\", \"1m30s\", \"100ms\")", key, s)
		return 0, false
	}
	if d <= 0 {
		p.at(kp, "%s %q: must be more than 0", key, s)
		return 0, false
	}
	return d, true
}

// unknownKeys reports the keys of m that are not in known.
func (p *parser) unknownKeys(m map[string]any, path []string, what string, known []string) {
	for _, k := range sortedKeys(m) {
		if !slices.Contains(known, k) {
			p.at(append(slices.Clone(path), k), "unknown key %q in %s (it may have: %s)", k, what, strings.Join(known, ", "))
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// stringList converts a TOML array of strings.
func stringList(v any) ([]string, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok || !utf8.ValidString(s) {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}
