package mcp

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// Arguments as clients send them, made what the strict input schemas
// (strictSchema) describe before the SDK checks them: a strict schema
// lists every argument as required, optional ones nullable, while most
// clients leave an optional argument out, and older ones send
// run_workflow's params as an object.

// optionalArgs are the names of a strict input schema's nullable
// properties: the tool's optional arguments, in name order.
func optionalArgs(schema *jsonschema.Schema) []string {
	var names []string
	for name, p := range schema.Properties {
		if slices.Contains(p.Types, "null") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// completeArgs returns raw, a tool's arguments, with each of optional that
// is missing given as null (which the tool reads as left out), and an
// object of params made a list of name and value pairs in name order.
// Arguments that are not a JSON object are returned as they are, for the
// SDK to refuse.
func completeArgs(raw json.RawMessage, optional []string) json.RawMessage {
	var args map[string]json.RawMessage
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, &args); err != nil || args == nil {
		return raw
	}
	changed := false
	for _, name := range optional {
		if _, ok := args[name]; !ok {
			args[name] = json.RawMessage("null")
			changed = true
		}
	}
	if p, ok := args["params"]; ok {
		if pairs, ok := paramPairs(p); ok {
			args["params"] = pairs
			changed = true
		}
	}
	if !changed {
		return raw
	}
	out, err := json.Marshal(args)
	if err != nil {
		return raw
	}
	return out
}

// paramPairs turns params given as an object ({"score": "0.9"}) into the
// list run_workflow's schema describes ([{"name": "score", "value":
// "0.9"}]), by name; ok is false if p is not an object.
func paramPairs(p json.RawMessage) (json.RawMessage, bool) {
	var byName map[string]json.RawMessage
	if !bytes.HasPrefix(bytes.TrimSpace(p), []byte("{")) || json.Unmarshal(p, &byName) != nil {
		return nil, false
	}
	names := make([]string, 0, len(byName))
	for name := range byName {
		names = append(names, name)
	}
	slices.Sort(names)
	type pair struct {
		Name  string          `json:"name"`
		Value json.RawMessage `json:"value"`
	}
	pairs := make([]pair, len(names))
	for i, name := range names {
		pairs[i] = pair{name, byName[name]}
	}
	out, err := json.Marshal(pairs)
	return out, err == nil
}
