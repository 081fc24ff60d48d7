package tools_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/tools"
)

// TestDecodeArgs: another tool set's arguments are read as strictly as
// this package's, from the schema alone.
func TestDecodeArgs(t *testing.T) {
	tool := llm.Tool{Name: "run_command", Schema: json.RawMessage(`{"type":"object","properties":{"argv":{"type":"array","items":{"type":"string"}},"cwd":{"type":"string"}},"required":["argv"],"additionalProperties":false}`)}
	type args struct {
		Argv []string `json:"argv"`
		Cwd  string   `json:"cwd"`
	}
	for _, c := range []struct {
		name, raw, err string
		want           args
	}{
		{name: "ok", raw: `{"argv":["go","test"],"cwd":"pkg"}`, want: args{Argv: []string{"go", "test"}, Cwd: "pkg"}},
		{name: "optional left out", raw: ` {"argv":["ls"]} `, want: args{Argv: []string{"ls"}}},
		{name: "required missing", raw: `{"cwd":"x"}`, err: `run_command: bad arguments: argument "argv" is required`},
		{name: "required null", raw: `{"argv":null}`, err: `argument "argv" is required`},
		{name: "unknown", raw: `{"argv":["ls"],"shell":true}`, err: `unknown argument "shell"; the arguments are argv, cwd`},
		{name: "wrong type", raw: `{"argv":"ls -l"}`, err: `argument "argv" must be an array, not a JSON string`},
		{name: "not json", raw: `{"argv":[`, err: "the arguments are not valid JSON"},
		{name: "not an object", raw: `["ls"]`, err: "must be a JSON object with argv, cwd, not an array"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got args
			err := tools.DecodeArgs(tool, json.RawMessage(c.raw), &got)
			if c.err == "" {
				if err != nil || strings.Join(got.Argv, " ") != strings.Join(c.want.Argv, " ") || got.Cwd != c.want.Cwd {
					t.Fatalf("got %+v, %v; want %+v", got, err, c.want)
				}
				return
			}
			var ae *tools.ArgError
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("error %v; want an *ArgError with %q", err, c.err)
			}
		})
	}
	if err := tools.DecodeArgs(llm.Tool{Name: "broken", Schema: json.RawMessage(`"x"`)}, nil, &struct{}{}); !errors.Is(err, lunad.ErrInvalid) {
		t.Errorf("a bad schema: %v; want ErrInvalid", err)
	}
}
