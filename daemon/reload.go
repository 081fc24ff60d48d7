package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lunad/lunad/config"
)

// reloadPoll is how often the daemon looks at its configuration file.
// The file is polled, not watched: the watcher leaves .luna out, and an
// editor that saves by renaming a new file over the old one replaces
// what a watch would hold.
const reloadPoll = 250 * time.Millisecond

// liveConfig is the configuration in force in a daemon and what it says
// of it: the file it came from, the last reload's failure, a restart
// waiting for the daemon to be idle.
type liveConfig struct {
	mu        sync.Mutex
	cfg       config.Config
	loaded    time.Time
	reloadErr string // why the file as it is now is not in force
	pending   string // what changed that the daemon takes only once restarted
	notice    string // what to tell the next client (Notice)
}

// takeNotice returns what to tell the next client, once.
func (l *liveConfig) takeNotice() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.notice
	l.notice = ""
	return n
}

func (l *liveConfig) current() config.Config {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cfg
}

// fileStamp identifies a version of the configuration file: a change of
// size, modification time or inode is a change (a missing file has the
// zero stamp).
type fileStamp struct {
	size  int64
	mtime time.Time
	ino   uint64
}

func stampOf(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileStamp{}, nil
	}
	if err != nil {
		return fileStamp{}, err
	}
	st := fileStamp{size: fi.Size(), mtime: fi.ModTime()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.ino = sys.Ino
	}
	return st, nil
}

// followConfig reloads the configuration whenever its file changes, until
// ctx is done: a change of [llm] is in force for the next stage; a change
// that needs a restart (config.NeedsRestart) is sent on restart, once, if
// the daemon restarts by itself (Auto), and otherwise only said in the
// status and the log; an invalid file keeps the configuration in force.
func (s *Server) followConfig(ctx context.Context, restart chan<- string) {
	path := filepath.Join(s.o.Root, filepath.FromSlash(config.File))
	// No stamp is this one: the first look reloads, in case the file
	// changed between the command's Load and now.
	last := fileStamp{size: -1}
	tick := time.NewTicker(reloadPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		st, err := stampOf(path)
		if err != nil || st == last {
			continue
		}
		last = st
		if why := s.reload(); why != "" && restart != nil {
			restart <- why // buffered for one; sent at most once
			restart = nil
		}
	}
}

// reload loads the configuration again and takes what it can; it returns
// why the daemon must restart, if it must and restarts by itself.
func (s *Server) reload() (restart string) {
	l := s.live
	cfg, err := config.Load(s.o.Root, s.o.Getenv)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.reloadErr = err.Error()
		l.notice = "the daemon keeps its configuration: " + l.reloadErr
		s.log.Error("configuration not reloaded; the one in force stays", "file", config.File, "err", err)
		return ""
	}
	l.reloadErr = ""
	// l.cfg is the configuration the daemon opened with, but for [llm]:
	// what differs from it is what a restart would take.
	changed := config.Changed(l.cfg, cfg)
	needs := config.NeedsRestart(changed)
	if len(needs) == 0 && !s.o.Auto {
		l.pending = "" // the file is back to what the daemon opened with
	}
	if len(changed) == 0 {
		return ""
	}
	// Only [llm] is taken live (config.Reload): the rest stays as the
	// daemon opened it, and so does the status that shows it.
	l.cfg.LLM, l.loaded = cfg.LLM, time.Now()
	if len(needs) == 0 {
		s.log.Info("configuration reloaded", "changed", strings.Join(changed, ","))
		l.notice = "the daemon reloaded " + keysOf(changed) + " from " + config.File
		return ""
	}
	why := fmt.Sprintf("%s changed in %s", keysOf(needs), config.File)
	l.pending = why
	if s.o.Auto {
		l.notice = "the daemon restarts once idle: " + why
		s.log.Info("configuration reloaded; restarting when idle", "changed", strings.Join(changed, ","), "restart_for", strings.Join(needs, ","))
		return why
	}
	l.notice = "the daemon takes " + why + " only once restarted: run `lunad daemon restart`"
	s.log.Warn("configuration reloaded; restart the daemon to take all of it", "changed", strings.Join(changed, ","), "restart_for", strings.Join(needs, ","))
	return ""
}

// keysOf names configuration keys as the file writes them: [section] or
// key.
func keysOf(keys []string) string {
	names := make([]string, len(keys))
	for i, k := range keys {
		switch k {
		case "lock_timeout", "max_content": // the settings outside a section
			names[i] = k
		default:
			names[i] = "[" + k + "]"
		}
	}
	return strings.Join(names, ", ")
}
