package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkMCP measures the MCP server from real clients: two `lunad mcp`
// processes (clients of one daemon) in a generated workspace of
// -bench.files artifacts, driven by the Go SDK's client over their stdio.
// It times read_artifact and edit_artifact on -bench.edits Markdown
// artifacts against the same reads and edits made with the `lunad` command
// line (a process per call, through the same daemon): what a tool without
// MCP would run. It also times, from an edit through one client, the
// notifications/resources/updated received by the other, subscribed to
// the artifact, and a full resources/list (every page). It prints a table
// with the ratios.
func BenchmarkMCP(b *testing.B) {
	bin, root, tree, _ := adoptedTree(b, "mcp-tree")
	ctx := context.Background()
	updated := make(chan string, 64)
	env := append(gitEnv(), "LUNAD_MCP_RATE=0") // measure lunad, not the rate limit
	connect := func(name string, opts *sdk.ClientOptions) *sdk.ClientSession {
		cmd := exec.Command(bin, "--dir", root, "mcp")
		cmd.Env = env
		cs, err := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, opts).Connect(ctx, &sdk.CommandTransport{Command: cmd},
			&sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"}) // Subscribe returns once registered
		if err != nil {
			b.Fatal(err)
		}
		return cs
	}
	writer := connect("bench-writer", nil)
	defer writer.Close()
	watcher := connect("bench-watcher", &sdk.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
	})
	defer watcher.Close()
	b.ResetTimer()

	call := func(name string, args map[string]any) *sdk.CallToolResult {
		res, err := writer.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			b.Fatalf("%s %v: %v", name, args, err)
		}
		if res.IsError {
			b.Fatalf("%s %v: %s", name, args, res.Content[0].(*sdk.TextContent).Text)
		}
		return res
	}
	var ids []string
	for _, i := range tree.byLng["markdown"] {
		ids = append(ids, tree.files[i].path)
		if len(ids) == *flagEdits {
			break
		}
	}
	var mcpRead, cliRead, mcpEdit, cliEdit, notify []time.Duration
	sf, rf := filepath.Join(scratch, "search.txt"), filepath.Join(scratch, "replace.txt")
	for i, id := range ids {
		t0 := time.Now()
		res := call("read_artifact", map[string]any{"id": id})
		mcpRead = append(mcpRead, time.Since(t0))
		out := res.StructuredContent.(map[string]any)
		content, uri := out["content"].(string), "luna://artifacts/"+out["id"].(string)
		title, _, _ := strings.Cut(content, "\n") // the generated articles' titles are unique
		title += "\n"

		cmd := exec.Command(bin, "--dir", root, "show", id)
		cmd.Env = env
		t0 = time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("lunad show %s: %v\n%s", id, err, out)
		}
		cliRead = append(cliRead, time.Since(t0))

		// Both ways edit the same artifact: MCP adds a line under the
		// title, the command line changes that line.
		if err := watcher.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
			b.Fatal(err)
		}
		mark := fmt.Sprintf("edited by the benchmark %d\n", i)
		t0 = time.Now()
		call("edit_artifact", map[string]any{"id": id, "changes": []map[string]string{{"search": title, "replace": title + mark}}})
		mcpEdit = append(mcpEdit, time.Since(t0))
		for got := ""; got != uri; {
			select {
			case got = <-updated:
			case <-time.After(time.Minute):
				b.Fatalf("no notifications/resources/updated for %s", id)
			}
		}
		notify = append(notify, time.Since(t0))
		watcher.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: uri})

		os.WriteFile(sf, []byte(mark), 0o644)
		os.WriteFile(rf, []byte(mark+"and by the command line\n"), 0o644)
		cmd = exec.Command(bin, "--dir", root, "edit", id, "--search-file", sf, "--replace-file", rf, "--agent", "bench-cli")
		cmd.Env = env
		t0 = time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("lunad edit %s: %v\n%s", id, err, out)
		}
		cliEdit = append(cliEdit, time.Since(t0))
	}
	t0 := time.Now()
	listed := 0
	for _, err := range watcher.Resources(ctx, nil) {
		if err != nil {
			b.Fatal(err)
		}
		listed++
	}
	list := time.Since(t0)
	if _, pid := daemonMemory(root); pid > 0 {
		defer syscall.Kill(pid, syscall.SIGTERM) // it would stay until its idle timeout
	}

	fmt.Printf("\nMCP from real clients: two `lunad mcp` processes (Go SDK clients over stdio), one daemon — %d artifacts (%s)\n\n", len(tree.files), machine())
	fmt.Printf("| operation | n | MCP p50 ms | MCP p99 ms | CLI p50 ms | CLI p99 ms | CLI p50 / MCP p50 |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range []struct {
		name     string
		mcp, cli []time.Duration
	}{{"read an artifact", mcpRead, cliRead}, {"edit (SEARCH/REPLACE, one commit)", mcpEdit, cliEdit}} {
		fmt.Printf("| %s | %d | %.2f | %.2f | %.2f | %.2f | %.1f× |\n", r.name, len(r.mcp), ms(pct(r.mcp, 0.50)), ms(pct(r.mcp, 0.99)),
			ms(pct(r.cli, 0.50)), ms(pct(r.cli, 0.99)), float64(pct(r.cli, 0.50))/float64(pct(r.mcp, 0.50)))
	}
	fmt.Printf("\nedit by one client → notifications/resources/updated at the other: p50 %.2f ms, p99 %.2f ms (n=%d)\n",
		ms(pct(notify, 0.50)), ms(pct(notify, 0.99)), len(notify))
	fmt.Printf("resources/list, every page: %d resources in %s\n", listed, list.Round(time.Millisecond))
	b.ReportMetric(ms(pct(mcpRead, 0.50)), "read-p50-ms")
	b.ReportMetric(ms(pct(mcpEdit, 0.50)), "edit-p50-ms")
	b.ReportMetric(ms(pct(notify, 0.50)), "notify-p50-ms")
	b.ReportMetric(float64(pct(cliEdit, 0.50))/float64(pct(mcpEdit, 0.50)), "cli/mcp-edit")
}
