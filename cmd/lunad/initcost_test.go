package main

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// lunadInitBudget is what the package initialisation of any one of
// lunad's own packages may allocate: a one-shot command (show, edit,
// list) pays every linked package's init before it does anything, so
// tables, regular expressions and checksums are made on first use. The
// heaviest left are treesitter's interned kinds and directives (15 KiB).
const lunadInitBudget = 16 << 10

// TestInitCost runs lunad with GODEBUG=inittrace=1 and checks that no
// package of lunad's own allocates more than lunadInitBudget at init,
// naming each that does.
func TestInitCost(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(lunadBin, "help")
	cmd.Env = append(env(t.TempDir()), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("lunad help: %v\n%s", err, out)
	}
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		// init PKG @T ms, D ms clock, B bytes, A allocs
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		pkg := f[1]
		if pkg != "github.com/lunad/lunad" && !strings.HasPrefix(pkg, "github.com/lunad/lunad/") {
			continue
		}
		seen++
		bytes, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", line, err)
		}
		if bytes > lunadInitBudget {
			t.Errorf("%s allocates %d bytes at init (budget %d): make its package-level values on first use (internal/lazyregexp, sync.OnceValue)", pkg, bytes, lunadInitBudget)
		}
	}
	if seen == 0 {
		t.Fatalf("no init line of lunad's packages in GODEBUG=inittrace=1 output:\n%s", out)
	}
}
