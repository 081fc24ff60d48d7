package memory_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/lunad/lunad/agents/memory"
)

// A worker's loop around its model calls and tool steps: Before each call
// (switching to the fallback while a breaker is open), After it, Step each
// tool result; a guard's error ends the run with its reason.
func Example() {
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	m := memory.New("run-1", memory.Options{
		Clock:   func() time.Time { return now },
		Budget:  memory.Budget{Calls: 3},
		Breaker: memory.BreakerOptions{Fallback: map[string]string{"openai": "ollama"}},
	})
	if err := m.Enter("supervisor", "writer", "write an article"); err != nil {
		fmt.Println(err)
	}
	provider := "openai"
	for {
		err := m.Before("writer", provider)
		var open *memory.BreakerOpenError
		if errors.As(err, &open) && open.Fallback != "" {
			provider = open.Fallback
			continue
		}
		if errors.Is(err, memory.ErrBudget) {
			fmt.Println("budget_exhausted:", err.(*memory.BudgetError).Kind)
			break
		}
		m.After("writer", provider, 100, 20, nil)
		if err := m.Step("writer", memory.Step{Tool: "list_artifacts", Args: "{}", Observation: "a1 article"}); err != nil {
			fmt.Println("stopped:", err.(*memory.StallError).Rule)
			break
		}
	}
	fmt.Println(m.Usage().Calls, "calls,", m.Usage().Tokens, "tokens")
	// Output:
	// budget_exhausted: calls
	// 3 calls, 360 tokens
}
