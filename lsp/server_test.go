package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/workspace"
)

const configPy = "import tomllib\n\n\ndef parse_config(path):\n    with open(path, \"rb\") as f:\n        return tomllib.load(f)\n"

// guideMd mentions parse_config after characters outside the BMP, so
// byte, rune and UTF-16 columns all differ on that line.
const guideMd = "# Guide\n\n😀𝄞 Call `parse_config` to read it.\n"

// client is the test's LSP client: it records what the server sends.
type client struct {
	protocol.UnimplementedClient
	mu    sync.Mutex
	diags map[uri.URI][]protocol.Diagnostic
	edits []protocol.WorkspaceEdit
	// progress logs window/workDoneProgress/create and $/progress by
	// token: "create", "begin: TITLE: MESSAGE", "report: MESSAGE",
	// "end: MESSAGE", each followed by " (N%)" if it has a percentage.
	progress map[string][]string
	messages []string // window/showMessage: "TYPE: MESSAGE"
	// requests log window/showMessageRequest as "TYPE: MESSAGE [ACTIONS]",
	// answered with the action titled choose (none when ""); shown logs
	// window/showDocument's URIs.
	requests []string
	choose   string
	shown    []uri.URI
	seen     chan struct{}
	// published counts publishDiagnostics, lensRefreshes
	// workspace/codeLens/refresh.
	published, lensRefreshes int
}

func (c *client) ShowMessageRequest(_ context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	c.mu.Lock()
	defer c.poke()
	defer c.mu.Unlock()
	var titles []string
	var chosen *protocol.MessageActionItem
	for _, a := range p.Actions {
		titles = append(titles, a.Title)
		if a.Title == c.choose {
			chosen = &protocol.MessageActionItem{Title: a.Title}
		}
	}
	c.requests = append(c.requests, fmt.Sprintf("%v: %s %v", p.Type, p.Message, titles))
	return chosen, nil
}

func (c *client) ShowDocument(_ context.Context, p *protocol.ShowDocumentParams) (*protocol.ShowDocumentResult, error) {
	c.mu.Lock()
	c.shown = append(c.shown, p.URI)
	c.mu.Unlock()
	c.poke()
	return &protocol.ShowDocumentResult{Success: true}, nil
}

func (c *client) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	c.mu.Lock()
	c.diags[p.URI] = p.Diagnostics
	c.published++
	c.mu.Unlock()
	c.poke()
	return nil
}

func (c *client) CodeLensRefresh(context.Context) error {
	c.mu.Lock()
	c.lensRefreshes++
	c.mu.Unlock()
	c.poke()
	return nil
}

func (c *client) ApplyEdit(_ context.Context, p *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
	c.mu.Lock()
	c.edits = append(c.edits, p.Edit)
	c.mu.Unlock()
	c.poke()
	return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
}

func (c *client) WorkDoneProgressCreate(_ context.Context, p *protocol.WorkDoneProgressCreateParams) error {
	c.logProgress(p.Token, "create")
	return nil
}

func (c *client) Progress(_ context.Context, p *protocol.ProgressParams) error {
	var v struct {
		Kind, Title, Message string
		Percentage           *uint32
	}
	if err := json.Unmarshal([]byte(p.Value), &v); err != nil {
		return err
	}
	line := v.Kind + ": " + v.Message
	if v.Kind == "begin" {
		line = v.Kind + ": " + v.Title + ": " + v.Message
	}
	if v.Percentage != nil {
		line += fmt.Sprintf(" (%d%%)", *v.Percentage)
	}
	c.logProgress(p.Token, line)
	return nil
}

func (c *client) logProgress(token protocol.ProgressToken, line string) {
	c.mu.Lock()
	t := fmt.Sprint(token)
	c.progress[t] = append(c.progress[t], line)
	c.mu.Unlock()
	c.poke()
}

func (c *client) ShowMessage(_ context.Context, p *protocol.ShowMessageParams) error {
	c.mu.Lock()
	c.messages = append(c.messages, fmt.Sprintf("%v: %s", p.Type, p.Message))
	c.mu.Unlock()
	c.poke()
	return nil
}

func (c *client) poke() {
	select {
	case c.seen <- struct{}{}:
	default:
	}
}

// waitFor polls cond after every message from the server, up to 10s.
func (c *client) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		c.mu.Lock()
		ok := cond()
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-c.seen:
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

type session struct {
	t      *testing.T
	svc    *workspace.Service
	srv    protocol.Server
	cl     *client
	root   string
	cfg    string // config.py's ID
	cfgURI uri.URI
	docURI uri.URI
	done   chan error
	cancel context.CancelFunc
	conn   jsonrpc2.Conn
	init   *protocol.InitializeResult // the server's answer to initialize
}

// start makes a workspace with config.py and guide.md, serves it in-process
// over a pipe and connects a second jsonrpc2 connection as the client.
func start(t *testing.T) *session {
	t.Helper()
	return startWith(t, nil)
}

// startWith is start with the server given wrap(the service) if wrap is
// not nil.
func startWith(t *testing.T, wrap func(*workspace.Service) lunad.Workspace) *session {
	t.Helper()
	return startConfigured(t, startConfig{wrap: wrap})
}

// startConfig varies a session: the workspace served, extra artifacts
// made before the server starts, the client's capabilities.
type startConfig struct {
	wrap func(*workspace.Service) lunad.Workspace
	more []lunad.CreateSpec
	caps protocol.ClientCapabilities
	// wire, if set, sees the body of every message the server sends, in
	// the order sent (the client's handlers run concurrently).
	wire func(body []byte)
	// goalTests are the workspace's [tests] commands (Options.GoalTests);
	// choose the action the client picks in window/showMessageRequest.
	goalTests [][]string
	choose    string
}

// startConfigured is start as c says.
func startConfigured(t *testing.T, c startConfig) *session {
	t.Helper()
	wrap := c.wrap
	ctx, cancel := context.WithCancel(context.Background())
	root := t.TempDir()
	n := 0
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	svc, _, err := workspace.Init(root, gitstore.Options{
		Clock: func() time.Time { clock = clock.Add(time.Minute); return clock },
		NewID: func() string { n++; return fmt.Sprintf("s%07d", n) },
		Human: gitstore.Signature{Name: "Ada", Email: "ada@example.com"},
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := svc.Create(ctx, lunad.CreateSpec{Title: "config", Path: "config.py", Content: []byte(configPy)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Create(ctx, lunad.CreateSpec{Title: "Guide", Path: "guide.md", Content: []byte(guideMd)}); err != nil {
		t.Fatal(err)
	}
	for _, spec := range c.more {
		if _, err := svc.Create(ctx, spec); err != nil {
			t.Fatal(err)
		}
	}
	a, b := net.Pipe()
	s := &session{t: t, svc: svc, root: root, cfg: cfg.Artifact.ID, done: make(chan error, 1), cancel: cancel,
		cfgURI: uri.File(filepath.Join(root, "config.py")), docURI: uri.File(filepath.Join(root, "guide.md")),
		cl: &client{diags: map[uri.URI][]protocol.Diagnostic{}, progress: map[string][]string{}, seen: make(chan struct{}, 1), choose: c.choose}}
	var ws lunad.Workspace = svc
	if wrap != nil {
		ws = wrap(svc)
	}
	go func() {
		s.done <- Serve(ctx, a, Options{Open: func(context.Context, string) (lunad.Workspace, error) { return ws, nil }, Debounce: 10 * time.Millisecond,
			GoalTests: func(string) ([][]string, error) { return c.goalTests, nil }})
	}()
	var clientEnd net.Conn = b
	if c.wire != nil {
		clientEnd = &wireTap{Conn: b, frame: c.wire}
	}
	_, s.conn, s.srv = protocol.NewClient(ctx, s.cl, jsonrpc2.NewHeaderStream(clientEnd))
	t.Cleanup(func() {
		cancel()
		s.conn.Close()
		<-s.done
	})
	rootURI := uri.File(root)
	if s.init, err = s.srv.Initialize(ctx, &protocol.InitializeParams{RootURI: &rootURI, Capabilities: c.caps}); err != nil {
		t.Fatal(err)
	}
	if err := s.srv.Initialized(ctx, &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	if err := s.srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: s.docURI, LanguageID: "markdown", Version: 1, Text: guideMd}}); err != nil {
		t.Fatal(err)
	}
	return s
}

// at is the LSP position of the first occurrence of needle in text.
func at(text, needle string) protocol.Position {
	m := newMapper([]byte(text))
	return m.position(strings.Index(text, needle))
}

func TestDefinitionHoverReferences(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	pos := at(guideMd, "parse_config")
	if pos.Character != 11 { // 😀 and 𝄞 are two UTF-16 units each (four bytes each), then " Call `"
		t.Fatalf("UTF-16 column of parse_config = %d, want 11", pos.Character)
	}
	res, err := s.srv.Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: s.docURI}, Position: pos}})
	if err != nil {
		t.Fatal(err)
	}
	locs, ok := res.(protocol.LocationSlice)
	if !ok || len(locs) != 1 || locs[0].URI != s.cfgURI || locs[0].Range.Start.Line != 3 {
		t.Fatalf("definition = %#v, want config.py line 3", res)
	}

	hover, err := s.srv.Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: s.docURI}, Position: pos}})
	if err != nil || hover == nil {
		t.Fatalf("hover: %v %v", hover, err)
	}
	text := hover.Contents.(*protocol.MarkupContent).Value
	for _, want := range []string{"**parse_config** — function in `config.py`", "v1", "last changed by Ada", "up to date"} {
		if !strings.Contains(text, want) {
			t.Errorf("hover %q lacks %q", text, want)
		}
	}
	if hover.Range == nil || hover.Range.Start.Character != 10 || hover.Range.End.Character != 24 {
		t.Errorf("hover range %+v, want the code span at UTF-16 columns 10-24", hover.Range)
	}

	refs, err := s.srv.References(ctx, &protocol.ReferenceParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: s.cfgURI}, Position: at(configPy, "parse_config")},
		Context: protocol.ReferenceContext{IncludeDeclaration: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 2 || refs[0].URI != s.cfgURI || refs[1].URI != s.docURI || refs[1].Range.Start != (protocol.Position{Line: 2, Character: 10}) {
		t.Fatalf("references = %+v, want the definition and guide.md 2:10", refs)
	}
}

func TestStaleDiagnosticThenUndo(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	diags := func() []protocol.Diagnostic { return s.cl.diags[s.docURI] }
	s.cl.waitFor(t, "first diagnostics", func() bool { d, ok := s.cl.diags[s.docURI]; return ok && len(d) == 0 })

	_, err := s.svc.Edit(ctx, lunad.EditRequest{ID: s.cfg, Change: lunad.Change{Agent: "coder"},
		BlocksText: "<<<<<<< SEARCH\n        return tomllib.load(f)\n=======\n        return tomllib.load(f) or {}\n>>>>>>> REPLACE\n"})
	if err != nil {
		t.Fatal(err)
	}
	s.cl.waitFor(t, "a stale diagnostic", func() bool { return len(diags()) == 1 })
	d := diags()[0]
	if d.Severity != protocol.DiagnosticSeverityWarning || !strings.Contains(string(d.Message.(protocol.String)), "parse_config in config.py changed in v2") ||
		d.Range.Start != (protocol.Position{Line: 2, Character: 10}) {
		t.Fatalf("diagnostic = %+v", d)
	}

	cursor := protocol.Range{Start: d.Range.Start, End: d.Range.Start}
	actions, err := s.srv.CodeAction(ctx, &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.docURI},
		Range: cursor, Context: protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{d}}})
	if err != nil || len(actions) != 3 {
		t.Fatalf("code actions: %v %v", actions, err)
	}
	if ask := actions[2].(*protocol.CodeAction); ask.Command.Command != "luna.askPrompt" || len(ask.Command.Arguments) != 1 ||
		string(ask.Command.Arguments[0]) != `"`+string(s.docURI)+`"` || *ask.Kind != "refactor.lunad.ask" {
		t.Fatalf("the ask action = %+v", ask)
	}
	diff := actions[1].(*protocol.CodeAction).Command
	out, err := s.srv.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{Command: diff.Command, Arguments: diff.Arguments})
	if err != nil || !strings.Contains(string(out), `or {}`) {
		t.Fatalf("show what changed: %s %v", out, err)
	}

	arg := protocol.LSPAny(`"` + string(s.cfgURI) + `"`)
	if _, err := s.srv.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{Command: "luna.undo", Arguments: []protocol.LSPAny{arg}}); err != nil {
		t.Fatal(err)
	}
	s.cl.waitFor(t, "the diagnostic to clear", func() bool { return len(diags()) == 0 })
	if got, _ := os.ReadFile(filepath.Join(s.root, "config.py")); string(got) != configPy {
		t.Fatalf("after luna.undo config.py = %q", got)
	}
}

func TestBufferFollowsArtifact(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	doc, err := s.svc.Artifact(ctx, "guide.md")
	if err != nil {
		t.Fatal(err)
	}
	s.cl.waitFor(t, "the buffer to be open", func() bool { _, ok := s.cl.diags[s.docURI]; return ok })
	if _, err := s.svc.Edit(ctx, lunad.EditRequest{ID: doc.ID, BlocksText: "<<<<<<< SEARCH\n# Guide\n=======\n# The guide\n>>>>>>> REPLACE\n"}); err != nil {
		t.Fatal(err)
	}
	s.cl.waitFor(t, "workspace/applyEdit of the open buffer", func() bool { return len(s.cl.edits) == 1 })
	edit := s.cl.edits[0].Changes[s.docURI]
	if len(edit) != 1 || !strings.HasPrefix(edit[0].NewText, "# The guide\n") || edit[0].Range.End != (protocol.Position{Line: 3}) {
		t.Fatalf("applyEdit = %+v", s.cl.edits[0])
	}
}

func TestCommandErrors(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, cmd string
		args      []protocol.LSPAny
		want      string
	}{
		{"unknown command", "luna.nope", nil, `unknown command "luna.nope"`},
		{"missing argument", "luna.undo", nil, "luna.undo: argument 1 must be a non-empty string"},
		{"wrong type", "luna.restore", []protocol.LSPAny{protocol.LSPAny(`"guide.md"`), protocol.LSPAny(`{}`)}, "argument 2 must be a number"},
		{"unknown artifact", "luna.undo", []protocol.LSPAny{protocol.LSPAny(`"nope.md"`)}, "not found"},
		{"outside the workspace", "luna.undo", []protocol.LSPAny{protocol.LSPAny(`"file:///etc/passwd"`)}, "is not a file of the workspace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.srv.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{Command: tc.cmd, Arguments: tc.args})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestSymbolsAndLenses(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	ds, err := s.srv.DocumentSymbol(ctx, &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.cfgURI}})
	if err != nil {
		t.Fatal(err)
	}
	if syms := ds.(protocol.DocumentSymbolSlice); len(syms) != 1 || syms[0].Name != "parse_config" || syms[0].Kind != protocol.SymbolKindFunction {
		t.Fatalf("document symbols = %+v", ds)
	}
	ws, err := s.srv.Symbols(ctx, &protocol.WorkspaceSymbolParams{Query: "parse"})
	if err != nil {
		t.Fatal(err)
	}
	// the client's decoder reads the result as SymbolInformation (same shape)
	if hits, ok := ws.(protocol.SymbolInformationSlice); !ok || len(hits) != 1 || hits[0].Name != "parse_config" || hits[0].Location.URI != s.cfgURI {
		t.Fatalf("workspace symbols = %#v", ws)
	}
	lenses, err := s.srv.CodeLens(ctx, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.cfgURI}})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, l := range lenses {
		titles = append(titles, l.Command.Title+" → "+l.Command.Command)
	}
	want := "v1 · 1 dependent → luna.history|1 dependent → luna.references"
	if strings.Join(titles, "|") != want {
		t.Fatalf("lenses = %q, want %q", strings.Join(titles, "|"), want)
	}
}

// TestTransportLimits: a frame over MaxFrame ends the session before the
// body is read; malformed headers end it too; neither crashes the process.
func TestTransportLimits(t *testing.T) {
	for _, tc := range []struct{ name, input string }{
		{"oversized", fmt.Sprintf("Content-Length: %d\r\n\r\n{", MaxFrame+1)},
		{"not a number", "Content-Length: lots\r\n\r\n{}"},
		{"endless header", strings.Repeat("x", 5000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := net.Pipe()
			done := make(chan error, 1)
			go func() {
				done <- Serve(context.Background(), a, Options{Open: func(context.Context, string) (lunad.Workspace, error) {
					t.Error("opened a workspace")
					return nil, nil
				}})
			}()
			go b.Write([]byte(tc.input))
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("the server did not end the session")
			}
			b.Close()
		})
	}
}

// TestMalformedMessages: malformed JSON, an unknown method and invalid
// params get JSON-RPC errors on the wire, and the session goes on.
func TestMalformedMessages(t *testing.T) {
	s := start(t)
	a, b := net.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), a, Options{Open: func(context.Context, string) (lunad.Workspace, error) { return s.svc, nil }})
	}()
	defer func() { b.Close(); <-done }()
	frame := func(body string) {
		fmt.Fprintf(b, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	r := bufio.NewReader(b)
	read := func() string {
		t.Helper()
		b.SetReadDeadline(time.Now().Add(10 * time.Second))
		var n int
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("reading a reply: %v", err)
			}
			if line == "\r\n" {
				break
			}
			fmt.Sscanf(line, "Content-Length: %d", &n)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			t.Fatal(err)
		}
		return string(body)
	}
	for _, tc := range []struct{ name, body, want string }{
		{"malformed JSON", `{"jsonrpc":"2.0","id":9,"method":`, `"code":-32700`},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"luna/nope","params":{}}`, `"code":-32601`},
		{"invalid params", `{"jsonrpc":"2.0","id":2,"method":"textDocument/definition","params":"not an object"}`, `"id":2,"error"`},
		{"a request still works", `{"jsonrpc":"2.0","id":3,"method":"shutdown"}`, `"id":3,"result":null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frame(tc.body)
			if got := read(); !strings.Contains(got, tc.want) {
				t.Fatalf("reply %s, want %s", got, tc.want)
			}
		})
	}
}
