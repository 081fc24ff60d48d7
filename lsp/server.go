package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/version"
)

// Opener opens the workspace containing dir (the client's root folder).
type Opener func(ctx context.Context, dir string) (lunad.Workspace, error)

// Options configure a Server.
type Options struct {
	// Open opens the workspace at initialize. Required.
	Open Opener
	// Logger receives the server's own log (never stdout). Default: discard.
	Logger *slog.Logger
	// Debounce coalesces workspace events before diagnostics are
	// refreshed (default 50ms).
	Debounce time.Duration
	// Agent names the author of edits made through the editor's commands
	// (default: the workspace's configured human author).
	Agent string
	// GoalTests gives the test commands a goal started by luna.goal runs
	// when the command gives none: the [tests] commands of the workspace
	// at root (nil: none).
	GoalTests func(root string) ([][]string, error)
}

// Server is one language-server session with one client.
type Server struct {
	protocol.UnimplementedServer

	opts Options
	log  *slog.Logger
	// client is the editor's side of the connection; use peer, which
	// waits until Serve has set it (a request may be handled before).
	client    protocol.Client
	connected chan struct{} // closed once client is set

	mu       sync.Mutex
	ws       lunad.Workspace
	root     string
	docs     map[uri.URI]*document
	shutdown bool
	// workDone: the client takes window/workDoneProgress/create (its
	// capabilities say so at initialize).
	workDone bool
	// showDocument: the client takes window/showDocument (a goal's
	// report is offered to open only then).
	showDocument bool
	// lensRefresh: the client takes workspace/codeLens/refresh.
	lensRefresh bool

	ctx    context.Context // the session's; cancelled when it ends
	cancel context.CancelFunc
	// wg counts the goroutines the server owns (goOwned): the event loop
	// and the followers of runs started from the editor. Serve waits for
	// them; closing (under mu) stops new ones, stopping is closed at
	// shutdown.
	wg       sync.WaitGroup
	closing  bool
	stopping chan struct{}
}

// Serve runs a session over rwc (stdin/stdout for `lunad lsp`) until the
// client sends exit, the stream ends or ctx is cancelled. It closes the
// workspace it opened.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) error {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Debounce <= 0 {
		opts.Debounce = 50 * time.Millisecond
	}
	s := &Server{opts: opts, log: opts.Logger, docs: map[uri.URI]*document{}, stopping: make(chan struct{}), connected: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(ctx)
	defer s.cancel()
	_, conn, client := protocol.NewServer(s.ctx, s, newCancels(tolerant{jsonrpc2.NewHeaderStream(guarded(rwc, MaxFrame))}))
	s.client = client
	close(s.connected)
	select {
	case <-conn.Done():
	case <-s.ctx.Done():
	}
	s.cancel()
	conn.Close()
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.wg.Wait()
	s.mu.Lock()
	ws := s.ws
	s.ws = nil
	s.mu.Unlock()
	if ws != nil {
		return ws.Close()
	}
	return nil
}

// peer is the editor's side of the connection. protocol.NewServer reads
// requests before it returns the client, so a handler may run before
// Serve has set it: peer waits for that.
func (s *Server) peer() protocol.Client {
	<-s.connected
	return s.client
}

// commands are the workspace/executeCommand commands the server runs.
var commands = []string{"luna.undo", "luna.redo", "luna.restore", "luna.history", "luna.diff", "luna.ack",
	"luna.link", "luna.createArtifact", "luna.edit", "luna.branch", "luna.switch", "luna.references",
	"luna.runs", "luna.runWorkflow", "luna.ask", "luna.goal", "luna.acceptRun", "luna.discardRun"}

// Initialize opens the workspace of the client's root folder and
// announces the server's features.
func (s *Server) Initialize(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	dir, err := rootOf(params)
	if err != nil {
		return nil, rpcError(err)
	}
	ws, err := s.opts.Open(ctx, dir)
	if err != nil {
		return nil, rpcError(fmt.Errorf("lunad: open the workspace at %s: %w", dir, err))
	}
	s.mu.Lock()
	s.ws, s.root = ws, ws.Root()
	if w := params.Capabilities.Window; w != nil && w.WorkDoneProgress != nil {
		s.workDone = *w.WorkDoneProgress
	}
	if w := params.Capabilities.Window; w != nil && w.ShowDocument != nil {
		s.showDocument = w.ShowDocument.Support
	}
	if w := params.Capabilities.Workspace; w != nil && w.CodeLens != nil && w.CodeLens.RefreshSupport != nil {
		s.lensRefresh = *w.CodeLens.RefreshSupport
	}
	s.mu.Unlock()
	sync := protocol.TextDocumentSyncKindIncremental
	open, yes := true, true
	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			PositionEncoding:        protocol.PositionEncodingKindUTF16,
			TextDocumentSync:        &protocol.TextDocumentSyncOptions{OpenClose: &open, Change: &sync, Save: protocol.Boolean(true)},
			HoverProvider:           protocol.Boolean(true),
			DefinitionProvider:      protocol.Boolean(true),
			ReferencesProvider:      protocol.Boolean(true),
			DocumentSymbolProvider:  protocol.Boolean(true),
			WorkspaceSymbolProvider: protocol.Boolean(true),
			CodeActionProvider:      protocol.Boolean(true),
			CodeLensProvider:        &protocol.CodeLensOptions{ResolveProvider: new(bool)},
			ExecuteCommandProvider:  protocol.ExecuteCommandOptions{Commands: commands, WorkDoneProgressOptions: protocol.WorkDoneProgressOptions{WorkDoneProgress: &yes}},
		},
		ServerInfo: protocol.ServerInfo{Name: "lunad", Version: protocol.NewOptional(version.String())},
	}, nil
}

// rootOf is the directory the client opened: the first workspace folder,
// the root URI, the root path, or the server's working directory.
// A root that is not a file: URI is ErrInvalid.
func rootOf(params *protocol.InitializeParams) (string, error) {
	if folders, ok := params.WorkspaceFolders.Get(); ok && len(folders) > 0 {
		return fsPath(folders[0].URI)
	}
	if params.RootURI != nil && *params.RootURI != "" {
		return fsPath(*params.RootURI)
	}
	if p, ok := params.RootPath.Get(); ok && p != "" {
		return p, nil
	}
	return os.Getwd()
}

// Initialized starts following the workspace: every change refreshes the
// open documents' diagnostics. The first index build is reported as
// progress.
func (s *Server) Initialized(ctx context.Context, _ *protocol.InitializedParams) error {
	ws := s.workspace()
	if ws == nil {
		return errors.New("lunad: initialized before initialize")
	}
	events, err := ws.Subscribe(s.ctx)
	if err != nil {
		return err
	}
	s.goOwned(func(<-chan struct{}) {
		s.warmUp()
		s.follow(events)
	})
	return nil
}

// Shutdown stops answering requests and following runs; Exit ends the
// session.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.shutdown {
		close(s.stopping)
	}
	s.shutdown = true
	s.mu.Unlock()
	return nil
}

// Exit ends the session (Serve returns).
func (s *Server) Exit(ctx context.Context) error {
	s.cancel()
	return nil
}

func (s *Server) workspace() lunad.Workspace {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown {
		return nil
	}
	return s.ws
}

// errShutdown answers requests after shutdown, as the spec asks.
var errShutdown = &jsonrpc2.Error{Code: jsonrpc2.InvalidRequest, Message: "lunad: the server is shutting down"}

// ready returns the workspace, or an error for a request that arrives
// before initialize or after shutdown.
func (s *Server) ready() (lunad.Workspace, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.shutdown:
		return nil, errShutdown
	case s.ws == nil:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.ServerNotInitialized, Message: "lunad: initialize first"}
	}
	return s.ws, nil
}

// warmUp builds the reference index once, so the first request does not
// pay for it, reporting it as work-done progress (token lunad-index) when
// the client takes it: a begin, a report each time the percentage of
// artifacts parsed rises — at once with the current figure when the
// daemon is building the index for another client already — and an end
// when the index is ready. In-process or through the daemon, the figures
// are the Workspace's IndexReferences'.
func (s *Server) warmUp() {
	ws := s.workspace()
	if ws == nil {
		return
	}
	s.mu.Lock()
	token := protocol.String("")
	if s.workDone {
		token = "lunad-index"
	}
	s.mu.Unlock()
	if token != "" {
		if err := s.peer().WorkDoneProgressCreate(s.ctx, &protocol.WorkDoneProgressCreateParams{Token: token}); err != nil {
			s.log.Debug("index progress refused by the client", "err", err)
			token = ""
		}
	}
	zero := uint32(0)
	s.progress(token, protocol.WorkDoneProgressBegin{Kind: "begin", Title: "lunad: indexing references", Percentage: &zero})
	var progress func(done, total int)
	if token != "" {
		progress = s.indexProgress(token)
	}
	if err := ws.IndexReferences(s.ctx, progress); err != nil {
		s.log.Warn("index warm-up", "err", err)
	}
	s.progress(token, protocol.WorkDoneProgressEnd{Kind: "end"})
}

// indexProgress reports an index build's progress under token: the first
// figure, which tells the total, then a report each time the whole
// percentage changes (at most 101 reports).
func (s *Server) indexProgress(token protocol.String) func(done, total int) {
	first, last := true, uint32(0)
	return func(done, total int) {
		pct := uint32(100 * done / max(total, 1))
		if pct == last && !first {
			return
		}
		first = false
		last = pct
		s.progress(token, protocol.WorkDoneProgressReport{Kind: "report", Percentage: &pct,
			Message: ptr(fmt.Sprintf("%d/%d artifacts", done, total))})
	}
}

func (s *Server) progress(token protocol.String, value any) {
	if token == "" {
		return
	}
	raw, err := protocol.Marshal(value)
	if err == nil {
		err = s.peer().Progress(s.ctx, &protocol.ProgressParams{Token: token, Value: raw})
	}
	if err != nil {
		s.log.Debug("progress", "err", err)
	}
}

// rpcError maps lunad's sentinel errors to JSON-RPC errors at this edge;
// a request whose context was cancelled is RequestCancelled (cancels tells
// the client's cancellations from others), one whose deadline passed
// RequestFailed.
func rpcError(err error) error {
	if err == nil {
		return nil
	}
	code := jsonrpc2.InternalError
	switch {
	case errors.Is(err, context.Canceled):
		code = protocol.CodeRequestCancelled
	case errors.Is(err, context.DeadlineExceeded):
		code = jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed)
	case errors.Is(err, lunad.ErrInvalid), errors.Is(err, lunad.ErrNotApplied):
		code = jsonrpc2.InvalidParams
	case errors.Is(err, lunad.ErrNotFound), errors.Is(err, lunad.ErrNotWorkspace):
		code = jsonrpc2.InvalidParams
	case errors.Is(err, lunad.ErrConflict):
		code = jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed)
	}
	return &jsonrpc2.Error{Code: code, Message: err.Error()}
}

// fsPath is the directory a root URI names; lunad serves only folders on
// this machine (file: URIs).
func fsPath(u uri.URI) (string, error) {
	if u.Scheme() != "file" {
		return "", fmt.Errorf("%w: the root %q is not a file: URI; open a folder on this machine", lunad.ErrInvalid, string(u))
	}
	return u.FsPath(), nil
}
