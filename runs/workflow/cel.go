package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"unicode/utf8"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"

	"github.com/lunad/lunad"
)

// Transitions are CEL expressions (https://cel.dev), compiled once by
// Parse and evaluated by Next over three variables:
//
//	output   map(string, dyn)  the structured output of the stage just finished
//	outputs  map(string, dyn)  the outputs of the stages before it, by stage name
//	run      map(string, dyn)  run.id, run.workflow, run.attempt (int),
//	                           run.params (map of string to string)
//
// Outputs are JSON: their numbers are CEL doubles (compare them with ints
// freely: 1 == 1.0), objects are maps. The CEL standard library has no
// clock and no randomness, and maps are iterated in key order, so an
// expression gives the same result for the same inputs every time. An
// evaluation costs at most MaxCost (CEL's abstract cost units), so no
// expression can run away with the engine.

// MaxCost bounds the runtime cost of one `when` evaluation.
const MaxCost = 100_000

// maxExprLen bounds the length of one `when` expression, in code points.
const maxExprLen = 4096

// maxInputs bounds the JSON of an EvalError's inputs, in bytes.
const maxInputs = 1024

// ErrNoTransition: no `when` of a stage was true and it has no default
// branch (an *EvalError wraps it).
var ErrNoTransition = errors.New("no transition applies")

// program is a compiled `when` (nil for an unconditional branch).
type program = cel.Program

var celEnv = sync.OnceValues(func() (*cel.Env, error) {
	reg, err := types.NewRegistry()
	if err != nil {
		return nil, err
	}
	mapOfDyn := cel.MapType(cel.StringType, cel.DynType)
	return cel.NewEnv(
		cel.Variable("output", mapOfDyn),
		cel.Variable("outputs", mapOfDyn),
		cel.Variable("run", mapOfDyn),
		cel.CrossTypeNumericComparisons(true),
		cel.ParserExpressionSizeLimit(maxExprLen),
		cel.CustomTypeAdapter(sortedAdapter{reg}),
	)
})

// celIssue is one reason an expression does not compile, at a 1-based
// line and 0-based column (in code points) of the expression.
type celIssue struct {
	line, col int
	msg       string
}

// compileWhen compiles a `when` expression to a program that yields a
// bool. A problem with the expression is returned as issues.
func compileWhen(expr string) (program, []celIssue) {
	env, err := celEnv()
	if err != nil { // the declarations above are fixed: cannot happen
		return nil, []celIssue{{line: 1, msg: err.Error()}}
	}
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		var out []celIssue
		for _, e := range iss.Errors() {
			out = append(out, celIssue{line: e.Location.Line(), col: e.Location.Column(), msg: e.Message})
		}
		if len(out) == 0 {
			out = []celIssue{{line: 1, msg: iss.Err().Error()}}
		}
		return nil, out
	}
	if t := ast.OutputType(); !t.IsExactType(cel.BoolType) && !t.IsExactType(cel.DynType) {
		return nil, []celIssue{{line: -1, msg: fmt.Sprintf("has type %s, want bool", t)}}
	}
	prg, err := env.Program(ast, cel.CostLimit(MaxCost))
	if err != nil {
		return nil, []celIssue{{line: -1, msg: err.Error()}}
	}
	return prg, nil
}

// Env is what the transitions out of a stage see.
type Env struct {
	// Output is the stage's structured output: a JSON object (empty is {}).
	Output json.RawMessage
	// Outputs are the outputs of earlier stages, by stage name.
	Outputs map[string]json.RawMessage
	Run     RunVars
}

// RunVars are the run's facts a transition may read as run.*.
type RunVars struct {
	ID       string
	Workflow string
	Attempt  int
	Params   map[string]string
}

// EvalError is a transition that could not be evaluated: a CEL runtime
// error (a missing key, a type mismatch, the cost limit), a result that is
// not a bool, an output that is not JSON, or no branch applying
// (ErrNoTransition). The engine aborts the run with it. It wraps
// lunad.ErrInvalid and Err.
type EvalError struct {
	Stage string
	// Expr is the `when` that failed; empty when no branch applied.
	Expr string
	// Inputs is the JSON of the variables the expression saw, cut to about
	// 1 KB.
	Inputs string
	Err    error
}

func (e *EvalError) Error() string {
	if e.Expr == "" {
		return fmt.Sprintf("stage %q: %v; inputs: %s", e.Stage, e.Err, e.Inputs)
	}
	return fmt.Sprintf("stage %q: when %q: %v; inputs: %s", e.Stage, e.Expr, e.Err, e.Inputs)
}

func (e *EvalError) Unwrap() []error { return []error{lunad.ErrInvalid, e.Err} }

// Next chooses the stage after stage, given its output and the run: the
// first transition (in file order) whose `when` is true, else the default
// branch. It returns End when the run is to finish. Every error is an
// *EvalError, but for a stage the workflow does not have (lunad.ErrNotFound).
func (w *Workflow) Next(stage string, env Env) (string, error) {
	t, err := w.Choose(stage, env)
	return t.To, err
}

// Choose is Next's transition itself, with its Status (the outcome, when
// it ends the run). The errors are Next's.
func (w *Workflow) Choose(stage string, env Env) (Transition, error) {
	st, ok := w.Stages[stage]
	if !ok {
		return Transition{}, fmt.Errorf("%w: workflow %q has no stage %q", lunad.ErrNotFound, w.Name, stage)
	}
	vars, err := activation(w, env)
	if err != nil {
		return Transition{}, &EvalError{Stage: stage, Inputs: inputsJSON(vars), Err: err}
	}
	for _, t := range st.Next {
		if t.prog == nil {
			return t, nil
		}
		val, _, err := t.prog.Eval(vars)
		if err != nil {
			return Transition{}, &EvalError{Stage: stage, Expr: t.When, Inputs: inputsJSON(vars), Err: err}
		}
		b, ok := val.Value().(bool)
		if !ok {
			err := fmt.Errorf("the result is %s %s, not a bool", val.Type().TypeName(), truncate(fmt.Sprint(val.Value()), 100))
			return Transition{}, &EvalError{Stage: stage, Expr: t.When, Inputs: inputsJSON(vars), Err: err}
		}
		if b {
			return t, nil
		}
	}
	return Transition{}, &EvalError{Stage: stage, Inputs: inputsJSON(vars), Err: fmt.Errorf("%w: no `when` is true and there is no default branch", ErrNoTransition)}
}

// activation decodes env into the variables of a CEL evaluation. On an
// error it returns what it could decode, for the error's inputs.
func activation(w *Workflow, env Env) (map[string]any, error) {
	params := map[string]any{}
	for k, v := range env.Run.Params {
		params[k] = v
	}
	vars := map[string]any{
		"run": map[string]any{
			"id":       env.Run.ID,
			"workflow": env.Run.Workflow,
			"attempt":  int64(env.Run.Attempt),
			"params":   params,
		},
	}
	var errs []error
	outputs := map[string]any{}
	for name, raw := range env.Outputs {
		v, err := decodeJSON(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("the output of stage %q is not JSON: %v", name, err))
			v = string(raw)
		}
		outputs[name] = v
	}
	vars["outputs"] = outputs
	out, err := decodeJSON(env.Output)
	if err != nil {
		errs = append(errs, fmt.Errorf("the output is not JSON: %v", err))
		out = string(env.Output)
	} else if _, ok := out.(map[string]any); !ok {
		errs = append(errs, fmt.Errorf("the output is not a JSON object"))
	}
	vars["output"] = out
	return vars, errors.Join(errs...)
}

func decodeJSON(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return map[string]any{}, nil
	}
	var v any
	err := json.Unmarshal(raw, &v)
	return v, err
}

func inputsJSON(vars map[string]any) string {
	b, err := json.Marshal(vars) // map keys sorted: deterministic
	if err != nil {
		return fmt.Sprintf("(%v)", err)
	}
	return truncate(string(b), maxInputs)
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// sortedAdapter turns the decoded JSON of outputs into CEL values whose
// maps iterate in key order (a Go map iterates at random, which would make
// `output.map(k, k)[0]` differ from one evaluation to the next).
type sortedAdapter struct{ base types.Adapter }

func (a sortedAdapter) NativeToValue(v any) ref.Val {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return sortedMap{Mapper: types.NewStringInterfaceMap(a, v), keys: keys}
	case []any:
		return types.NewDynamicList(a, v)
	}
	return a.base.NativeToValue(v)
}

type sortedMap struct {
	traits.Mapper
	keys []string
}

func (m sortedMap) Iterator() traits.Iterator { return &keyIterator{keys: m.keys} }

// keyIterator iterates over a map's keys in order.
type keyIterator struct {
	keys []string
	i    int
}

func (it *keyIterator) HasNext() ref.Val { return types.Bool(it.i < len(it.keys)) }

func (it *keyIterator) Next() ref.Val {
	if it.i >= len(it.keys) {
		return types.NewErr("no more keys")
	}
	it.i++
	return types.String(it.keys[it.i-1])
}

func (it *keyIterator) ConvertToNative(t reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion on iterators not supported")
}
func (it *keyIterator) ConvertToType(ref.Type) ref.Val { return types.NewErr("no such overload") }
func (it *keyIterator) Equal(ref.Val) ref.Val          { return types.NewErr("no such overload") }
func (it *keyIterator) Type() ref.Type                 { return types.IteratorType }
func (it *keyIterator) Value() any                     { return nil }
