package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/runs/natsqueue"
)

var cmdWorker = &command{
	name:    "worker",
	args:    "[--queue URL] [--agents WORKFLOW[.STAGE],...] [--slots N]",
	summary: "run workflow stages taken from a NATS JetStream queue, in this clone of the workspace",
	help: `A worker takes stage messages from the queue that a workspace's daemon
publishes to (its [queue] url), runs each stage's command here — this
directory is a clone of the workspace — and publishes the result; the
daemon alone records it and commits the stage's writes. --queue defaults
to queue.url from the configuration or LUNAD_QUEUE_URL. --agents takes
only the stages of those workflows (or WORKFLOW.STAGE); workers whose
filters overlap are refused by the server. The worker runs until SIGINT or
SIGTERM, stopping its stages (which go back to the queue). Logs go to
standard error.`,
	minArgs: 0, maxArgs: 0,
	run: runWorker,
}

func runWorker(m *Main, ctx context.Context, fs *flagSet, args []string) error {
	queueURL := fs.String("queue", "", "the NATS server's `URL` (default: queue.url)")
	agents := fs.String("agents", "", "take only these workflows' stages: `WORKFLOW[.STAGE],...`")
	slots := fs.Int("slots", 1, "stages run at once")
	if _, err := fs.parse(args); err != nil {
		return err
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
	if err := q.validate(); err != nil {
		return fs.usageError("%v", err)
	}
	log := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	queue, err := openQueue(ctx, q, log)
	if err != nil {
		return err
	}
	defer queue.Close()
	var filter []string
	if *agents != "" {
		filter = strings.Split(*agents, ",")
	}
	root := findRoot(m.workDir())
	log.Info("worker serving", "queue", lunad.RedactURL(q.URL), "root", root, "slots", *slots)
	return natsqueue.NewWorker(queue, root, natsqueue.WorkerOptions{Slots: *slots, Agents: filter, Logger: log}).Run(ctx)
}

// openQueue connects to the configured queue.
func openQueue(ctx context.Context, q QueueConfig, log *slog.Logger) (*natsqueue.Queue, error) {
	queue, err := natsqueue.Open(ctx, q.URL, natsqueue.Options{Name: q.Name, AckWait: q.AckWait, MaxDeliver: q.MaxDeliver, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("queue %s: %w", lunad.RedactURL(q.URL), err)
	}
	return queue, nil
}
