package config

import (
	"fmt"

	"github.com/lunad/lunad"
)

// Sizes bounding daemon.memory_limit.
const (
	// DefaultMemoryLimit is daemon.memory_limit's default (docs/cli.md):
	// on the 10,000-artifact benchmark workspace the daemon's live heap is
	// 40–60 MB, so the collector keeps some headroom and the resident
	// memory stays under 150 MB (docs/benchmarks.md).
	DefaultMemoryLimit = lunad.ByteSize(80 << 20)
	// minMemoryLimit: below it a daemon's live heap alone (the runtime,
	// the store, a small workspace's index) would keep the collector
	// running without a pause.
	minMemoryLimit = lunad.ByteSize(32 << 20)
	maxMemoryLimit = lunad.ByteSize(1 << 40)
)

// validateMemoryLimit checks daemon.memory_limit.
func (c Config) validateMemoryLimit(bad func(string, ...any) error) error {
	if l := c.Daemon.MemoryLimit; l != 0 && (l < minMemoryLimit || l > maxMemoryLimit) {
		return bad("daemon.memory_limit %s must be 0 (none) or between %s and %s (set it in .luna/config.toml or LUNAD_MEMORY_LIMIT)", l, minMemoryLimit, maxMemoryLimit)
	}
	return nil
}

// loadMemoryLimitEnv reads LUNAD_MEMORY_LIMIT.
func (c *Config) loadMemoryLimitEnv(getenv func(string) string) error {
	v := getenv("LUNAD_MEMORY_LIMIT")
	if v == "" {
		return nil
	}
	n, err := lunad.ParseByteSize(v)
	if err != nil {
		return fmt.Errorf("%w: LUNAD_MEMORY_LIMIT=%v", lunad.ErrInvalid, err)
	}
	c.Daemon.MemoryLimit = n
	return nil
}
