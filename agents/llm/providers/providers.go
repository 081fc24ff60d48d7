package providers

import (
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/anthropic"
	"github.com/lunad/lunad/agents/llm/openai"
	"github.com/lunad/lunad/agents/llm/process"
	"github.com/lunad/lunad/agents/llm/scripted"
)

// Option adjusts New.
type Option func(*options)

type options struct {
	retry   llm.RetryOptions
	noRetry bool
}

// WithRetry sets the retry policy (its OnAttempt lets budgets and breakers
// see every attempt).
func WithRetry(o llm.RetryOptions) Option { return func(opts *options) { opts.retry = o } }

// WithoutRetry returns the bare provider (a replay, or a caller that
// retries by itself).
func WithoutRetry() Option { return func(opts *options) { opts.noRetry = true } }

// New makes the provider cfg names. cfg is completed from the environment
// first (llm.Config.WithEnv: the file's settings win) and validated; the
// API key is read with getenv from the variable cfg.KeyEnv() names. Errors:
// an invalid configuration wraps lunad.ErrInvalid and names the setting; a
// missing key is an *llm.Error of Kind Auth naming the variable; an
// unreadable script names [llm] script.
func New(cfg llm.Config, getenv func(string) string, opts ...Option) (llm.Provider, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	cfg = cfg.WithEnv(getenv)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var (
		p   llm.Provider
		err error
	)
	switch cfg.Provider {
	case llm.ProviderOpenAI:
		p, err = openai.New(cfg, getenv)
	case llm.ProviderAnthropic:
		p, err = anthropic.New(cfg, getenv)
	case llm.ProviderProcess:
		p, err = process.New(cfg)
	case llm.ProviderScripted:
		p, err = scripted.New(cfg)
	}
	if err != nil {
		return nil, err
	}
	if o.noRetry {
		return p, nil
	}
	return llm.Retry(p, o.retry), nil
}
