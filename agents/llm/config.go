package llm

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/lunad/lunad"
)

// The provider names Config.Provider takes.
const (
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
	ProviderProcess   = "process"
	ProviderScripted  = "scripted"
)

// The environment variables that configure the [llm] section.
const (
	EnvProvider  = "LUNAD_LLM_PROVIDER"
	EnvBaseURL   = "LUNAD_LLM_BASE_URL"
	EnvModel     = "LUNAD_LLM_MODEL"
	EnvAPIKeyEnv = "LUNAD_LLM_API_KEY_ENV"
)

// DefaultTimeout bounds one model call when Config.Timeout is 0.
const DefaultTimeout = 120 * time.Second

// DefaultMaxTokens is the max_tokens sent when neither the request nor
// [llm] max_tokens sets one: enough for an artifact of a few hundred
// lines in one tool call, and a bound on what a server generates on a
// broken request (without one, a local server generates until its
// context is full, on every retry).
const DefaultMaxTokens = 4096

// SettingMaxTokens is the setting an answer cut at max_tokens names.
const SettingMaxTokens = "[llm] max_tokens"

// Config is one provider's configuration: the [llm] section of
// .luna/config.toml, or an [agents.ROLE] override of it (a contract).
// API keys are never part of it: APIKeyEnv names the environment variable
// that holds the key.
type Config struct {
	Provider    string        `toml:"provider" json:"provider,omitempty"` // openai | anthropic | process | scripted
	BaseURL     string        `toml:"base_url" json:"base_url,omitempty"`
	Model       string        `toml:"model" json:"model,omitempty"`
	APIKeyEnv   string        `toml:"api_key_env" json:"api_key_env,omitempty"` // default OPENAI_API_KEY / ANTHROPIC_API_KEY by provider
	Temperature *float64      `toml:"temperature" json:"temperature,omitempty"`
	Seed        *int64        `toml:"seed" json:"seed,omitempty"`
	MaxTokens   int           `toml:"max_tokens" json:"max_tokens,omitempty"`
	Command     []string      `toml:"command" json:"command,omitempty"`   // process provider: argv
	Script      string        `toml:"script" json:"script,omitempty"`     // scripted provider: a file path
	Fallback    string        `toml:"fallback" json:"fallback,omitempty"` // a role name used while this provider's breaker is open
	Timeout     time.Duration `toml:"timeout" json:"timeout,omitempty"`   // one call; "90s" in TOML; 0 = DefaultTimeout
	// MaxResponse bounds what is read of one answer ("4MiB" in TOML; 0 =
	// DefaultMaxResponse): a larger one fails the call for good.
	MaxResponse lunad.ByteSize `toml:"max_response" json:"max_response,omitempty"`
}

// Merge returns c overridden by the fields over sets (a role's
// [agents.ROLE] over the [llm] base). A different provider in over drops
// the base's provider-specific fields (model, base_url, api_key_env,
// command, script) it does not set itself, so that a role switching from
// openai to anthropic inherits neither OpenAI's URL nor its model.
func (c Config) Merge(over Config) Config {
	out := c
	if over.Provider != "" && over.Provider != c.Provider {
		out.Provider = over.Provider
		out.BaseURL, out.APIKeyEnv, out.Command, out.Script, out.Model = "", "", nil, "", ""
	}
	if over.BaseURL != "" {
		out.BaseURL = over.BaseURL
	}
	if over.Model != "" {
		out.Model = over.Model
	}
	if over.APIKeyEnv != "" {
		out.APIKeyEnv = over.APIKeyEnv
	}
	if over.Temperature != nil {
		out.Temperature = over.Temperature
	}
	if over.Seed != nil {
		out.Seed = over.Seed
	}
	if over.MaxTokens != 0 {
		out.MaxTokens = over.MaxTokens
	}
	if over.Command != nil {
		out.Command = over.Command
	}
	if over.Script != "" {
		out.Script = over.Script
	}
	if over.Fallback != "" {
		out.Fallback = over.Fallback
	}
	if over.Timeout != 0 {
		out.Timeout = over.Timeout
	}
	if over.MaxResponse != 0 {
		out.MaxResponse = over.MaxResponse
	}
	return out
}

// WithEnv fills what the file left unset from the environment
// (LUNAD_LLM_PROVIDER, LUNAD_LLM_BASE_URL, LUNAD_LLM_MODEL,
// LUNAD_LLM_API_KEY_ENV): the file is read first, then the environment.
// getenv is injected (os.Getenv in the daemon) so tests never read the real
// environment. A nil getenv changes nothing.
func (c Config) WithEnv(getenv func(string) string) Config {
	if getenv == nil {
		return c
	}
	fill := func(dst *string, key string) {
		if *dst == "" {
			*dst = strings.TrimSpace(getenv(key))
		}
	}
	fill(&c.Provider, EnvProvider)
	fill(&c.BaseURL, EnvBaseURL)
	fill(&c.Model, EnvModel)
	fill(&c.APIKeyEnv, EnvAPIKeyEnv)
	return c
}

// KeyEnv is the environment variable holding the API key: APIKeyEnv, else
// OPENAI_API_KEY for openai and ANTHROPIC_API_KEY for anthropic, else "".
func (c Config) KeyEnv() string {
	if c.APIKeyEnv != "" {
		return c.APIKeyEnv
	}
	switch c.Provider {
	case ProviderOpenAI:
		return "OPENAI_API_KEY"
	case ProviderAnthropic:
		return "ANTHROPIC_API_KEY"
	}
	return ""
}

// TokenLimit is MaxTokens, or DefaultMaxTokens when unset.
func (c Config) TokenLimit() int {
	if c.MaxTokens > 0 {
		return c.MaxTokens
	}
	return DefaultMaxTokens
}

// CallTimeout is Timeout, or DefaultTimeout when unset.
func (c Config) CallTimeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// Validate checks c and says which setting to fix. Its errors wrap
// lunad.ErrInvalid.
func (c Config) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", lunad.ErrInvalid, fmt.Sprintf(format, a...))
	}
	switch c.Provider {
	case "":
		return bad("no model provider configured: set [llm] provider in .luna/config.toml or %s (openai, anthropic, process or scripted)", EnvProvider)
	case ProviderOpenAI, ProviderAnthropic:
		if c.Model == "" {
			return bad("no model configured for provider %s: set [llm] model in .luna/config.toml or %s", c.Provider, EnvModel)
		}
	case ProviderProcess:
		if len(c.Command) == 0 || strings.TrimSpace(c.Command[0]) == "" {
			return bad(`provider process needs a command: set [llm] command = ["program", "arg", ...] in .luna/config.toml`)
		}
	case ProviderScripted:
		if c.Script == "" {
			return bad(`provider scripted needs a script file: set [llm] script = "path/to/responses.jsonl" in .luna/config.toml`)
		}
	default:
		return bad("unknown model provider %q in [llm] provider or %s: use openai, anthropic, process or scripted", c.Provider, EnvProvider)
	}
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("[llm] base_url (or %s) %q is not an http(s) URL such as http://127.0.0.1:11434/v1", EnvBaseURL, lunad.RedactURL(c.BaseURL))
		}
		if u.User != nil {
			return bad("[llm] base_url (or %s) must not carry credentials: put the key in the environment variable named by [llm] api_key_env", EnvBaseURL)
		}
	}
	if c.APIKeyEnv != "" && !isEnvName(c.APIKeyEnv) {
		return bad("[llm] api_key_env (or %s) must name an environment variable (letters, digits, _), not hold the key itself", EnvAPIKeyEnv)
	}
	if t := c.Temperature; t != nil && (*t < 0 || *t > 2) {
		return bad("[llm] temperature %v is out of range: use 0 to 2", *t)
	}
	if c.MaxTokens < 0 {
		return bad("[llm] max_tokens %d is negative: use a positive number or leave it out", c.MaxTokens)
	}
	if c.Timeout < 0 {
		return bad(`[llm] timeout %s is negative: use a duration such as "120s"`, c.Timeout)
	}
	if m := c.MaxResponse; m != 0 && (m < MinMaxResponse || m > MaxMaxResponse) {
		return bad(`[llm] max_response %s must be between %s and %s (0: %s)`, m, MinMaxResponse, MaxMaxResponse, lunad.ByteSize(DefaultMaxResponse))
	}
	return nil
}

func isEnvName(s string) bool {
	for i, r := range s {
		ok := r == '_' || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z') || (i > 0 && r >= '0' && r <= '9')
		if !ok {
			return false
		}
	}
	return s != ""
}

// Apply fills what req leaves unset (model, temperature, seed, max
// tokens) from c: the configuration gives the defaults, a request may
// override them. Max tokens is always set: c's TokenLimit by default.
func (c Config) Apply(req Request) Request {
	if req.Model == "" {
		req.Model = c.Model
	}
	if req.Temperature == nil {
		req.Temperature = c.Temperature
	}
	if req.Seed == nil {
		req.Seed = c.Seed
	}
	if req.MaxTokens <= 0 {
		req.MaxTokens = c.TokenLimit()
	}
	return req
}

// APIKey reads the key from the environment variable KeyEnv names ("" if
// none is named or it is unset). getenv may be nil.
func (c Config) APIKey(getenv func(string) string) string {
	if getenv == nil || c.KeyEnv() == "" {
		return ""
	}
	return strings.TrimSpace(getenv(c.KeyEnv()))
}

// NoKeyError is the Auth error of a provider whose key variable is empty.
func NoKeyError(provider, keyEnv string) *Error {
	return &Error{Provider: provider, Kind: Auth, Setting: keyEnv,
		Err: fmt.Errorf("no API key: the environment variable %s is empty or unset; export it, or name another variable in [llm] api_key_env", keyEnv)}
}
