package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// BenchmarkLSP measures the language server from a real client: the
// benchmark process starts `lunad lsp` as a child process in a generated
// workspace of -bench.files artifacts (the references tree, committed and
// adopted with `lunad init`) and speaks LSP to it over its stdin/stdout.
// It times definition, references and hover on code spans of Markdown
// artifacts, and the time from an edit (luna.edit through the server) to
// the stale diagnostic on an open document that mentions the edited
// symbol; it reports p50/p99 and the resident memory of the server
// process (and of the daemon, when the server runs as its client).
func BenchmarkLSP(b *testing.B) {
	bin, root, tree, adopt := adoptedTree(b, "lsp-tree")

	cl := newLSPClient(b, bin, root)
	defer cl.close()
	ctx := context.Background()
	warm := cl.initialize(b, root, 10*time.Minute)
	b.ResetTimer()

	probes := codeSpanProbes(b, root, tree, *flagEdits)
	var defD, refD, hovD []time.Duration
	resolved := 0
	for _, p := range probes {
		tp := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: p.u}, Position: p.pos}
		t0 := time.Now()
		res, err := cl.srv.Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: tp})
		defD = append(defD, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
		locs, _ := res.(protocol.LocationSlice)
		t0 = time.Now()
		if _, err := cl.srv.Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: tp}); err != nil {
			b.Fatal(err)
		}
		hovD = append(hovD, time.Since(t0))
		if len(locs) != 1 {
			continue
		}
		resolved++
		t0 = time.Now()
		if _, err := cl.srv.References(ctx, &protocol.ReferenceParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: locs[0].URI}, Position: locs[0].Range.Start}}); err != nil {
			b.Fatal(err)
		}
		refD = append(refD, time.Since(t0))
	}

	// Diagnostics after a change: open a Markdown artifact whose first code
	// span resolves, change the target's definition through luna.edit, time
	// until a stale diagnostic arrives for the open document; then undo.
	var diagD []time.Duration
	for _, p := range probes {
		if len(diagD) == 20 {
			break
		}
		tp := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: p.u}, Position: p.pos}
		res, err := cl.srv.Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: tp})
		locs, _ := res.(protocol.LocationSlice)
		if err != nil || len(locs) != 1 {
			continue
		}
		target := locs[0]
		content, err := os.ReadFile(target.URI.FsPath())
		if err != nil {
			b.Fatal(err)
		}
		lines := strings.SplitAfter(string(content), "\n")
		defLine := lines[target.Range.Start.Line]
		text, _ := os.ReadFile(p.u.FsPath())
		cl.open(b, p.u, string(text))
		cl.waitDiags(b, p.u, func(ds []protocol.Diagnostic) bool { return true }, time.Minute)
		blocks := "<<<<<<< SEARCH\n" + defLine + "=======\n" + defLine + strings.Repeat(" ", leadingSpaces(lines, int(target.Range.Start.Line))+4) + "# changed by the benchmark\n>>>>>>> REPLACE\n"
		if strings.HasSuffix(target.URI.FsPath(), ".go") || strings.HasSuffix(target.URI.FsPath(), ".ts") {
			blocks = strings.ReplaceAll(blocks, "# changed", "// changed")
		}
		rel, _ := filepath.Rel(root, target.URI.FsPath())
		cl.resetDiags(p.u)
		t0 := time.Now()
		if _, err := cl.srv.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{Command: "luna.edit",
			Arguments: []protocol.LSPAny{jsonString(rel), jsonString(blocks)}}); err != nil {
			continue // a definition line that is not unique: skip it
		}
		if !cl.waitDiags(b, p.u, hasStale, time.Minute) {
			b.Fatalf("no stale diagnostic on %s after editing %s", p.u, rel)
		}
		diagD = append(diagD, time.Since(t0))
		if _, err := cl.srv.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{Command: "luna.undo", Arguments: []protocol.LSPAny{jsonString(rel)}}); err != nil {
			b.Fatal(err)
		}
		cl.waitDiags(b, p.u, func(ds []protocol.Diagnostic) bool { return !hasStale(ds) }, time.Minute)
	}
	rss := procRSS(cl.cmd.Process.Pid)
	daemonRSS, daemonPID := daemonMemory(root)
	if daemonPID > 0 {
		defer syscall.Kill(daemonPID, syscall.SIGTERM) // it would stay until its idle timeout
	}

	fmt.Printf("\nLSP from a real client: `lunad lsp` as a child process — %d artifacts (%s)\n", len(tree.files), machine())
	fmt.Printf("adopt (lunad init): %s; initialize → index warm-up done: %s\n\n", adopt.Round(time.Millisecond), warm.Round(time.Millisecond))
	fmt.Printf("| request | n | p50 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|\n")
	for _, r := range []struct {
		name string
		d    []time.Duration
	}{{"textDocument/definition", defD}, {"textDocument/references", refD}, {"textDocument/hover", hovD}, {"edit → stale diagnostic published", diagD}} {
		fmt.Printf("| %s | %d | %.2f | %.2f | %.2f |\n", r.name, len(r.d), ms(pct(r.d, 0.50)), ms(pct(r.d, 0.99)), ms(slicesMax(r.d)))
	}
	fmt.Printf("\n%d of %d probes resolved to one definition\n", resolved, len(probes))
	fmt.Printf("RSS: lunad lsp %.1f MiB", mib(rss))
	if daemonPID > 0 {
		fmt.Printf("; daemon (pid %d) %.1f MiB, peak %.1f MiB", daemonPID, mib(daemonRSS), mib(procStatusOf(daemonPID, "VmHWM")))
	}
	fmt.Println()
	// CPU, not wall time, is what a loaded machine does not distort: the
	// daemon's (its cold build from the parse cache included) and the
	// server's, user and system.
	fmt.Printf("CPU: lunad lsp %.1f s", procCPU(cl.cmd.Process.Pid).Seconds())
	if daemonPID > 0 {
		fmt.Printf("; daemon %.1f s", procCPU(daemonPID).Seconds())
		b.ReportMetric(procCPU(daemonPID).Seconds(), "daemon-cpu-s")
	}
	fmt.Println()
	b.ReportMetric(ms(pct(defD, 0.99)), "definition-p99-ms")
	b.ReportMetric(ms(pct(refD, 0.99)), "references-p99-ms")
	b.ReportMetric(ms(pct(hovD, 0.99)), "hover-p99-ms")
	b.ReportMetric(ms(pct(diagD, 0.50)), "diagnostics-p50-ms")
	b.ReportMetric(mib(max(rss, daemonRSS)), "rss-MiB")
}

// BenchmarkEditorReady measures what a person waits for when opening an
// editor on a repository of -bench.files artifacts (the references tree,
// adopted with `lunad init`, then one function that a Markdown artifact
// names edited with `lunad edit`): from starting `lunad lsp`, with no
// daemon running, to the first diagnostic published for that Markdown
// document naming the edited function — initialize, then the document
// opened at once. The language server starts the daemon, which builds the
// reference index: cold (no parse cache, as on a first start before
// `lunad init` saved one, or after an upgrade) and warm (the parse cache
// the last daemon saved at its exit). Diagnostics need the whole index: a
// name is unresolved only if no artifact defines it, which is not known
// before every artifact is parsed.
func BenchmarkEditorReady(b *testing.B) {
	bin, root, tree, _ := adoptedTree(b, "ready-tree")
	f, fn, doc := editedGoFile(b, root, tree)
	editWithLunad(b, bin, root, f)
	text, err := os.ReadFile(filepath.Join(root, doc))
	if err != nil {
		b.Fatal(err)
	}
	u := uri.File(filepath.Join(root, doc))
	ready := func() (time.Duration, time.Duration) {
		b.Helper()
		if _, pid := daemonMemory(root); pid != 0 {
			b.Fatalf("a daemon (pid %d) already serves %s", pid, root)
		}
		t0 := time.Now()
		cl := newLSPClient(b, bin, root)
		closed := false
		defer func() {
			if !closed {
				cl.close()
			}
		}()
		ctx := context.Background()
		rootURI := uri.File(root)
		if _, err := cl.srv.Initialize(ctx, &protocol.InitializeParams{RootURI: &rootURI}); err != nil {
			b.Fatal(err)
		}
		if err := cl.srv.Initialized(ctx, &protocol.InitializedParams{}); err != nil {
			b.Fatal(err)
		}
		cl.open(b, u, string(text))
		if !cl.waitDiags(b, u, func(ds []protocol.Diagnostic) bool {
			return slices.ContainsFunc(ds, func(d protocol.Diagnostic) bool { return strings.Contains(fmt.Sprint(d.Message), fn) })
		}, 20*time.Minute) {
			b.Fatalf("no diagnostic naming %s on %s", fn, doc)
		}
		d := time.Since(t0)
		_, pid := daemonMemory(root)
		if pid == 0 {
			b.Fatal("no daemon serving " + root)
		}
		cpu := procCPU(pid)
		// The server first: it would start a new daemon when its own ends.
		cl.close()
		closed = true
		syscall.Kill(pid, syscall.SIGTERM) // it saves its parse cache as it exits
		for deadline := time.Now().Add(time.Minute); syscall.Kill(pid, 0) == nil; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				b.Fatalf("the daemon (pid %d) did not exit", pid)
			}
		}
		return d, cpu
	}
	cache := filepath.Join(root, ".git", "luna", "cache", "refs.cache")
	load0 := loadAvg()
	if err := os.Remove(cache); err != nil {
		b.Fatal(err)
	}
	cold, coldCPU := ready()
	if _, err := os.Stat(cache); err != nil {
		b.Fatalf("the daemon saved no parse cache: %v", err)
	}
	warm, warmCPU := ready()
	fmt.Printf("\ntime to a usable editor: `lunad lsp` started → first diagnostic on an open document, %d artifacts (%s); load %s → %s\n\n", len(tree.files), machine(), load0, loadAvg())
	fmt.Printf("| daemon's index | ms | daemon CPU s |\n|---|---:|---:|\n")
	fmt.Printf("| cold (no parse cache) | %.0f | %.1f |\n| warm (the parse cache saved at the last exit) | %.0f | %.1f |\n", ms(cold), coldCPU.Seconds(), ms(warm), warmCPU.Seconds())
	b.ReportMetric(ms(cold), "cold-ready-ms")
	b.ReportMetric(ms(warm), "warm-ready-ms")
}

// probe is a position in a document.
type probe struct {
	u   uri.URI
	pos protocol.Position
}

// codeSpanProbes are the first code span of each Markdown artifact of
// tree, n at most: the positions BenchmarkLSP asks about.
func codeSpanProbes(b *testing.B, root string, tree *rwTree, n int) []probe {
	var probes []probe
	for _, c := range codeSpans(b, root, tree, n) {
		line := strings.Count(string(c.content[:c.at]), "\n")
		col := c.at + 1 - (strings.LastIndex(string(c.content[:c.at]), "\n") + 1)
		probes = append(probes, probe{uri.File(filepath.Join(root, c.path)), protocol.Position{Line: uint32(line), Character: uint32(col)}})
	}
	return probes
}

// codeSpan is the first code span of a Markdown artifact: its path,
// content and the span's byte offset (its opening backquote).
type codeSpan struct {
	path    string
	content []byte
	at      int
}

// codeSpans are the first code span of each Markdown artifact of tree
// that has one, n at most.
func codeSpans(b *testing.B, root string, tree *rwTree, n int) []codeSpan {
	span := regexp.MustCompile("`[A-Za-z_][A-Za-z0-9_.]*`")
	var out []codeSpan
	for _, i := range tree.byLng["markdown"] {
		f := tree.files[i]
		content, err := os.ReadFile(filepath.Join(root, f.path))
		if err != nil {
			b.Fatal(err)
		}
		loc := span.FindIndex(content)
		if loc == nil {
			continue
		}
		if out = append(out, codeSpan{f.path, content, loc[0]}); len(out) == n {
			break
		}
	}
	return out
}

func slicesMax(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

func jsonString(s string) protocol.LSPAny { return protocol.LSPAny(strconv.Quote(s)) }

func leadingSpaces(lines []string, i int) int {
	return len(lines[i]) - len(strings.TrimLeft(lines[i], " \t"))
}

func hasStale(ds []protocol.Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == protocol.DiagnosticSeverityWarning {
			return true
		}
	}
	return false
}

// procRSS is a process's resident memory in bytes (0 if unknown).
func procRSS(pid int) uint64 { return procStatusOf(pid, "VmRSS") }

// procCPU is the CPU time a process has used, user and system (0 if
// unknown; Linux counts it in ticks of 1/100 s).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	_, rest, _ := strings.Cut(string(b), ") ") // after the command, which may hold spaces
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseUint(f[11], 10, 64)
	stime, _ := strconv.ParseUint(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// procStatusOf is a field of a process's /proc status in bytes (VmRSS,
// VmHWM; 0 if unknown).
func procStatusOf(pid int, field string) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// daemonMemory finds a daemon serving root (a `lunad … serve` process
// whose working directory or arguments name root) and its RSS.
func daemonMemory(root string) (uint64, int) {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		args := strings.Split(string(cmdline), "\x00")
		if len(args) < 2 || !strings.HasSuffix(args[0], "lunad") || !contains(args, "serve") {
			continue
		}
		if contains(args, root) {
			return procRSS(pid), pid
		}
	}
	return 0, 0
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// lspClient is the benchmark's side of the connection.
type lspClient struct {
	protocol.UnimplementedClient
	cmd  *exec.Cmd
	conn jsonrpc2.Conn
	srv  protocol.Server

	mu       sync.Mutex
	diags    map[uri.URI][]protocol.Diagnostic
	progress bool
	changed  chan struct{}
}

func newLSPClient(b *testing.B, bin, root string) *lspClient {
	cmd := exec.Command(bin, "lsp")
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c := &lspClient{cmd: cmd, diags: map[uri.URI][]protocol.Diagnostic{}, changed: make(chan struct{}, 1)}
	_, c.conn, c.srv = protocol.NewClient(context.Background(), c, jsonrpc2.NewHeaderStream(pipe{stdout, stdin}))
	return c
}

type pipe struct {
	io.ReadCloser
	io.WriteCloser
}

func (p pipe) Close() error { p.WriteCloser.Close(); return p.ReadCloser.Close() }

func (c *lspClient) close() {
	ctx := context.Background()
	c.srv.Shutdown(ctx)
	c.srv.Exit(ctx)
	c.conn.Close()
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		c.cmd.Process.Kill()
	}
}

func (c *lspClient) poke() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

func (c *lspClient) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	c.mu.Lock()
	c.diags[p.URI] = p.Diagnostics
	c.mu.Unlock()
	c.poke()
	return nil
}

func (c *lspClient) Progress(_ context.Context, p *protocol.ProgressParams) error {
	if strings.Contains(string(p.Value), `"end"`) {
		c.mu.Lock()
		c.progress = true
		c.mu.Unlock()
		c.poke()
	}
	return nil
}

func (c *lspClient) WorkDoneProgressCreate(context.Context, *protocol.WorkDoneProgressCreateParams) error {
	return nil
}
func (c *lspClient) ShowMessage(context.Context, *protocol.ShowMessageParams) error { return nil }
func (c *lspClient) ApplyEdit(context.Context, *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
	return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
}

func (c *lspClient) wait(b *testing.B, limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for {
		c.mu.Lock()
		ok := cond()
		c.mu.Unlock()
		if ok {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-c.changed:
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// initialize initializes the server for root and waits, at most limit,
// for the end of its index warm-up, which it returns the duration of. The
// client takes work-done progress, as editors do: the server reports the
// index warm-up only then, and its end is what is waited for.
func (c *lspClient) initialize(b *testing.B, root string, limit time.Duration) time.Duration {
	ctx := context.Background()
	t0 := time.Now()
	rootURI := uri.File(root)
	yes := true
	if _, err := c.srv.Initialize(ctx, &protocol.InitializeParams{RootURI: &rootURI,
		Capabilities: protocol.ClientCapabilities{Window: &protocol.WindowClientCapabilities{WorkDoneProgress: &yes}}}); err != nil {
		b.Fatal(err)
	}
	if err := c.srv.Initialized(ctx, &protocol.InitializedParams{}); err != nil {
		b.Fatal(err)
	}
	c.waitProgressEnd(b, limit)
	return time.Since(t0)
}

func (c *lspClient) waitProgressEnd(b *testing.B, limit time.Duration) {
	if !c.wait(b, limit, func() bool { return c.progress }) {
		b.Fatal("no end of the index warm-up progress")
	}
}

func (c *lspClient) open(b *testing.B, u uri.URI, text string) {
	if err := c.srv.DidOpen(context.Background(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: u, LanguageID: "markdown", Version: 1, Text: text}}); err != nil {
		b.Fatal(err)
	}
}

func (c *lspClient) resetDiags(u uri.URI) {
	c.mu.Lock()
	delete(c.diags, u)
	c.mu.Unlock()
}

func (c *lspClient) waitDiags(b *testing.B, u uri.URI, cond func([]protocol.Diagnostic) bool, limit time.Duration) bool {
	return c.wait(b, limit, func() bool { ds, ok := c.diags[u]; return ok && cond(ds) })
}
