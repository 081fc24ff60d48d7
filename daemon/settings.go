package daemon

import (
	"time"

	"github.com/lunad/lunad/daemon/rpc"
	"github.com/lunad/lunad/gitstore"
)

// indexSyncDelay is the daemon's gitstore.Options.IndexSyncDelay: the git
// index follows its commits at most this long after them, so that `git
// status` is clean while the daemon runs (a one-shot command syncs it when
// it closes the store).
const indexSyncDelay = 50 * time.Millisecond

// watcherStart bounds how long the daemon waits for its watcher before it
// serves (see Server.Run).
const watcherStart = 3 * time.Second

// Settings is the configuration that a daemon's answers depend on, as
// the store's options o have it: a client configured otherwise does not
// use the daemon.
func Settings(o gitstore.Options) *rpc.Settings {
	return &rpc.Settings{Author: o.Human.Name, Email: o.Human.Email, LockTimeout: o.LockTimeout, MaxContent: o.MaxContent}
}

// maxFrame is the largest message the daemon reads: the default (64 MiB),
// or 10 × max_content if that is more, so that every edit the command line
// accepts fits (SEARCH and REPLACE files may hold 4 × max_content each,
// and JSON escapes some bytes).
func maxFrame(o gitstore.Options) int {
	return max(rpc.DefaultMaxFrame, 10*o.MaxContent)
}

func socketOf(ln any) string {
	if p, ok := ln.(interface{ Path() string }); ok {
		return p.Path()
	}
	return ""
}
