package stage

import "github.com/lunad/lunad/agents/llm"

// ModelName is the name of role's configured model in providers, the
// model half of a stage agent's version; "unconfigured" when there is
// none.
func ModelName(providers func(role string) (llm.Provider, llm.Config, error), role string) string {
	_, cfg, err := providers(role)
	if err != nil || cfg.Model == "" {
		return "unconfigured"
	}
	return cfg.Model
}
