// Package treesitter extracts symbols (definitions) and references from
// lunad's text artifacts with tree-sitter. It is the only cgo package of
// lunad and imports no sibling package; nothing of tree-sitter leaks into its
// API: results are plain Go values (File, Symbol, Reference, Span).
//
// # Languages
//
// Go, Python, JavaScript, TypeScript, Rust, Java, C and Markdown have a
// grammar; any other artifact type is plain text (parsed to an empty File).
// LanguageFor maps an artifact type ("code/go", "text/markdown") or a file
// extension to a language.
//
// # Queries
//
// What counts as a definition or a reference is data: one query file per
// language in queries/<lang>.scm, written for lunad and embedded. A pattern
// tags its whole node with @definition.<kind> (function, method, type,
// constant) or @reference.<kind> (call, import, identifier) and the name
// with @name; an optional @container names the owner of a method (a Go
// receiver type, a Rust impl type). Without @container the container is the
// innermost enclosing definition. Identifier references that coincide with a
// definition's name are dropped, and a node tagged twice keeps its most
// specific kind (method over function; call/import over identifier).
//
// Markdown is walked in code (markdown.go), not queried: headings are
// definitions (kind "heading", span = the whole section it opens); inline code
// spans that name a symbol (`parse_config`, `Parser.Parse()`, normalised by
// spans.go: `~G.f`, `f(a, b)`, `T<U>`, `fn f(..) -> T`) are references of
// kind "code", with a Role (command, flag, parameter) read from their shape
// and the words around them, and resolved by the prose rules of prose.go
// (visible definitions only, no test or vendored files, roles); relative link destinations (a path,
// `file#symbol`, `file#L10`, `#anchor`, also from link reference definitions)
// are kind "link" with Target set; [[wiki]] links (kind "wiki") are found by
// a small scan over the inline text, because the inline grammar has no node
// for them. The inline grammar runs only on inline spans that contain a '`'
// or "](" (measured: block+inline on every span is far too slow), and only
// on those a scan cannot read as the grammar would (plainInline: spans
// with HTML, escapes, LaTeX, backtick runs of two lengths, link titles or
// reference links; most paragraphs of documentation have none).
//
// Commands and flags of command-line programs (cobra, urfave/cli, click,
// typer, argparse, clap's derive and builder APIs, structopt, commander,
// yargs) are definitions of kind "command" and "flag", found by a scan of
// the text (clidefs.go); Go
// interface methods, Python class attributes and enum members, and
// TypeScript interface and object-type members are definitions too (kinds
// "method" and "field"). Symbol.Hidden marks what a bare name in prose does
// not reach (visibility.go).
//
// Reference kinds in code: "call" (the called name, also method calls and
// Rust macros), "import" (the imported module/path and, for from-imports,
// the imported names; quotes stripped; Target: the module a Python
// from-imported name comes from, or a Rust pub use re-exports from), "identifier" (type names used in Go,
// TypeScript, Rust, Java and C; names passed as arguments in Python,
// JavaScript and TypeScript; Python decorators). Markdown limits: a setext
// heading's span is the heading alone (the grammar opens no section for it);
// reference-style links ([text][label]) are reported at their definition
// ("[label]: dest"), not at each use. A fenced code block is one reference
// of kind "snippet" (Name: its info-string language, Span: its content),
// checked by the daemon as a quote of another artifact; nothing inside it is
// a reference — except, in a language lunad parses, the names the code
// uses (kind "example", Target: the language; fences.go). The markup of
// documentation sites is read too (roles.go, fences.go): MyST roles
// ({func}`x`, {doc}, {ref}) and directive fences, mkdocstrings "::: name"
// lines, mdBook {{#include}} (kind "include"); footnotes are not links.
// reStructuredText has no grammar: rst.go scans titles, roles, links and
// includes. In Go, pkg.Func() and pkg.Type are recorded qualified
// ("pkg.Func"), so that the graph can resolve them by package.
//
// # Graph
//
// Graph (graph.go, resolve.go) resolves the references of every artifact
// of a workspace against the definitions of the others; its doc gives the
// rules. Prose follows stricter ones (prose.go), and reaches through
// Python packages' and Rust crates' re-exports (reexports.go) and through
// variables a document's examples construct (instances.go: a Markdown code
// span `http.get` has Target "Client.get" after http = Client()). sitelinks.go adds the rules of documentation sites: a directory
// is its README, page.html its page.md, GitHub's user-content- and
// numbered anchors; what only a site generator resolves is Unverified. It holds name indexes only, so updating one artifact costs one file.
//
// # Fingerprints
//
// Each definition has a fingerprint: the first 16 hex digits of the SHA-256
// of its source span with every whitespace run collapsed to one space and
// leading/trailing whitespace dropped. Comments are kept, including the
// block of comment, attribute or decorator lines directly above the
// definition (a changed doc comment is a changed definition). So editing a function's body changes its
// fingerprint, editing another function does not, re-indenting does not. A
// definition containing others (a class, a Markdown section) changes when any
// of them changes. Whitespace inside string literals is collapsed too.
//
// # Positions
//
// All positions are computed from byte offsets by Lines (positions.go),
// never taken from tree-sitter points: Line is 0-based, Column counts bytes;
// Lines also converts to and from LSP's UTF-16 columns.
//
// # Incremental parsing
//
// Doc keeps the tree of an open artifact; Update derives one edit from the
// common prefix and suffix, applies it with Tree.Edit and re-parses
// incrementally. Query results are cached per top-level node (chunks.go), so
// only changed top-level nodes are queried again; for Markdown the block
// tree is walked in full with a tree cursor (mdwalk.go: a query cursor was
// superlinear on large trees) but the inline grammar runs only on inline
// spans whose text is new, in pieces of at most 4 KiB. Indexing is linear in
// the file's size; a Parser gives up on a file after its budget
// (DefaultBudget) and Skips it with the reason.
//
// # Bad input and resources
//
// Syntax errors yield whatever tree-sitter recovers. Content over MaxFileSize
// bytes, content that is not valid UTF-8 or contains a NUL byte is not parsed:
// File.Skipped says why. The Markdown grammar is given a guarded copy of
// the content, byte for byte the same length, where what would crash its C
// scanner cannot reach it: characters above U+00FF after a digit
// (guardDigits), and block quotes and list items nested past MaxNesting
// (guardNesting: the markers past it are read as text, and File.Partial
// says where). A Parser is NOT safe for concurrent use: use one per
// goroutine (e.g. one per indexing worker). Parser.Close and Doc.Close free
// the C memory at once (finalizers would too, later).
//
// Spans are computed with internal/textpos, the same position arithmetic the
// language server maps with.
package treesitter
