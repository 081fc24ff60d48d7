package stage_test

import (
	"errors"
	"testing"

	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/stage"
)

// TestModelName: the model half of a stage agent's version.
func TestModelName(t *testing.T) {
	providers := func(role string) (llm.Provider, llm.Config, error) {
		switch role {
		case "coder":
			return &echo{name: "echo"}, llm.Config{Model: "m1"}, nil
		case "writer":
			return &echo{name: "echo"}, llm.Config{}, nil
		}
		return nil, llm.Config{Model: "m2"}, errors.New("no such role")
	}
	for role, want := range map[string]string{"coder": "m1", "writer": "unconfigured", "other": "unconfigured"} {
		if got := stage.ModelName(providers, role); got != want {
			t.Errorf("%s: %q, want %q", role, got, want)
		}
	}
}
