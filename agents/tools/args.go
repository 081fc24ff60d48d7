package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
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
	fields := argNames(sp.schema)
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
	for _, k := range sp.required {
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
