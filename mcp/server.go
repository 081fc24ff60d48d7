package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/version"
)

// Options configure a Server.
type Options struct {
	// Name and Version are the server's implementation info ("lunad" and
	// the build's version, version.String, when empty).
	Name    string
	Version string
	// Agent is the agent recorded for writes when neither the call nor the
	// client's initialize clientInfo names one ("" means the workspace's
	// human).
	Agent string
	// Rate and Burst limit each client (session) to Rate requests per
	// second on average, Burst at once; Rate 0 means no limit.
	Rate  float64
	Burst int
	// PageSize is the most resources one resources/list page holds
	// (the SDK's default when 0).
	PageSize int
	// MaxSessions caps the live sessions of Serve (streamable HTTP), and
	// MaxSessionsPerAddress those from one client address: a request that
	// would open one more evicts the longest-idle session that is not
	// active, or is refused (503, 429) saying so when all are. 0 means
	// DefaultMaxSessions, DefaultMaxSessionsPerAddress.
	MaxSessions           int
	MaxSessionsPerAddress int
	// SessionActive is how long after its last request a session counts
	// as active (never evicted); 0 means DefaultSessionActive.
	SessionActive time.Duration
	// SessionTimeout ends a session of Serve that has made no request for
	// that long (its client must initialize a new one); 0 means
	// DefaultSessionTimeout, negative never.
	SessionTimeout time.Duration
	// GoalTests are the test commands a goal runs when the goal tool's
	// call gives none (the workspace's [tests] commands).
	GoalTests [][]string
	// Clock is the rate limiter's and the session caps' clock (time.Now
	// when nil).
	Clock func() time.Time
	// Logger, if set, logs server activity.
	Logger *slog.Logger
}

// Validate reports options that make no sense, as lunad.ErrInvalid.
func (o Options) Validate() error {
	switch {
	case o.Rate < 0:
		return fmt.Errorf("%w: mcp rate %v: requests per second cannot be negative (0 means no limit)", lunad.ErrInvalid, o.Rate)
	case o.Rate > 0 && o.Burst < 1:
		return fmt.Errorf("%w: mcp burst %d: with a rate limit, at least 1 request must be allowed at once", lunad.ErrInvalid, o.Burst)
	case o.PageSize < 0:
		return fmt.Errorf("%w: mcp page size %d cannot be negative", lunad.ErrInvalid, o.PageSize)
	case o.MaxSessions < 0 || o.MaxSessionsPerAddress < 0:
		return fmt.Errorf("%w: mcp session caps %d and %d cannot be negative (0 means the default)", lunad.ErrInvalid, o.MaxSessions, o.MaxSessionsPerAddress)
	case o.SessionActive < 0:
		return fmt.Errorf("%w: mcp session active time %v cannot be negative (0 means the default)", lunad.ErrInvalid, o.SessionActive)
	}
	return nil
}

// instructions tell a model how to use the tools well.
const instructions = `lunad keeps a workspace of text artifacts (code, Markdown, configs) in git; every write is a versioned commit that can be undone.
Read an artifact (read_artifact) before editing it, and edit with edit_artifact's SEARCH/REPLACE changes copied exactly from what you read; pass base_version to refuse an edit if someone changed the artifact since.
When an edit fails, the error says what to fix (the closest lines, or the current version): correct the call and retry.
Subscribe to luna://artifacts/{id} to be told when an artifact changes, whoever changed it; list_stale says which artifacts refer to code or text that changed since they were written.
Workflows (list_workflows) are run by lunad's engine: run_workflow starts a run (pass a key to make retries safe, wait to get it finished), run_status follows it. ask hands a request to lunad's own agents (a supervisor routing to a coder, a writer or a reviewer) and returns what they did.
goal starts an autonomous goal on a branch of its own; once it ends, accept_run takes its work onto the person's branch and discard_run drops it — only when the person says which.`

// Server is lunad's MCP server over one Workspace. Run serves one client on
// a transport (stdio), Serve any number over streamable HTTP; both keep the
// resource list and the subscribers current from the Workspace's events
// (Follow).
type Server struct {
	sdk  *sdk.Server
	ws   lunad.Workspace
	opts Options

	// tools maps a tool's name to the arguments it takes, for errors;
	// optional to its optional arguments, which completeArgs fills in.
	tools    map[string]string
	optional map[string][]string
	limit    *limiter

	mu     sync.Mutex
	listed map[string]listing // artifacts on the resource list, by ID
	cache  artifactCache
}

// New returns a Server whose tools and resources act on ws, its resource
// list loaded from ws.
func New(ctx context.Context, ws lunad.Workspace, opts Options) (*Server, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.Name == "" {
		opts.Name = "lunad"
	}
	if opts.Version == "" {
		opts.Version = version.String()
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	s := &Server{ws: ws, opts: opts, tools: map[string]string{}, optional: map[string][]string{}, listed: map[string]listing{}}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: opts.Name, Version: opts.Version}, &sdk.ServerOptions{
		Instructions: instructions,
		Logger:       warnings(opts.Logger), // the SDK logs every notification at Info
		PageSize:     opts.PageSize,
		// Follow sends the updates of the artifacts subscribed to.
		SubscribeHandler:   s.subscribe,
		UnsubscribeHandler: func(context.Context, *sdk.UnsubscribeRequest) error { return nil },
	})
	s.limit = newLimiter(s.sdk, opts.Rate, opts.Burst, opts.Clock)
	s.addTools()
	s.addResources()
	s.sdk.AddReceivingMiddleware(s.guard, s.annotateList)
	if err := s.syncList(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Run serves one client on t, following the Workspace's events, until the
// client disconnects or ctx is done.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { s.follow(ctx) })
	return s.sdk.Run(ctx, t)
}

// Connect starts a session on t without following events: for callers that
// run Follow themselves, or serve several sessions.
func (s *Server) Connect(ctx context.Context, t sdk.Transport) (*sdk.ServerSession, error) {
	return s.sdk.Connect(ctx, t, nil)
}

// follow runs Follow, logging why it stopped unless ctx ended it.
func (s *Server) follow(ctx context.Context) {
	if err := s.Follow(ctx); err != nil && ctx.Err() == nil && s.opts.Logger != nil {
		s.opts.Logger.Warn("resource notifications stopped", "err", err)
	}
}

// subscribe accepts a subscription to luna://artifacts/{id} of an existing
// artifact, by its ID (updates name it so); a path, an unknown artifact or
// a version (which never changes) is refused with what to subscribe to.
func (s *Server) subscribe(ctx context.Context, req *sdk.SubscribeRequest) error {
	uri := req.Params.URI
	ref, at, ok := parseURI(uri)
	if !ok {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%q is not an artifact: subscribe to luna://artifacts/{id}", uri)}
	}
	a, err := s.ws.Artifact(ctx, ref)
	if errors.Is(err, lunad.ErrNotFound) {
		return sdk.ResourceNotFoundError(uri)
	}
	if err != nil {
		return err
	}
	if want := ArtifactURI(a.ID, 0); at != "" || uri != want {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("subscribe to %s: updates name an artifact by its ID (a version never changes)", want)}
	}
	return nil
}

// agent is who a write is recorded as: the call's agent, else the MCP
// client's name (from initialize, or from the request's _meta in stateless
// sessions), else Options.Agent.
func (s *Server) agent(req *sdk.CallToolRequest, explicit string) string {
	if explicit != "" {
		return explicit
	}
	if req != nil && req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
			return p.ClientInfo.Name
		}
	}
	if req != nil && req.Params != nil {
		if info, ok := req.Params.GetMeta()[sdk.MetaKeyClientInfo].(map[string]any); ok {
			if name, ok := info["name"].(string); ok && name != "" {
				return name
			}
		}
	}
	return s.opts.Agent
}

// warnings passes on l's records of level Warn and above.
func warnings(l *slog.Logger) *slog.Logger {
	if l == nil {
		return nil
	}
	return slog.New(minLevel{l.Handler()})
}

type minLevel struct{ slog.Handler }

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && h.Handler.Enabled(ctx, l)
}
func (h minLevel) WithAttrs(as []slog.Attr) slog.Handler { return minLevel{h.Handler.WithAttrs(as)} }
func (h minLevel) WithGroup(name string) slog.Handler    { return minLevel{h.Handler.WithGroup(name)} }
