package main

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// A 257-byte Markdown file of 256 nested block quotes aborted every lunad
// process that parsed it (the grammar's scanner, SIGABRT). Now it is
// indexed as far as safe: refs, symbols and stale answer, with and without
// the daemon, and the daemon lives on.
func TestDeepMarkdownSurvives(t *testing.T) {
	bothModes(t, func(t *testing.T, withDaemon bool) {
		w, _ := newWSWith(t, "config.py", "def parse_config():\n    pass\n")
		deep := w.create("deep.md", "# Deep\n\nSee `parse_config`.\n\n"+strings.Repeat(">", 256)+" x\n")
		var p *daemonProc
		if withDaemon {
			p = w.serve()
			defer p.stop(t, syscall.SIGTERM)
		}
		if out := w.ok("symbols", deep); !strings.Contains(out, "Deep") {
			t.Fatalf("symbols:\n%s", out)
		}
		if out := w.ok("refs", deep); !strings.Contains(out, "parse_config") {
			t.Fatalf("refs:\n%s", out)
		}
		w.ok("stale")
		if withDaemon {
			if log, ok := p.stderr.waitFor(10*time.Second, "artifact indexed in part", "nested deeper than 100"); !ok {
				t.Fatalf("the daemon did not say deep.md was indexed in part:\n%s", log)
			}
			if w.served() == 0 {
				t.Fatal("the daemon answered nothing")
			}
		}
	})
}
