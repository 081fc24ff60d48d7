package daemon

import (
	"errors"
	"log/slog"

	"github.com/lunad/lunad/agents/ask"
	"github.com/lunad/lunad/agents/policy"
	"github.com/lunad/lunad/config"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/runs"
	"github.com/lunad/lunad/workspace"
)

// OpenService opens the workspace service at dir with the configuration's
// reference rules: what the daemon serves, and what a command or the
// language server opens in its own process when no daemon serves.
func OpenService(dir string, cfg config.Config, opts gitstore.Options) (*workspace.Service, error) {
	svc, err := workspace.Open(dir, opts)
	if err != nil {
		return nil, err
	}
	if err := svc.SetSlugRule(cfg.Refs.Slugs); err != nil {
		return nil, errors.Join(err, svc.Close())
	}
	return svc, nil
}

// ConfigureRuns gives svc's runs engine the configuration's snapshot and
// slots and lunad's agents (WithAgents), over ro's other options (the
// logger, the queue's process agents). The agents are closed by the
// caller after svc, whose engine calls them.
func ConfigureRuns(svc *workspace.Service, ro runs.Options, cfg config.Config, getenv func(string) string, log *slog.Logger, confirm policy.Confirmer) (*ask.Agents, *GoalHost, error) {
	return configureRuns(svc, ro, cfg, func() config.Config { return cfg }, getenv, log, confirm)
}

// configureRuns is ConfigureRuns whose model providers follow current
// (withAgents).
func configureRuns(svc *workspace.Service, ro runs.Options, cfg config.Config, current func() config.Config, getenv func(string) string, log *slog.Logger, confirm policy.Confirmer) (*ask.Agents, *GoalHost, error) {
	snapshot, err := cfg.Snapshot()
	if err != nil {
		return nil, nil, err
	}
	ro.Config, ro.Slots = snapshot, cfg.Runs.Slots
	agents, goals, err := withAgents(&ro, svc, cfg, current, getenv, log, confirm)
	if err != nil {
		return nil, nil, err
	}
	svc.ConfigureRuns(ro)
	return agents, goals, nil
}
