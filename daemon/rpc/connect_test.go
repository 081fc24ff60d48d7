package rpc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// TestConnectErrors checks what Connect says when there is no usable
// daemon.
func TestConnectErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Connect(ctx, t.TempDir(), ConnectOptions{}); !errors.Is(err, ErrNoDaemon) || !errors.Is(err, lunad.ErrNotWorkspace) {
		t.Fatalf("no workspace: %v", err)
	}
	svc := newService(t)
	if ws, err := Connect(ctx, svc.Root(), ConnectOptions{}); !errors.Is(err, ErrNoDaemon) || ws != nil {
		t.Fatalf("no daemon: %v %v", ws, err)
	}
	serveTest(t, svc, ServeOptions{Config: &Settings{Author: "ada"}})
	// One message: the setting, both values and what to do — not "no
	// daemon serves" followed by a daemon that does.
	_, err := Connect(ctx, svc.Root(), ConnectOptions{Config: &Settings{Author: "bob"}})
	want := fmt.Sprintf("the daemon serving this workspace (pid %d) runs with author \"ada\", this command with \"bob\": run `lunad daemon restart`", os.Getpid())
	if errors.Is(err, ErrNoDaemon) || !errors.As(err, new(*DiffersError)) || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("another configuration: %v", err)
	}
	var ws lunad.Workspace
	ws, err = Connect(ctx, filepath.Join(svc.Root(), ".luna"), ConnectOptions{Config: &Settings{Author: "ada"}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if st := ws.(*Client).Hello(); st.Protocol != protocolVersion || st.PID != os.Getpid() || st.Root != svc.Root() || st.MaxFrame != DefaultMaxFrame {
		t.Fatalf("status %+v", st)
	}
}
