package config

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/BurntSushi/toml"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/daemon/rpc"
	"github.com/lunad/lunad/mcp"
	"github.com/lunad/lunad/runs/natsqueue"
)

// File is the workspace's configuration, relative to its root.
const File = ".luna/config.toml"

// Config is a workspace's configuration, as the command line and the
// daemon read it. It is built from
// Default, then the workspace's .luna/config.toml if present, then
// the environment (LUNAD_LOCK_TIMEOUT, LUNAD_AUTHOR_NAME,
// LUNAD_AUTHOR_EMAIL, LUNAD_IDLE_TIMEOUT, LUNAD_LOG_FILE, LUNAD_RECORD_SAVES,
// LUNAD_MAX_CONNECTIONS, LUNAD_CONN_IDLE_TIMEOUT, LUNAD_MEMORY_LIMIT, LUNAD_MCP_RATE,
// LUNAD_MCP_BURST, LUNAD_MCP_MAX_SESSIONS, LUNAD_MCP_MAX_SESSIONS_PER_ADDRESS,
// LUNAD_MCP_SESSION_TIMEOUT, LUNAD_RUN_SLOTS, LUNAD_QUEUE_URL,
// LUNAD_LLM_PROVIDER, LUNAD_LLM_BASE_URL, LUNAD_LLM_MODEL,
// LUNAD_LLM_API_KEY_ENV, LUNAD_TESTS), and checked by Validate.
type Config struct {
	// LockTimeout bounds the wait for another lunad writer.
	LockTimeout time.Duration `toml:"lock_timeout"`
	// MaxContent caps an artifact's size in bytes.
	MaxContent int `toml:"max_content"`
	// Author signs edits made without --agent. Empty: git's user.name and
	// user.email, else "lunad user".
	Author Author `toml:"author"`
	// Daemon configures `lunad serve`.
	Daemon Daemon `toml:"daemon"`
	// MCP configures `lunad mcp`.
	MCP MCP `toml:"mcp"`
	// Runs configures the workflow engine the daemon hosts.
	Runs Runs `toml:"runs"`
	// Queue sends stage messages through NATS JetStream to `lunad worker`
	// processes when URL is set.
	Queue Queue `toml:"queue"`
	// Refs configures how references are resolved.
	Refs Refs `toml:"refs"`
	// LLM is the model provider of the agents (`lunad ask`), and Agents
	// the roles' overrides and the budget of one ask (agents.go).
	LLM    llm.Config `toml:"llm"`
	Agents Agents     `toml:"agents"`
	// Tests are the test commands a goal runs after each change
	// (goals.go).
	Tests Tests `toml:"tests"`
}

// Refs configures reference resolution (docs/references.md).
type Refs struct {
	// Slugs is how a link's #fragment names a heading: "github" (GitHub's
	// anchors; one matching only ignoring punctuation is unverified) or
	// "loose" (such a match is as good).
	Slugs string `toml:"slugs"`
}

// Queue configures the queue of stage messages (docs/runs.md).
type Queue struct {
	// URL of the NATS server, e.g. nats://127.0.0.1:4222; empty: the
	// daemon runs stages itself.
	URL string `toml:"url"`
	// Name prefixes the queue's streams and subjects.
	Name string `toml:"name"`
	// AckWait is how long a worker may go without a heartbeat before its
	// stage is delivered to another worker; MaxDeliver bounds deliveries.
	AckWait    time.Duration `toml:"ack_wait"`
	MaxDeliver int           `toml:"max_deliver"`
	// Workers are the public keys of the workers whose results the
	// daemon takes (`lunad worker key` prints a worker's); Daemons those
	// of the daemons whose stage messages a worker runs (`lunad worker
	// key --daemon`).
	Workers []string `toml:"workers"`
	Daemons []string `toml:"daemons"`
	// The connection's credentials, one kind at most: User and the
	// environment variable PasswordEnv names (never the password itself),
	// NkeyFile (an nkeys user seed), or Credentials (a .creds file).
	User        string `toml:"user"`
	PasswordEnv string `toml:"password_env"`
	NkeyFile    string `toml:"nkey_file"`
	Credentials string `toml:"credentials"`
}

// Runs configures the workflow engine.
type Runs struct {
	// Slots is how many stage attempts run at once.
	Slots int `toml:"slots"`
}

// MCP configures the MCP server (`lunad mcp`).
type MCP struct {
	// Rate and Burst limit each MCP client to Rate requests per second on
	// average and Burst at once; rate 0 means no limit.
	Rate  float64 `toml:"rate"`
	Burst int     `toml:"burst"`
	// PageSize is the most artifacts one resources/list page holds.
	PageSize int `toml:"page_size"`
	// MaxSessions caps the live sessions of MCP over HTTP, and
	// MaxSessionsPerAddress those from one client address (on loopback,
	// every client's is 127.0.0.1 or ::1).
	MaxSessions           int `toml:"max_sessions"`
	MaxSessionsPerAddress int `toml:"max_sessions_per_address"`
	// SessionTimeout ends an HTTP session that has made no request for
	// this long; 0 never.
	SessionTimeout time.Duration `toml:"session_timeout"`
}

// Daemon configures the workspace daemon (`lunad serve`).
type Daemon struct {
	// IdleTimeout: a daemon started by a client (serve --auto) exits when
	// no client has been connected for this long; 0 never.
	IdleTimeout time.Duration `toml:"idle_timeout"`
	// LogFile is where the daemon logs, relative to the workspace root if
	// not absolute. Empty: standard error for `lunad serve`,
	// <git dir>/luna/lunad.log for an auto-started daemon.
	LogFile string `toml:"log_file"`
	// RecordSaves: the daemon commits files saved by hand as human
	// versions (default true). Off, saves are committed at the next lunad
	// operation on the artifact, as without a daemon.
	RecordSaves bool `toml:"record_saves"`
	// MaxConnections caps the connections the daemon serves at once; one
	// more is refused with an error saying so.
	MaxConnections int `toml:"max_connections"`
	// ConnIdleTimeout closes a connection with no call in flight and no
	// subscription for this long; 0 never.
	ConnIdleTimeout time.Duration `toml:"conn_idle_timeout"`
	// MemoryLimit is the daemon's soft memory limit (the Go runtime's,
	// as GOMEMLIMIT sets it, which takes precedence); 0 none.
	MemoryLimit lunad.ByteSize `toml:"memory_limit"`
}

// Author is a person's name and email for commits.
type Author struct {
	Name  string `toml:"name"`
	Email string `toml:"email"`
}

// Default returns the built-in configuration.
func Default() Config {
	return Config{LockTimeout: 10 * time.Second, MaxContent: 8 << 20,
		Daemon: Daemon{IdleTimeout: 5 * time.Minute, RecordSaves: true, MaxConnections: rpc.DefaultMaxConns, ConnIdleTimeout: rpc.DefaultConnIdleTimeout,
			MemoryLimit: DefaultMemoryLimit},
		MCP: MCP{Rate: 20, Burst: 40, PageSize: 100, MaxSessions: mcp.DefaultMaxSessions,
			MaxSessionsPerAddress: mcp.DefaultMaxSessionsPerAddress, SessionTimeout: mcp.DefaultSessionTimeout},
		Runs: Runs{Slots: 4}, Refs: Refs{Slugs: lunad.SlugsGitHub},
		Queue:  Queue{Name: natsqueue.DefaultName, AckWait: natsqueue.DefaultAckWait, MaxDeliver: natsqueue.DefaultMaxDeliver},
		Agents: DefaultAgents()}
}

// maxLimit bounds the connection and session caps.
const maxLimit = 100000

// maxIdleTimeout bounds daemon.idle_timeout.
const maxIdleTimeout = 7 * 24 * time.Hour

// maxMaxContent bounds max_content: lunad keeps whole artifacts in memory.
const maxMaxContent = 1 << 30

// Load builds the configuration for the workspace at root. getenv
// reads the environment.
func Load(root string, getenv func(string) string) (Config, error) {
	cfg := Default()
	if err := cfg.loadFile(filepath.Join(root, filepath.FromSlash(File))); err != nil {
		return cfg, err
	}
	if err := cfg.loadEnv(getenv); err != nil {
		return cfg, err
	}
	return cfg, cfg.Validate()
}

func (c *Config) loadFile(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	md, err := toml.Decode(string(b), c)
	if err != nil {
		return fmt.Errorf("%w: config %s: %v", lunad.ErrInvalid, path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return fmt.Errorf("%w: config %s: unknown key %s (known: %s; an API key is never configured here: api_key_env names the environment variable holding it)",
			lunad.ErrInvalid, path, strings.Join(keys, ", "), knownKeys())
	}
	return nil
}

func (c *Config) loadEnv(getenv func(string) string) error {
	if v := getenv("LUNAD_LOCK_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("%w: LUNAD_LOCK_TIMEOUT=%q is not a duration (e.g. 10s, 1m)", lunad.ErrInvalid, v)
		}
		c.LockTimeout = d
	}
	if v := getenv("LUNAD_AUTHOR_NAME"); v != "" {
		c.Author.Name = v
	}
	if v := getenv("LUNAD_AUTHOR_EMAIL"); v != "" {
		c.Author.Email = v
	}
	if v := getenv("LUNAD_IDLE_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("%w: LUNAD_IDLE_TIMEOUT=%q is not a duration (e.g. 5m, 1h; 0 never)", lunad.ErrInvalid, v)
		}
		c.Daemon.IdleTimeout = d
	}
	if v := getenv("LUNAD_LOG_FILE"); v != "" {
		c.Daemon.LogFile = v
	}
	if v := getenv("LUNAD_RECORD_SAVES"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%w: LUNAD_RECORD_SAVES=%q is not a boolean (true or false)", lunad.ErrInvalid, v)
		}
		c.Daemon.RecordSaves = b
	}
	if err := c.loadMemoryLimitEnv(getenv); err != nil {
		return err
	}
	if err := c.loadLLMEnv(getenv); err != nil {
		return err
	}
	if err := c.loadTestsEnv(getenv); err != nil {
		return err
	}
	if v := getenv("LUNAD_QUEUE_URL"); v != "" {
		c.Queue.URL = v
	}
	if v := getenv("LUNAD_MCP_RATE"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("%w: LUNAD_MCP_RATE=%q is not a number of requests per second (0: no limit)", lunad.ErrInvalid, v)
		}
		c.MCP.Rate = f
	}
	if v := getenv("LUNAD_MCP_BURST"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%w: LUNAD_MCP_BURST=%q is not a whole number of requests", lunad.ErrInvalid, v)
		}
		c.MCP.Burst = n
	}
	return c.loadLimitsEnv(getenv)
}

// loadLimitsEnv reads the connection and session limits from the
// environment.
func (c *Config) loadLimitsEnv(getenv func(string) string) error {
	for _, e := range []struct {
		name string
		n    *int
	}{
		{"LUNAD_MAX_CONNECTIONS", &c.Daemon.MaxConnections},
		{"LUNAD_MCP_MAX_SESSIONS", &c.MCP.MaxSessions},
		{"LUNAD_MCP_MAX_SESSIONS_PER_ADDRESS", &c.MCP.MaxSessionsPerAddress},
		{"LUNAD_RUN_SLOTS", &c.Runs.Slots},
	} {
		if v := getenv(e.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("%w: %s=%q is not a whole number", lunad.ErrInvalid, e.name, v)
			}
			*e.n = n
		}
	}
	for _, e := range []struct {
		name string
		d    *time.Duration
	}{
		{"LUNAD_CONN_IDLE_TIMEOUT", &c.Daemon.ConnIdleTimeout},
		{"LUNAD_MCP_SESSION_TIMEOUT", &c.MCP.SessionTimeout},
	} {
		if v := getenv(e.name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				return fmt.Errorf("%w: %s=%q is not a duration (e.g. 10m, 1h; 0 never)", lunad.ErrInvalid, e.name, v)
			}
			*e.d = d
		}
	}
	return nil
}

// Validate checks the configuration's values.
func (c Config) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: config: %s", lunad.ErrInvalid, fmt.Sprintf(format, args...))
	}
	if c.LockTimeout <= 0 || c.LockTimeout > 24*time.Hour {
		return bad("lock_timeout %v must be between 1ns and 24h", c.LockTimeout)
	}
	if c.MaxContent <= 0 || c.MaxContent > maxMaxContent {
		return bad("max_content %d must be between 1 and %d bytes", c.MaxContent, maxMaxContent)
	}
	if c.Refs.Slugs != lunad.SlugsGitHub && c.Refs.Slugs != lunad.SlugsLoose {
		return bad("refs.slugs %q must be %q or %q", c.Refs.Slugs, lunad.SlugsGitHub, lunad.SlugsLoose)
	}
	for _, f := range []struct{ what, v string }{{"author.name", c.Author.Name}, {"author.email", c.Author.Email}} {
		if len(f.v) > 256 || strings.ContainsAny(f.v, "<>") || strings.IndexFunc(f.v, unicode.IsControl) >= 0 || strings.TrimSpace(f.v) != f.v {
			return bad("%s %q must be one line of at most 256 bytes, without < > or surrounding spaces", f.what, f.v)
		}
	}
	if c.Author.Email != "" && c.Author.Name == "" {
		return bad("author.email is set but author.name is not (set LUNAD_AUTHOR_NAME or author.name)")
	}
	if c.Daemon.IdleTimeout < 0 || c.Daemon.IdleTimeout > maxIdleTimeout {
		return bad("daemon.idle_timeout %v must be between 0 (never) and %v", c.Daemon.IdleTimeout, maxIdleTimeout)
	}
	if f := c.Daemon.LogFile; len(f) > 4096 || strings.IndexFunc(f, unicode.IsControl) >= 0 || strings.HasSuffix(f, "/") {
		return bad("daemon.log_file %q must be a file name (one line, not ending in /)", f)
	}
	if err := c.validateMemoryLimit(bad); err != nil {
		return err
	}
	if r := c.MCP.Rate; r < 0 || r > 1e6 || r != r {
		return bad("mcp.rate %v must be between 0 (no limit) and 1000000 requests per second", r)
	}
	if c.MCP.Rate > 0 && (c.MCP.Burst < 1 || c.MCP.Burst > 1e6) {
		return bad("mcp.burst %d must be between 1 and 1000000 when mcp.rate is set", c.MCP.Burst)
	}
	if c.Runs.Slots < 1 || c.Runs.Slots > 256 {
		return bad("runs.slots %d must be between 1 and 256", c.Runs.Slots)
	}
	if err := c.Queue.Validate(); err != nil {
		return bad("%v", err)
	}
	if c.MCP.PageSize < 1 || c.MCP.PageSize > 10000 {
		return bad("mcp.page_size %d must be between 1 and 10000", c.MCP.PageSize)
	}
	if err := c.validateAgents(bad); err != nil {
		return err
	}
	return c.validateLimits(bad)
}

// validateLimits checks the connection and session limits.
func (c Config) validateLimits(bad func(string, ...any) error) error {
	for _, l := range []struct {
		what string
		n    int
	}{
		{"daemon.max_connections", c.Daemon.MaxConnections},
		{"mcp.max_sessions", c.MCP.MaxSessions},
		{"mcp.max_sessions_per_address", c.MCP.MaxSessionsPerAddress},
	} {
		if l.n < 1 || l.n > maxLimit {
			return bad("%s %d must be between 1 and %d", l.what, l.n, maxLimit)
		}
	}
	for _, l := range []struct {
		what string
		d    time.Duration
	}{
		{"daemon.conn_idle_timeout", c.Daemon.ConnIdleTimeout},
		{"mcp.session_timeout", c.MCP.SessionTimeout},
	} {
		if l.d < 0 || l.d > maxIdleTimeout {
			return bad("%s %v must be between 0 (never) and %v", l.what, l.d, maxIdleTimeout)
		}
	}
	return nil
}

// Validate checks the queue's settings: the error names the setting to fix.
func (q Queue) Validate() error {
	if q.URL != "" {
		u, err := url.Parse(q.URL)
		if err != nil || (u.Scheme != "nats" && u.Scheme != "tls") || u.Host == "" {
			return fmt.Errorf("queue.url %q must be a NATS server URL such as nats://127.0.0.1:4222", lunad.RedactURL(q.URL))
		}
	}
	if q.Name == "" || strings.IndexFunc(q.Name, func(r rune) bool {
		return !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) >= 0 {
		return fmt.Errorf("queue.name %q must be letters, digits, _ and - only", q.Name)
	}
	if q.AckWait < time.Second || q.AckWait > 24*time.Hour {
		return fmt.Errorf("queue.ack_wait %v must be between 1s and 24h", q.AckWait)
	}
	if q.MaxDeliver < 1 || q.MaxDeliver > 1000 {
		return fmt.Errorf("queue.max_deliver %d must be between 1 and 1000", q.MaxDeliver)
	}
	for _, l := range []struct {
		what string
		keys []string
	}{{"queue.workers", q.Workers}, {"queue.daemons", q.Daemons}} {
		for _, k := range l.keys {
			if !natsqueue.ValidPublicKey(k) {
				return fmt.Errorf("%s: %q is not a public key such as `lunad worker key` prints (\"U\" and 55 more letters and digits)", l.what, k)
			}
		}
	}
	if q.PasswordEnv != "" && !envName().MatchString(q.PasswordEnv) {
		return fmt.Errorf("queue.password_env %q must name an environment variable (letters, digits and _), not hold the password", q.PasswordEnv)
	}
	if (q.User == "") != (q.PasswordEnv == "") {
		return fmt.Errorf("queue.user and queue.password_env go together: set both, or neither")
	}
	kinds := 0
	for _, set := range []bool{q.User != "", q.NkeyFile != "", q.Credentials != ""} {
		if set {
			kinds++
		}
	}
	if kinds > 1 {
		return fmt.Errorf("queue.user, queue.nkey_file and queue.credentials are three ways to log in to the NATS server: set one")
	}
	return nil
}

// Snapshot is the effective configuration as TOML: what every run records
// (its config_ref). It holds no secrets: the URLs (queue.url, every
// base_url) are lunad.RedactURL's, without user information or query
// values, such as the api-key some gateways take in the query. An API key
// is not configuration: only the name of its variable is here.
func (c Config) Snapshot() ([]byte, error) {
	c.Queue.URL = lunad.RedactURL(c.Queue.URL)
	c.LLM.BaseURL = lunad.RedactURL(c.LLM.BaseURL)
	for _, r := range []*llm.Config{&c.Agents.Supervisor, &c.Agents.Coder, &c.Agents.Writer, &c.Agents.Reviewer, &c.Agents.Goal.Config} {
		r.BaseURL = lunad.RedactURL(r.BaseURL)
	}
	var b strings.Builder
	if err := toml.NewEncoder(&b).Encode(c); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// Never maps a configured timeout of 0 (never: daemon.conn_idle_timeout,
// mcp.session_timeout) to the servers' "never", a negative duration.
func Never(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}
