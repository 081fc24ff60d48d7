package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/daemon"
	"github.com/lunad/lunad/runs/natsqueue"
)

var cmdWorker = &command{
	name:    "worker",
	args:    "[--queue URL] [--agents WORKFLOW[.STAGE],...] [--slots N] | key [--daemon]",
	summary: "run workflow stages taken from a NATS JetStream queue, in this clone of the workspace",
	help: `A worker takes stage messages from the queue that a workspace's daemon
publishes to (its [queue] url), runs each stage's command here — this
directory is a clone of the workspace — and publishes the result; the
daemon alone records it and commits the stage's writes. --queue defaults
to queue.url from the configuration or LUNAD_QUEUE_URL. --agents takes
only the stages of those workflows (or WORKFLOW.STAGE); workers whose
filters overlap are refused by the server. The worker runs until SIGINT or
SIGTERM, stopping its stages (which go back to the queue). Logs go to
standard error.

Every message is signed. The worker runs only stage messages signed by a
daemon whose key is in queue.daemons, and only the command this clone's
own workflow file gives the stage at the message's workflow version, in
the sandbox goals' commands run in (the policy's limits) unless the stage
says sandbox = false. The daemon takes only results signed by a key in
queue.workers.

"lunad worker key" prints this clone's worker key, to register in the
daemon's queue.workers; "lunad worker key --daemon" prints this
workspace's daemon key, to register in the workers' queue.daemons. Each
key's seed is made on first use, in the git directory (luna/queue-*.nk,
mode 0600). docs/runs.md says how to set a queue up.`,
	minArgs: 0, maxArgs: 1,
	run: runWorker,
}

func runWorker(m *Main, ctx context.Context, fs *flagSet, args []string) error {
	queueURL := fs.String("queue", "", "the NATS server's `URL` (default: queue.url)")
	agents := fs.String("agents", "", "take only these workflows' stages: `WORKFLOW[.STAGE],...`")
	slots := fs.Int("slots", 1, "stages run at once")
	daemonKey := fs.Bool("daemon", false, "with key: print the daemon's key instead of the worker's")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	root := findRoot(m.workDir())
	if len(pos) == 1 {
		if pos[0] != "key" {
			return fs.usageError("unknown argument %q: lunad worker takes no argument but key", pos[0])
		}
		role := daemon.RoleWorker
		if *daemonKey {
			role = daemon.RoleDaemon
		}
		return printKey(m, root, role)
	}
	if *daemonKey {
		return fs.usageError("--daemon goes with lunad worker key")
	}
	if *slots < 1 || *slots > 256 {
		return fs.usageError("--slots %d must be between 1 and 256", *slots)
	}
	cfg, err := m.config()
	if err != nil {
		return err
	}
	q := cfg.Queue
	if *queueURL != "" {
		q.URL = *queueURL
	}
	if q.URL == "" {
		return fs.usageError("no queue: give --queue nats://HOST:PORT, or set queue.url in .luna/config.toml or LUNAD_QUEUE_URL")
	}
	if err := q.Validate(); err != nil {
		return fs.usageError("%v", err)
	}
	log := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	queue, err := daemon.OpenQueue(ctx, q, root, daemon.RoleWorker, m.Getenv, log)
	if err != nil {
		return err
	}
	defer queue.Close()
	var filter []string
	if *agents != "" {
		filter = strings.Split(*agents, ",")
	}
	// The stages' commands run as goals' commands do: the clone's policy
	// (.luna/policy.toml) sets the sandbox's limits and network.
	sb := daemon.NewGoalHost(root, m.Getenv, log)
	log.Info("worker serving", "queue", lunad.RedactURL(q.URL), "root", root, "slots", *slots)
	return natsqueue.NewWorker(queue, root, natsqueue.WorkerOptions{Slots: *slots, Agents: filter, Logger: log, Sandbox: sb}).Run(ctx)
}

// printKey prints the public key of root's daemon or worker key.
func printKey(m *Main, root string, role daemon.QueueRole) error {
	path, err := daemon.KeyFile(root, role)
	if err != nil {
		return err
	}
	pub, err := natsqueue.PublicKey(path)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(m.Stdout, pub)
	return err
}
