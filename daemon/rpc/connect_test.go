package rpc

import (
	"context"
	"errors"
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
	if _, err := Connect(ctx, svc.Root(), ConnectOptions{Config: &Settings{Author: "bob"}}); !errors.Is(err, ErrNoDaemon) ||
		!strings.Contains(err.Error(), "another configuration") {
		t.Fatalf("another configuration: %v", err)
	}
	ws, err := Connect(ctx, filepath.Join(svc.Root(), ".luna"), ConnectOptions{Config: &Settings{Author: "ada"}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if st := ws.(*Client).Hello(); st.Protocol != protocolVersion || st.PID != os.Getpid() || st.Root != svc.Root() || st.MaxFrame != DefaultMaxFrame {
		t.Fatalf("status %+v", st)
	}
}
