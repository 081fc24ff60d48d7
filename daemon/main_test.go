package daemon

import (
	"os"
	"testing"

	"github.com/lunad/lunad/sandbox/shim/shimtest"
)

func TestMain(m *testing.M) {
	removeShim := shimtest.Install() // lunad-shim next to this test binary, where the goal host's sandbox finds it
	code := m.Run()
	removeShim()
	os.Exit(code)
}
