package daemon

import (
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
)

// heapProfileEnv names the environment variable that makes the daemon
// write a heap profile when it stops serving (before it closes the
// workspace, so the profile shows the serving state: the reference index,
// the staleness evaluator's caches, the store's objects). Read it with
// `go tool pprof -sample_index=inuse_space lunad FILE`.
const heapProfileEnv = "LUNAD_HEAPPROFILE"

// writeHeapProfile writes the heap profile to the file the environment
// names, if it names one, after a collection so that the profile's in-use
// figures are current. A failure is logged: the daemon's exit status is its
// serving's, not the profile's.
func writeHeapProfile(getenv func(string) string, log *slog.Logger) {
	path := getenv(heapProfileEnv)
	if path == "" {
		return
	}
	if err := heapProfile(path); err != nil {
		log.Error("heap profile not written", "env", heapProfileEnv, "err", err)
		return
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	log.Info("heap profile written", "path", path, "heap_inuse", ms.HeapInuse, "heap_alloc", ms.HeapAlloc, "sys", ms.Sys)
}

func heapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("%w (set %s to a writable path, or unset it)", err, heapProfileEnv)
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
