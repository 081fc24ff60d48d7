package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/workspace"
)

// indexed makes a workspace of n Markdown pages whose index is not built.
func indexed(t *testing.T, n int) *workspace.Service {
	t.Helper()
	svc := newService(t)
	for i := range n {
		wstest.Create(t, svc, fmt.Sprintf("docs/p%02d.md", i), fmt.Sprintf("# Page %d\n\nSee `parse_config`.\n", i))
	}
	return svc
}

// checkFigures fails unless figures tell one build of total: done rising
// to total, of total every time, at most once per whole percentage and
// once at the start.
func checkFigures(t *testing.T, what string, figures [][2]int, total int) {
	t.Helper()
	if len(figures) == 0 || figures[len(figures)-1] != [2]int{total, total} || len(figures) > 102 {
		t.Fatalf("%s: figures %v, want a last one of %d/%d, at most 102", what, figures, total, total)
	}
	for i, f := range figures {
		if f[1] != total || (i > 0 && f[0] <= figures[i-1][0]) {
			t.Fatalf("%s: figure %d is %d/%d after %v: want done rising of %d", what, i, f[0], f[1], figures[:i], total)
		}
	}
}

// TestIndexOnTheWire: lunad/index with a progress token is answered once
// the index is built, after lunad/indexing notifications carrying the
// token, a rising done and the same total, the last of them with every
// artifact parsed; asked again, the built index is answered at once with
// no notification.
func TestIndexOnTheWire(t *testing.T) {
	const docs = 30
	svc := indexed(t, docs)
	serveTest(t, svc, ServeOptions{})
	c := rawDial(t, svc)
	for _, call := range []struct {
		name    string
		id      string
		figures bool
	}{
		{"cold index", "1", true},
		{"built index", "2", false},
	} {
		t.Run(call.name, func(t *testing.T) {
			c.send(`{"jsonrpc":"2.0","id":` + call.id + `,"method":"lunad/index","params":{"progress":7}}`)
			var figures [][2]int
			for {
				m, err := c.recv()
				if err != nil {
					t.Fatal(err)
				}
				if m.Method == "" {
					if string(m.ID) != call.id || m.Error != nil || string(m.Result) != "{}" {
						t.Fatalf("answer id %s error %+v result %s, want id %s and {}", m.ID, m.Error, m.Result, call.id)
					}
					break
				}
				var p indexingParams
				if m.Method != mIndexing || json.Unmarshal(m.Params, &p) != nil || p.Progress != 7 {
					t.Fatalf("notification %s %s, want lunad/indexing for progress 7", m.Method, m.Params)
				}
				figures = append(figures, [2]int{p.Done, p.Total})
			}
			if !call.figures {
				if len(figures) > 0 {
					t.Fatalf("the built index sent figures %v", figures)
				}
				return
			}
			checkFigures(t, "over the wire", figures, docs)
		})
	}
}

// TestClientIndexReferences: a Client's IndexReferences tells the
// daemon's build figure by figure and returns after the last; without a
// progress function the call just waits for the index; once built, the
// index is answered with no figure.
func TestClientIndexReferences(t *testing.T) {
	const docs = 25
	svc := indexed(t, docs)
	serveTest(t, svc, ServeOptions{})
	cl := clientTest(t, svc.Root())
	ctx := context.Background()
	var figures [][2]int
	if err := cl.IndexReferences(ctx, func(done, total int) { figures = append(figures, [2]int{done, total}) }); err != nil {
		t.Fatal(err)
	}
	checkFigures(t, "client", figures, docs)
	if err := cl.IndexReferences(ctx, nil); err != nil {
		t.Fatal(err)
	}
	figures = nil
	if err := cl.IndexReferences(ctx, func(done, total int) { figures = append(figures, [2]int{done, total}) }); err != nil || len(figures) != 0 {
		t.Fatalf("built index: figures %v, err %v", figures, err)
	}
}

// heldIndex is a workspace whose index build tells 7 of 9, waits for
// release, then tells 9 of 9: a build caught in the middle.
type heldIndex struct {
	*workspace.Service
	started chan struct{} // a call is held
	release chan struct{}
}

func (h heldIndex) IndexReferences(ctx context.Context, progress func(done, total int)) error {
	progress(7, 9)
	h.started <- struct{}{}
	select {
	case <-h.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	progress(9, 9)
	return nil
}

// TestIndexProgressWhileBuilding: the figures reach the client while the
// call is still waiting for the build, not with its answer; two calls on
// one connection are each told their own figures, once.
func TestIndexProgressWhileBuilding(t *testing.T) {
	svc := newService(t)
	held := heldIndex{Service: svc, started: make(chan struct{}), release: make(chan struct{})}
	ln, err := Listen(svc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, held, ln, ServeOptions{Logger: slog.New(slog.DiscardHandler)}) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Error(err)
		}
	}()
	cl := clientTest(t, svc.Root())

	const calls = 2
	var (
		mu      sync.Mutex
		figures [calls][][2]int
		wg      sync.WaitGroup
	)
	first := make(chan int, calls) // a call's first figure has arrived
	for i := range calls {
		wg.Go(func() {
			err := cl.IndexReferences(context.Background(), func(done, total int) {
				mu.Lock()
				figures[i] = append(figures[i], [2]int{done, total})
				n := len(figures[i])
				mu.Unlock()
				if n == 1 {
					first <- i
				}
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	for range calls {
		<-held.started // both builds hold at 7 of 9
	}
	for range calls {
		<-first // and each call has been told so, before any answer
	}
	close(held.release)
	wg.Wait()
	for i, got := range figures {
		if want := [][2]int{{7, 9}, {9, 9}}; !slices.Equal(got, want) {
			t.Errorf("call %d told %v, want %v", i, got, want)
		}
	}
}

// FuzzIndexingNotification: whatever the params of a lunad/indexing
// notification, the client neither panics nor tells a call figures that
// name another call's token; figures for its own token are told as sent.
func FuzzIndexingNotification(f *testing.F) {
	for _, seed := range []string{
		`{"progress":1,"done":3,"total":9}`,
		`{"progress":2,"done":3,"total":9}`,
		`{"progress":1,"done":-1,"total":0}`,
		`{"progress":"1"}`,
		`[]`,
		`null`,
		``,
		`{"progress":1,"done":1e30}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var tokens progressTokens
		var told [][2]int
		token, remove := tokens.add(func(done, total int) { told = append(told, [2]int{done, total}) })
		defer remove()
		tokens.tell(raw)
		var p indexingParams
		if json.Unmarshal(raw, &p) != nil || p.Progress != token {
			if len(told) != 0 {
				t.Fatalf("%q told %v to call %d", raw, told, token)
			}
			return
		}
		if want := [][2]int{{p.Done, p.Total}}; !slices.Equal(told, want) {
			t.Fatalf("%q told %v, want %v", raw, told, want)
		}
	})
}
