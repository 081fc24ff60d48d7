package daemon

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/config"
	"github.com/lunad/lunad/daemon/rpc"
)

// status is the daemon's part of its status (rpc.ServeOptions.Status):
// the configuration in force and where it came from, the last reload's
// failure, a pending restart, the runs in flight and the memory.
func (s *Server) status() rpc.DaemonInfo {
	l := s.live
	l.mu.Lock()
	cfg, loaded, reloadErr, pending := l.cfg, l.loaded, l.reloadErr, l.pending
	l.mu.Unlock()
	info := rpc.DaemonInfo{ConfigFile: config.File, ConfigLoaded: loaded.UTC(), Config: settingsOf(cfg), Env: s.envNames(),
		ReloadError: reloadErr, Restarted: s.o.Restarted, RunsInFlight: s.svc.RunsInFlight(), Memory: residentMemory(),
		Auto: s.o.Auto, IdleTimeout: s.o.IdleTimeout}
	switch {
	case pending == "":
	case s.o.Auto:
		info.RestartPending = pending + "; the daemon restarts once no request and no run stage is in flight"
	default:
		info.RestartPending = pending + "; this daemon (lunad serve, not started by a client) takes it once restarted: run `lunad daemon restart`"
	}
	return info
}

// restartReason is what changed that the daemon restarts for.
func (l *liveConfig) restartReason() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pending
}

// settingsOf are the settings of cfg the status shows, by the name the
// file gives them; URLs lose their credentials and no key is shown.
func settingsOf(cfg config.Config) map[string]string {
	m := map[string]string{
		"author":                 cfg.Author.Name,
		"author.email":           cfg.Author.Email,
		"lock_timeout":           cfg.LockTimeout.String(),
		"max_content":            strconv.Itoa(cfg.MaxContent),
		"llm.provider":           cfg.LLM.Provider,
		"llm.base_url":           lunad.RedactURL(cfg.LLM.BaseURL),
		"llm.model":              cfg.LLM.Model,
		"llm.max_tokens":         strconv.Itoa(cfg.LLM.MaxTokens),
		"llm.api_key_env":        cfg.LLM.APIKeyEnv,
		"runs.slots":             strconv.Itoa(cfg.Runs.Slots),
		"queue.url":              lunad.RedactURL(cfg.Queue.URL),
		"daemon.idle_timeout":    cfg.Daemon.IdleTimeout.String(),
		"daemon.memory_limit":    fmt.Sprint(cfg.Daemon.MemoryLimit),
		"daemon.record_saves":    strconv.FormatBool(cfg.Daemon.RecordSaves),
		"daemon.max_connections": strconv.Itoa(cfg.Daemon.MaxConnections),
	}
	for k, v := range m {
		if v == "" {
			delete(m, k)
		}
	}
	return m
}

// envNames are the LUNAD_* variables set in the daemon's environment
// (read through Options.Getenv), which take precedence over the file.
func (s *Server) envNames() []string {
	var names []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "LUNAD_") && s.o.Getenv(name) != "" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// residentMemory is the process's resident set size in bytes, 0 where
// /proc/self/statm cannot be read.
func residentMemory() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}

// Successor starts the daemon that takes over the workspace at root
// after this one stopped to restart (Run's rpc.ErrRestart), once this
// one is closed: `lunad serve --auto --restarted WHY`, as a client
// starts one, and waits until it serves.
func Successor(ctx context.Context, root, why string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ws, err := rpc.Connect(ctx, root, rpc.ConnectOptions{AutoStart: true, StartArgs: []string{"--restarted", why}})
	if err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	return ws.Close()
}

// RestartReason is what changed in the configuration that the daemon
// restarts for (empty if nothing did).
func (s *Server) RestartReason() string { return s.live.restartReason() }
