package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/config"
)

func TestParseByteSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want lunad.ByteSize
		err  bool
	}{
		{"0", 0, false},
		{"off", 0, false},
		{"134217728", 128 << 20, false},
		{"128MiB", 128 << 20, false},
		{" 1 GiB ", 1 << 30, false},
		{"512KiB", 512 << 10, false},
		{"2TiB", 2 << 40, false},
		{"100B", 100, false},
		{"", 0, true},
		{"lots", 0, true},
		{"128MB", 0, true}, // GOMEMLIMIT's units are binary: MiB
		{"-1MiB", 0, true},
		{"1.5GiB", 0, true},
		{"9999999TiB", 0, true}, // overflows
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := lunad.ParseByteSize(tc.in)
			if (err != nil) != tc.err || got != tc.want {
				t.Fatalf("ParseByteSize(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.err)
			}
			if err != nil && !strings.Contains(err.Error(), "96MiB") {
				t.Fatalf("error %q does not say how to write a size", err)
			}
		})
	}
	for _, b := range []lunad.ByteSize{0, 96 << 20, 1 << 30, 3 << 10, 1000} {
		if back, err := lunad.ParseByteSize(b.String()); err != nil || back != b {
			t.Errorf("%d written %q reads back %d, %v", b, b.String(), back, err)
		}
	}
}

// TestMemoryLimitConfig: daemon.memory_limit from the file (a string with
// a unit or an integer of bytes), LUNAD_MEMORY_LIMIT over it, and bad
// values refused naming the setting.
func TestMemoryLimitConfig(t *testing.T) {
	for _, tc := range []struct {
		name, toml string
		env        []string
		want       lunad.ByteSize
		err        string
	}{
		{"default", "", nil, config.DefaultMemoryLimit, ""},
		{"file with a unit", "[daemon]\nmemory_limit = \"200MiB\"\n", nil, 200 << 20, ""},
		{"file in bytes", "[daemon]\nmemory_limit = 67108864\n", nil, 64 << 20, ""},
		{"file off", "[daemon]\nmemory_limit = \"off\"\n", nil, 0, ""},
		{"env over file", "[daemon]\nmemory_limit = \"200MiB\"\n", []string{"LUNAD_MEMORY_LIMIT", "1GiB"}, 1 << 30, ""},
		{"env zero", "", []string{"LUNAD_MEMORY_LIMIT", "0"}, 0, ""},
		{"too small", "[daemon]\nmemory_limit = \"1MiB\"\n", nil, 0, "daemon.memory_limit 1MiB must be 0 (none) or between 32MiB and 1TiB"},
		{"too large", "", []string{"LUNAD_MEMORY_LIMIT", "2TiB"}, 0, "daemon.memory_limit 2TiB must be 0 (none) or between 32MiB and 1TiB"},
		{"not a size", "[daemon]\nmemory_limit = \"lots\"\n", nil, 0, `"lots" is not a size`},
		{"negative", "[daemon]\nmemory_limit = -5\n", nil, 0, "-5 is not a size"},
		{"a float", "[daemon]\nmemory_limit = 1.5\n", nil, 0, "is not a size"},
		{"bad env", "", []string{"LUNAD_MEMORY_LIMIT", "12XB"}, 0, `LUNAD_MEMORY_LIMIT="12XB" is not a size`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := config.Load(agentsRoot(t, tc.toml), envOf(tc.env...))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || ExitCode(err) != 1 {
					t.Fatalf("error %v, want one mentioning %q", err, tc.err)
				}
				return
			}
			if err != nil || c.Daemon.MemoryLimit != tc.want {
				t.Fatalf("memory limit %d, %v; want %d", c.Daemon.MemoryLimit, err, tc.want)
			}
		})
	}
}

// TestServeMemoryLimit: `lunad serve` runs under the configured limit (as
// the runtime reports it once set: the log's memory_limit), or under
// GOMEMLIMIT when the environment sets it.
func TestServeMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		name string
		toml string
		env  []string
		want string
	}{
		{"configured", "[daemon]\nmemory_limit = \"80MiB\"\n", nil, "memory_limit=83886080"},
		{"from LUNAD_MEMORY_LIMIT", "[daemon]\nmemory_limit = \"80MiB\"\n", []string{"LUNAD_MEMORY_LIMIT=64MiB"}, "memory_limit=67108864"},
		{"GOMEMLIMIT wins", "[daemon]\nmemory_limit = \"80MiB\"\n", []string{"GOMEMLIMIT=300MiB"}, "memory_limit=314572800"},
		{"none", "[daemon]\nmemory_limit = 0\n", nil, "memory_limit=9223372036854775807"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := newWSWith(t, "a.md", "alpha\n")
			w.env = tc.env
			if err := os.WriteFile(filepath.Join(w.dir, ".luna", "config.toml"), []byte(tc.toml), 0o644); err != nil {
				t.Fatal(err)
			}
			p := w.serve()
			log, ok := p.stderr.waitFor(10*time.Second, "daemon serving")
			if !ok || !strings.Contains(log, " "+tc.want+"\n") {
				t.Fatalf("want %s in the daemon's log:\n%s", tc.want, log)
			}
			if err := p.stop(t, syscall.SIGTERM); err != nil {
				t.Fatalf("lunad serve: %v\n%s", err, p.stderr)
			}
		})
	}
}
