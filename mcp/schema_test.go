package mcp

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// schemaRule is one rule a provider's documentation sets for a tool's
// input schema; check returns what breaks it in one tool's, "" if nothing.
type schemaRule struct {
	name  string
	check func(name string, schema map[string]any) string
}

// toolName is the tool-name pattern of both OpenAI's function calling and
// Anthropic's tool use.
var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// strictKeywords are the JSON Schema keywords OpenAI's Structured Outputs
// take in strict mode on every model (the numeric, string and array
// constraints are not, nor is default); Anthropic's strict tool use takes
// no more of these.
var strictKeywords = []string{"type", "description", "title", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref", "$defs"}

// schemaRules are OpenAI's rules for a function's parameters with
// "strict": true (Structured Outputs' supported schemas) and Anthropic's
// for a tool's input_schema (with strict tool use), each a rule of its
// own.
var schemaRules = []schemaRule{
	{"openai/name", func(name string, _ map[string]any) string {
		return unless(toolName.MatchString(name), "the name is not 1 to 64 of a-z, A-Z, 0-9, _ and -")
	}},
	{"openai/root_is_an_object_without_anyOf", func(_ string, s map[string]any) string {
		return unless(s["type"] == "object" && s["anyOf"] == nil, fmt.Sprintf("the root is type %v with anyOf %v", s["type"], s["anyOf"]))
	}},
	{"openai/objects_list_properties", eachObject(func(s map[string]any) string {
		_, ok := s["properties"].(map[string]any)
		return unless(ok, "an object has no properties")
	})},
	{"openai/every_property_required", eachObject(func(s map[string]any) string {
		props, _ := s["properties"].(map[string]any)
		req, _ := s["required"].([]any)
		var missing []string
		for p := range props {
			if !slices.Contains(req, any(p)) {
				missing = append(missing, p)
			}
		}
		slices.Sort(missing)
		return unless(len(missing) == 0 && len(req) == len(props), fmt.Sprintf("properties %v are not required", missing))
	})},
	{"openai/additionalProperties_false", eachObject(func(s map[string]any) string {
		return unless(s["additionalProperties"] == false, fmt.Sprintf("an object has additionalProperties %v", s["additionalProperties"]))
	})},
	{"openai/supported_keywords", eachSchema(func(s map[string]any) string {
		for k := range s {
			if !slices.Contains(strictKeywords, k) {
				return fmt.Sprintf("keyword %q is not supported in strict mode", k)
			}
		}
		return ""
	})},
	{"openai/supported_types", eachSchema(func(s map[string]any) string {
		types := []any{s["type"]}
		if ts, ok := s["type"].([]any); ok {
			types = ts
		}
		for _, t := range types {
			if !slices.Contains([]any{"string", "number", "integer", "boolean", "object", "array", "null"}, t) {
				return fmt.Sprintf("type %v", s["type"])
			}
		}
		return ""
	})},
	{"openai/at_most_100_properties_and_5_levels", func(_ string, s map[string]any) string {
		props, depth := 0, 0
		var walk func(s map[string]any, level int)
		walk = func(s map[string]any, level int) {
			depth = max(depth, level)
			p, _ := s["properties"].(map[string]any)
			props += len(p)
			for _, c := range children(s) {
				next := level
				if isObject(c) {
					next++
				}
				walk(c, next)
			}
		}
		walk(s, 1)
		return unless(props <= 100 && depth <= 5, fmt.Sprintf("%d properties, %d levels", props, depth))
	}},
	{"anthropic/name", func(name string, _ map[string]any) string {
		return unless(toolName.MatchString(name), "the name is not 1 to 64 of a-z, A-Z, 0-9, _ and -")
	}},
	{"anthropic/input_schema_is_type_object", func(_ string, s map[string]any) string {
		return unless(s["type"] == "object", fmt.Sprintf("the root is type %v", s["type"]))
	}},
	{"anthropic/no_oneOf_allOf_anyOf_at_the_top", func(_ string, s map[string]any) string {
		return unless(s["oneOf"] == nil && s["allOf"] == nil && s["anyOf"] == nil, "the root combines schemas")
	}},
	{"anthropic/strict_additionalProperties_false", eachObject(func(s map[string]any) string {
		return unless(s["additionalProperties"] == false, fmt.Sprintf("an object has additionalProperties %v", s["additionalProperties"]))
	})},
	{"anthropic/strict_no_numeric_string_or_array_constraints", eachSchema(func(s map[string]any) string {
		for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "pattern"} {
			if _, ok := s[k]; ok {
				return fmt.Sprintf("keyword %q", k)
			}
		}
		return ""
	})},
}

func unless(ok bool, problem string) string {
	if ok {
		return ""
	}
	return problem
}

// children are the subschemas of s.
func children(s map[string]any) []map[string]any {
	var out []map[string]any
	if props, ok := s["properties"].(map[string]any); ok {
		for _, p := range props {
			if m, ok := p.(map[string]any); ok {
				out = append(out, m)
			}
		}
	}
	if m, ok := s["items"].(map[string]any); ok {
		out = append(out, m)
	}
	if m, ok := s["additionalProperties"].(map[string]any); ok {
		out = append(out, m)
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		list, _ := s[k].([]any)
		for _, c := range list {
			if m, ok := c.(map[string]any); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

func isObject(s map[string]any) bool {
	if ts, ok := s["type"].([]any); ok {
		return slices.Contains(ts, any("object"))
	}
	return s["type"] == "object"
}

// eachSchema checks s and every subschema.
func eachSchema(check func(map[string]any) string) func(string, map[string]any) string {
	var walk func(s map[string]any, at string) string
	walk = func(s map[string]any, at string) string {
		if p := check(s); p != "" {
			return at + ": " + p
		}
		for _, c := range children(s) {
			if p := walk(c, at+"/…"); p != "" {
				return p
			}
		}
		return ""
	}
	return func(_ string, s map[string]any) string { return walk(s, "#") }
}

// eachObject checks every object schema in s.
func eachObject(check func(map[string]any) string) func(string, map[string]any) string {
	return eachSchema(func(s map[string]any) string {
		if !isObject(s) {
			return ""
		}
		return check(s)
	})
}

// TestToolSchemasStrict: every tool's input schema, as tools/list sends
// it, keeps each of OpenAI's strict-mode rules and Anthropic's input_schema
// rules, so that a client sending the tools with "strict": true has none
// refused.
func TestToolSchemasStrict(t *testing.T) {
	cs, _ := connect(t)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) < 20 {
		t.Fatalf("%d tools, want every tool", len(tools.Tools))
	}
	for _, rule := range schemaRules {
		t.Run(rule.name, func(t *testing.T) {
			for _, tool := range tools.Tools {
				b, _ := json.Marshal(tool.InputSchema)
				var s map[string]any
				if err := json.Unmarshal(b, &s); err != nil {
					t.Fatal(err)
				}
				if p := rule.check(tool.Name, s); p != "" {
					t.Errorf("%s: %s in %s", tool.Name, p, b)
				}
			}
		})
	}
}

// TestStrictArguments: a strict client sends every argument, null for one
// it leaves out, and the tool reads it as left out; a client that leaves
// it out still works; a null where a value is needed is refused saying
// null (not the validator's Go value); run_workflow's params are taken as
// pairs, or as the older object.
func TestStrictArguments(t *testing.T) {
	cs := connectRuns(t)
	var doc writeOut
	if res := call(t, cs, "create_artifact", map[string]any{"title": "Guide", "type": "text/markdown", "path": "guide.md", "content": "one\ntwo\n", "agent": nil}, &doc); res.IsError {
		t.Fatal(text(res))
	}
	for _, c := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"nulls", map[string]any{"id": doc.ID, "version": nil, "start_line": nil, "end_line": nil}, "one\ntwo\n"},
		{"left out", map[string]any{"id": doc.ID}, "one\ntwo\n"},
		{"a value among nulls", map[string]any{"id": doc.ID, "version": nil, "start_line": 2, "end_line": nil}, "two\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out readOut
			if res := call(t, cs, "read_artifact", c.args, &out); res.IsError || out.Content != c.want {
				t.Errorf("read_artifact %v = %q (%s), want %q", c.args, out.Content, text(res), c.want)
			}
		})
	}
	t.Run("null where a value is needed", func(t *testing.T) {
		res := call(t, cs, "read_artifact", map[string]any{"id": nil}, nil)
		if msg := text(res); !res.IsError || !strings.Contains(msg, `null has type "null", want "string"`) || strings.Contains(msg, "reflect") {
			t.Errorf("read_artifact with a null id: %s", msg)
		}
	})
	for _, c := range []struct {
		name   string
		params any
		want   string
	}{
		{"params as pairs", []map[string]any{{"name": "score", "value": "0.9"}}, "map[score:0.9 stage:draft]"},
		{"params as an object", map[string]any{"score": "0.8"}, "map[score:0.8 stage:draft]"},
		{"params null", nil, "map[score:1 stage:draft]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var run runOut
			if res := call(t, cs, "run_workflow", map[string]any{"workflow": "review", "params": c.params, "wait": true, "inputs": nil, "key": nil}, &run); res.IsError {
				t.Fatal(text(res))
			}
			if len(run.Stages) == 0 || fmt.Sprint(run.Stages[0].Output) != c.want {
				t.Errorf("run = %+v, want the draft's output %s", run, c.want)
			}
		})
	}
	t.Run("a param given twice", func(t *testing.T) {
		wantError(t, call(t, cs, "run_workflow", map[string]any{"workflow": "review", "params": []map[string]any{{"name": "score", "value": "1"}, {"name": "score", "value": "2"}}}, nil),
			"no run was started", `parameter "score" is given twice`)
	})
}
