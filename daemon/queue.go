package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/config"
	"github.com/lunad/lunad/internal/gitdir"
	"github.com/lunad/lunad/runs/natsqueue"
)

// QueueRole is which side of the queue a process is: the daemon publishes
// stage messages and takes results, a worker the reverse.
type QueueRole string

// The two sides of the queue.
const (
	RoleDaemon QueueRole = "daemon" // `lunad serve`
	RoleWorker QueueRole = "worker" // `lunad worker`
)

// KeyFile is where the workspace at root keeps the seed of its signing
// key for role: lunad's private state in the repository's git directory,
// never in the working tree.
func KeyFile(root string, role QueueRole) (string, error) {
	c, err := gitdir.Find(root)
	if err != nil {
		return "", fmt.Errorf("the queue's signing key lives in the workspace's git directory: %w", err)
	}
	return filepath.Join(c.CommonDir, "luna", "queue-"+string(role)+".nk"), nil
}

// OpenQueue connects to the configured queue as role, with root's key
// for role, trusting the other side's registered keys.
func OpenQueue(ctx context.Context, q config.Queue, root string, role QueueRole, getenv func(string) string, log *slog.Logger) (*natsqueue.Queue, error) {
	trusted, setting, other := q.Workers, "queue.workers", "lunad worker key"
	if role == RoleWorker {
		trusted, setting, other = q.Daemons, "queue.daemons", "lunad worker key --daemon"
	}
	if len(trusted) == 0 {
		return nil, fmt.Errorf("%w: config: %s is empty, so the %s would trust no one: add the keys `%s` prints (docs/runs.md)", lunad.ErrInvalid, setting, role, other)
	}
	key, err := KeyFile(root, role)
	if err != nil {
		return nil, err
	}
	opts := natsqueue.Options{Name: q.Name, AckWait: q.AckWait, MaxDeliver: q.MaxDeliver, Logger: log,
		KeyFile: key, Trusted: trusted, User: q.User, NkeyFile: q.NkeyFile, CredsFile: q.Credentials}
	if q.PasswordEnv != "" {
		if opts.Password = getenv(q.PasswordEnv); opts.Password == "" {
			return nil, fmt.Errorf("%w: config: queue.password_env names %s, which is not set: set it to the NATS user's password", lunad.ErrInvalid, q.PasswordEnv)
		}
	}
	queue, err := natsqueue.Open(ctx, q.URL, opts)
	if err != nil {
		return nil, fmt.Errorf("queue %s: %w", lunad.RedactURL(q.URL), err)
	}
	return queue, nil
}
