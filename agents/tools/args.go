package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
)

// ArgError is a tool call whose arguments do not fit the tool's schema:
// not JSON, not an object, an unknown or missing argument, a value of the
// wrong type. Its message tells the model what to send.
type ArgError struct {
	Tool string
	Msg  string
}

func (e *ArgError) Error() string { return fmt.Sprintf("%s: bad arguments: %s", e.Tool, e.Msg) }

// decode reads call arguments raw into v (a pointer to the tool's args
// struct), strictly: one JSON object, no unknown fields, every required
// argument present, each of the right type.
func decode(tool string, raw json.RawMessage, v any) error {
	sp := specs[tool]
	return decodeStrict(tool, argNames(sp.schema), sp.required, raw, v)
}

// DecodeArgs reads a call's arguments raw into v (a pointer to the
// tool's args struct) strictly against the tool's JSON schema, as every
// tool of this package is read: one JSON object, no argument the schema's
// properties lack, every argument its "required" lists present, each of
// the right type. Its error is an *ArgError telling the model what to
// send; a schema that is not a JSON object with properties is ErrInvalid
// (a programming error of the tool's author).
func DecodeArgs(t llm.Tool, raw json.RawMessage, v any) error {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(t.Schema, &s); err != nil || s.Properties == nil {
		return fmt.Errorf("%w: tool %s's schema is not a JSON object with properties", lunad.ErrInvalid, t.Name)
	}
	return decodeStrict(t.Name, slices.Sorted(maps.Keys(s.Properties)), s.Required, raw, v)
}

// decodeStrict is DecodeArgs over a tool's argument names (sorted) and
// its required ones.
func decodeStrict(tool string, fields, required []string, raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	if !json.Valid(raw) {
		return &ArgError{tool, fmt.Sprintf("the arguments are not valid JSON (%.80q): send one JSON object with %s", raw, strings.Join(fields, ", "))}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return &ArgError{tool, fmt.Sprintf("the arguments must be a JSON object with %s, not %s", strings.Join(fields, ", "), jsonKind(raw))}
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !slices.Contains(fields, k) {
			return &ArgError{tool, fmt.Sprintf("unknown argument %q; the arguments are %s", k, strings.Join(fields, ", "))}
		}
	}
	for _, k := range required {
		if v, ok := obj[k]; !ok || string(v) == "null" {
			return &ArgError{tool, fmt.Sprintf("argument %q is required", k)}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return &ArgError{tool, fmt.Sprintf("argument %q must be %s, not a JSON %s", te.Field, goKind(te.Type.Kind().String()), te.Value)}
		}
		return &ArgError{tool, err.Error()}
	}
	return nil
}

func goKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "int", "int64":
		return "an integer"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	case "bool":
		return "a boolean"
	}
	return "a " + k
}

func jsonKind(raw []byte) string {
	switch raw[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// argNames are the property names of a tool's schema, sorted.
func argNames(schema string) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal([]byte(schema), &s); err != nil {
		panic("tools: bad built-in schema: " + err.Error())
	}
	return slices.Sorted(maps.Keys(s.Properties))
}

// decodeLoose reads what it can of raw into v, reporting success.
func decodeLoose(raw json.RawMessage, v any) bool { return json.Unmarshal(raw, v) == nil }
