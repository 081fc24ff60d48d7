package config

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
)

// The agents' part of the configuration (docs/agents.md; a contract):
//
//	[llm]                 the model provider every role uses
//	provider, base_url, model, api_key_env, temperature, seed, max_tokens,
//	command (process), script (scripted), fallback, timeout,
//	max_response (what is read of one answer, "4MiB")
//	[agents.supervisor]   per-role overrides of [llm], each may name
//	[agents.coder]        another provider and model
//	[agents.writer]
//	[agents.reviewer]
//	[agents.goal]         the model of `lunad goal` (goals.go)
//	[agents.budget]       tokens, calls, time: what one ask may spend
//	[agents.stall]        no_progress_steps: the stall detector's limit
//
// and the environment LUNAD_LLM_PROVIDER, LUNAD_LLM_BASE_URL,
// LUNAD_LLM_MODEL, LUNAD_LLM_API_KEY_ENV, LUNAD_LLM_MAX_RESPONSE over
// [llm]. An API key is never
// configured here: api_key_env names the environment variable that holds
// it, read by the provider when it calls the model, so no key reaches the
// configuration snapshot every run records, a log, an event or a commit.

// Agents is [agents]: the roles' overrides and the budget.
type Agents struct {
	Supervisor llm.Config `toml:"supervisor"`
	Coder      llm.Config `toml:"coder"`
	Writer     llm.Config `toml:"writer"`
	Reviewer   llm.Config `toml:"reviewer"`
	// Goal is [agents.goal]: the goal's model over [llm], and what one
	// goal may spend ([agents.goal.budget]).
	Goal   GoalAgent `toml:"goal"`
	Budget Budget    `toml:"budget"`
	Stall  Stall     `toml:"stall"`
}

// Stall tunes the stall detector of an ask's working memory.
type Stall struct {
	// NoProgressSteps is how many tool steps without progress (no
	// successful write, no read of new data) stop a worker; 0: the
	// detector's default, -1: never.
	NoProgressSteps int `toml:"no_progress_steps"`
}

// Budget is what one ask may spend; 0 is unlimited.
type Budget struct {
	Tokens int           `toml:"tokens"`
	Calls  int           `toml:"calls"`
	Time   time.Duration `toml:"time"`
}

// Roles are the agents' roles, in the order the configuration lists them.
var Roles = []string{"supervisor", "coder", "writer", "reviewer", "goal"}

// providers are the model providers lunad has.
var providerNames = []string{llm.ProviderOpenAI, llm.ProviderAnthropic, llm.ProviderProcess, llm.ProviderScripted}

// DefaultAgents is the built-in budget of one ask.
func DefaultAgents() Agents {
	return Agents{Budget: Budget{Tokens: 200000, Calls: 40, Time: 10 * time.Minute}, Goal: DefaultGoalAgent()}
}

// role is the override of one role.
func (a Agents) role(name string) llm.Config {
	switch name {
	case "supervisor":
		return a.Supervisor
	case "coder":
		return a.Coder
	case "writer":
		return a.Writer
	case "reviewer":
		return a.Reviewer
	case "goal":
		return a.Goal.Config
	}
	return llm.Config{}
}

// LLMFor is the provider configuration of role: [llm] with
// [agents.ROLE] over it, and the default key variable of its provider.
// ErrInvalid, naming the setting and the environment variable to set, if
// no provider is configured or the merged configuration is incomplete (a
// provider without its model, command or script).
func (c Config) LLMFor(role string) (llm.Config, error) {
	if !slices.Contains(Roles, role) {
		return llm.Config{}, fmt.Errorf("%w: no agent role %q (roles: %s)", lunad.ErrInvalid, role, strings.Join(Roles, ", "))
	}
	l := c.LLM.Merge(c.Agents.role(role))
	if l.Provider == "" {
		return l, fmt.Errorf("%w: no model provider configured: set [llm] provider in %s or LUNAD_LLM_PROVIDER (openai, anthropic, process or scripted), and [llm] model or LUNAD_LLM_MODEL; docs/agents.md shows a setup for each",
			lunad.ErrInvalid, File)
	}
	l.APIKeyEnv = l.KeyEnv()
	if err := l.Validate(); err != nil {
		return l, fmt.Errorf("the %s's model: %w", role, err)
	}
	return l, nil
}

func (c *Config) loadLLMEnv(getenv func(string) string) error {
	for _, e := range []struct {
		name string
		v    *string
	}{
		{"LUNAD_LLM_PROVIDER", &c.LLM.Provider},
		{"LUNAD_LLM_BASE_URL", &c.LLM.BaseURL},
		{"LUNAD_LLM_MODEL", &c.LLM.Model},
		{"LUNAD_LLM_API_KEY_ENV", &c.LLM.APIKeyEnv},
	} {
		if v := getenv(e.name); v != "" {
			*e.v = v
		}
	}
	if v := getenv("LUNAD_LLM_MAX_RESPONSE"); v != "" {
		n, err := lunad.ParseByteSize(v)
		if err != nil {
			return fmt.Errorf("%w: LUNAD_LLM_MAX_RESPONSE=%v", lunad.ErrInvalid, err)
		}
		c.LLM.MaxResponse = n
	}
	return nil
}

// envName is what an environment variable's name may be.
var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`) })

// validateAgents checks [llm], each role's override over it, and the
// budget. A configuration without a provider is valid (lunad works
// without agents; an ask says what to set).
func (c Config) validateAgents(bad func(string, ...any) error) error {
	if err := validateLLM(c.LLM, "llm", "LUNAD_LLM_", bad); err != nil {
		return err
	}
	for _, r := range Roles {
		over := c.Agents.role(r)
		if err := validateLLM(over, "agents."+r, "", bad); err != nil {
			return err
		}
		if over.Fallback == r {
			return bad("agents.%s.fallback names the role itself; name another role", r)
		}
	}
	if n := c.Agents.Stall.NoProgressSteps; n < -1 || n > 10000 {
		return bad("agents.stall.no_progress_steps %d must be between -1 (never) and 10000 (0: the default)", n)
	}
	for _, b := range []struct {
		where string
		b     Budget
	}{{"agents.budget", c.Agents.Budget}, {"agents.goal.budget", c.Agents.Goal.Budget}} {
		if b.b.Tokens < 0 || b.b.Calls < 0 || b.b.Time < 0 {
			return bad("%s tokens %d, calls %d, time %v must not be negative (0: unlimited)", b.where, b.b.Tokens, b.b.Calls, b.b.Time)
		}
	}
	return c.Tests.validate(bad)
}

// validate checks one provider section: where says which ([llm],
// [agents.coder]) and env the prefix of its environment variables.
func validateLLM(l llm.Config, where, env string, bad func(string, ...any) error) error {
	setting := func(key string) string {
		if env != "" {
			return fmt.Sprintf("%s.%s (or %s%s)", where, key, env, strings.ToUpper(key))
		}
		return where + "." + key
	}
	if l.Provider != "" && !slices.Contains(providerNames, l.Provider) {
		return bad("%s %q is not a provider lunad has: openai (also Ollama, vLLM, llama.cpp, LM Studio through base_url), anthropic, process or scripted", setting("provider"), l.Provider)
	}
	if l.BaseURL != "" {
		u, err := url.Parse(l.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("%s %q must be an http or https URL such as http://127.0.0.1:11434/v1", setting("base_url"), lunad.RedactURL(l.BaseURL))
		}
		if u.User != nil {
			return bad("%s must not carry credentials: name the environment variable holding the key in %s", setting("base_url"), setting("api_key_env"))
		}
	}
	if l.APIKeyEnv != "" && !envName().MatchString(l.APIKeyEnv) {
		// The value may be a key pasted in by mistake: never repeat it.
		return bad("%s must name the environment variable that holds the API key (such as OPENAI_API_KEY), not the key itself: set the key in that variable's environment", setting("api_key_env"))
	}
	if t := l.Temperature; t != nil && (*t < 0 || *t > 2 || *t != *t) {
		return bad("%s.temperature %v must be between 0 and 2", where, *t)
	}
	if l.MaxTokens < 0 || l.MaxTokens > 1<<20 {
		return bad("%s.max_tokens %d must be between 0 (%d, lunad's default) and %d", where, l.MaxTokens, llm.DefaultMaxTokens, 1<<20)
	}
	if l.Timeout < 0 || l.Timeout > time.Hour {
		return bad("%s.timeout %v must be between 0 (120s) and 1h", where, l.Timeout)
	}
	if m := l.MaxResponse; m != 0 && (m < llm.MinMaxResponse || m > llm.MaxMaxResponse) {
		return bad("%s %s must be between %s and %s (0: %s)", setting("max_response"), m, llm.MinMaxResponse, llm.MaxMaxResponse, lunad.ByteSize(llm.DefaultMaxResponse))
	}
	if l.Fallback != "" && !slices.Contains(Roles, l.Fallback) {
		return bad("%s.fallback %q must name a role: %s", where, l.Fallback, strings.Join(Roles, ", "))
	}
	switch l.Provider {
	case "process":
		if len(l.Command) == 0 {
			return bad("%s.command must be set for the process provider: the command that reads a request as JSON on stdin and prints the response", where)
		}
	case "scripted":
		if l.Script == "" {
			return bad("%s.script must be set for the scripted provider: the file of canned responses", where)
		}
	}
	return nil
}
