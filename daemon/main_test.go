package daemon

import (
	"os"
	"testing"

	"github.com/lunad/lunad/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.Init() // the goal host's commands bind this test binary as the Landlock shim
	os.Exit(m.Run())
}
