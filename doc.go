// Package lunad holds the vocabulary shared by lunad's packages: artifacts,
// their versions and links and references; the Workspace interface every
// adapter and agent uses, composed of small interfaces (workspace.go); the
// runs, asks and goals as their events and results record them (run.go,
// ask.go, goal.go); the sentinel errors and the typed errors that carry a
// failure's facts, which each adapter words its own way (Reword); and
// Checkout, a checkout and where git keeps its state (a linked worktree's
// own git dir, the repository's common dir), as internal/gitdir finds it.
//
// It is vocabulary only: types, errors, and pure functions and methods of
// them. What acts on them lives in the package that owns the act — a run as
// people follow it in runs/follow, writing a file in one step in
// internal/atomicfile, finding a directory's checkout in internal/gitdir.
// It imports no sibling package; the store, the service, the daemon and the
// adapters all speak these types.
//
// The files, one concern each: write.go, the vocabulary of writes (Change,
// CreateSpec, Result) and one request struct per write operation, each with
// its Change embedded (RefRequest for undo, redo, archive and remove; RestoreRequest,
// MoveRequest, LinkRequest, AckRequest, BranchRequest); workspace.go, the
// Workspace interface (Reader, Writer, Brancher, Referencer, Subscriber and
// io.Closer) with EditRequest, EditResult, Block, Match, Event, Point,
// SymbolHit and RefReport; errors.go, the sentinel errors; errortypes.go, the
// typed errors (NotFoundError, KeyReusedError, LinkExistsError) and Reword,
// with which each adapter words them — the CLI names a command, MCP a tool;
// problems.go, Problem and CheckError, the file:line:col problems of a file
// lunad reads (a workflow, the policy); size.go, ParseSize, FormatSize and
// ByteSize, sizes written with binary units as the policy's limits,
// daemon.memory_limit and llm.max_response take them; redact.go, RedactURL and
// URLSecrets, a URL as a message, log or snapshot may show it (no user
// information, no query values but api-version); checkout.go, Checkout.
package lunad
