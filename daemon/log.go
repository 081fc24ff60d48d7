package daemon

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/lunad/lunad/daemon/rpc"
)

// openLog makes the daemon's logger: to Options.LogFile, else the
// configured daemon.log_file (relative to the workspace root), else, for
// a daemon a client started, <git dir>/luna/lunad.log, else Stderr.
func (s *Server) openLog() error {
	state, _, err := rpc.StateDir(s.o.Root)
	if err != nil {
		return err
	}
	path := s.o.LogFile
	if path == "" {
		path = s.o.Config.Daemon.LogFile
	}
	if path == "" && s.o.Auto {
		path = filepath.Join(state, rpc.LogName)
	}
	out := s.o.Stderr
	if path != "" {
		if !filepath.IsAbs(path) && s.o.LogFile == "" {
			path = filepath.Join(s.o.Root, path) // the configured file is relative to the root
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("daemon log: %w", err)
		}
		s.logFile, out = f, f
	}
	s.log = slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelInfo}))
	return nil
}
