package treesitter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
)

// MaxFileSize is the size cap: larger content is Skipped, not parsed.
const MaxFileSize = 2 << 20 // 2 MiB

// DefaultBudget is how long a Parser may spend on one file (parsing and
// extracting) before it gives up and the file is Skipped with the reason:
// indexing is linear in the file's size, but a grammar can still be slow on
// odd content (2 MB of "`\n" lines take ~3 s), and one file must not stall
// every client of the daemon. SetBudget changes it.
const DefaultBudget = 10 * time.Second

// errBudget: the file's budget ran out.
var errBudget = errors.New("treesitter: parse budget exhausted")

// Symbol is a definition. Kind is function, method, type, constant or
// heading. Container is the owning type/class/section name, if any.
type Symbol struct {
	Name, Kind  string
	Span        Span
	Container   string
	Fingerprint string
	// Hidden is set on a definition a bare name in prose does not reach:
	// unexported or private (Go lower case, a leading _ or #, Rust without
	// pub at the top level) or local to a function (a type declared in a
	// function body). Qualified names, links and code still reach it.
	Hidden bool `json:",omitempty"`
}

// Reference is a use of a name. Kind is call, import, identifier (code) or
// code, link, wiki, snippet (Markdown). Target is set for links: the destination as
// written ("config.py#parse_config", "#usage", "[[Title]]" -> "Title").
type Reference struct {
	Name, Kind string
	Span       Span
	Target     string
	// Role is what the text around a Markdown code span says the name is:
	// RoleCommand ("the `x` command", `tool sub`), RoleFlag (`--x`),
	// RoleParameter ("the `x` argument", `x=`, an entry of a Parameters
	// list), or "" when it says nothing.
	Role string `json:",omitempty"`
}

// Text is the reference as its text names what it points at: the
// destination as written of a link, [[wiki]] link, include, doc or ref
// (Target); otherwise the name. The Target of other kinds is not what the
// text says: an example's language, the module an import comes from, the
// type a code span names a member of through a variable.
func (r Reference) Text() string {
	switch r.Kind {
	case "link", "wiki", "include", "doc", "ref":
		if r.Target != "" {
			return r.Target
		}
	}
	return r.Name
}

// Roles of a Markdown code span (Reference.Role).
const (
	RoleCommand   = "command"
	RoleFlag      = "flag"
	RoleParameter = "parameter"
	// RoleVariable: "the `x` variable / placeholder", "variables `x`", an
	// entry of a list a "... placeholders are:" line introduces — a value,
	// never a function.
	RoleVariable = "variable"
	// RoleModule: "the `x` module / crate / package / library" — not a
	// definition lunad indexes.
	RoleModule = "module"
	// RoleSetting: "the `x` setting / config / configuration option" — a
	// field of a configuration type.
	RoleSetting = "setting"
)

// File is what Parse extracts from one artifact. Skipped is non-empty (and
// the lists empty) when the content was not parsed.
type File struct {
	Language   string
	Symbols    []Symbol
	References []Reference
	Skipped    string
	// Partial is non-empty when part of the content was indexed as plain
	// text, and says which part and why (Markdown nested past MaxNesting).
	Partial string
	// Anchors are the HTML anchors of a Markdown file, each once:
	// the ids of <a name="x">, <a id="x"> and any element's id="x", which
	// link fragments name as they name headings.
	Anchors []string `json:",omitempty"`
	// ShortFlags are the one-letter flags of a code file defined next to
	// a long flag: "-n" reaches the flag definition "name".
	ShortFlags []ShortFlag `json:",omitempty"`
}

// ErrClosed is returned after Close.
var ErrClosed = errors.New("treesitter: parser closed")

// Parser parses artifacts. It keeps one tree-sitter parser per language and
// one query cursor. It is not safe for concurrent use; use one per goroutine.
type Parser struct {
	parsers  map[*grammar]*sitter.Parser
	cursor   *sitter.QueryCursor
	closed   bool
	budget   time.Duration
	deadline time.Time // of the file being parsed
}

// NewParser returns a Parser; Close it to free its C memory.
func NewParser() *Parser {
	return &Parser{parsers: map[*grammar]*sitter.Parser{}, budget: DefaultBudget}
}

// SetBudget sets how long the parser may spend on one file (see
// DefaultBudget).
func (p *Parser) SetBudget(d time.Duration) { p.budget = d }

// start begins the budget of one file.
func (p *Parser) start() { p.deadline = time.Now().Add(p.budget) }

// overBudget reports whether the file's budget ran out.
func (p *Parser) overBudget() bool { return time.Now().After(p.deadline) }

// budgetNote is File.Skipped for a file whose budget ran out.
func (p *Parser) budgetNote(size int) string {
	return fmt.Sprintf("indexing took longer than %v (%d bytes); split the file to have it indexed", p.budget, size)
}

// Close frees the C memory of the parser. Docs opened from it must be
// closed first (or not used again).
func (p *Parser) Close() {
	if p.closed {
		return
	}
	p.closed = true
	for _, sp := range p.parsers {
		sp.Close()
	}
	p.parsers = nil
	if p.cursor != nil {
		p.cursor.Close()
	}
}

func (p *Parser) tsParser(g *grammar) (*sitter.Parser, error) {
	if p.closed {
		return nil, ErrClosed
	}
	if err := g.load(); err != nil {
		return nil, err
	}
	sp := p.parsers[g]
	if sp == nil {
		sp = sitter.NewParser()
		sp.SetLanguage(g.ts)
		p.parsers[g] = sp
	}
	return sp, nil
}

func (p *Parser) queryCursor() *sitter.QueryCursor {
	if p.cursor == nil {
		p.cursor = sitter.NewQueryCursor()
	}
	return p.cursor
}

// skipReason says why content is not parsed, or "".
func skipReason(content []byte) string {
	switch {
	case len(content) > MaxFileSize:
		return fmt.Sprintf("too large: %d bytes > %d", len(content), MaxFileSize)
	case bytes.IndexByte(content, 0) >= 0:
		return "binary: contains NUL bytes"
	case !utf8.Valid(content):
		return "binary: not valid UTF-8"
	}
	return ""
}

// Parse extracts the symbols and references of content, an artifact of
// type typ (see LanguageFor). Errors are only internal ones (closed parser,
// a broken query); bad content gives a File with Skipped set.
func (p *Parser) Parse(typ string, content []byte) (*File, error) {
	lang := LanguageFor(typ)
	if p.closed {
		return nil, ErrClosed
	}
	if r := skipReason(content); r != "" {
		return &File{Language: lang, Skipped: r}, nil
	}
	g := grammars[lang]
	if g == nil {
		return p.parseScanned(lang, content)
	}
	p.start()
	tree, partial, err := p.parseTree(g, nil, content)
	if errors.Is(err, errBudget) {
		return &File{Language: lang, Skipped: p.budgetNote(len(content))}, nil
	}
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	f, err := p.extract(g, tree, content)
	if errors.Is(err, errBudget) {
		return &File{Language: lang, Skipped: p.budgetNote(len(content))}, nil
	}
	if f != nil {
		f.Partial = partial
	}
	return f, err
}

// parseTree parses content; for Markdown it gives the grammar a guarded
// copy (guardDigits, guardNesting) and says what was read as text.
func (p *Parser) parseTree(g *grammar, old *sitter.Tree, content []byte) (tree *sitter.Tree, partial string, err error) {
	sp, err := p.tsParser(g)
	if err != nil {
		return nil, "", err
	}
	if g.name == LangMarkdown {
		var lines []int
		content, lines = guardNesting(guardDigits(content))
		partial = nestingNote(lines)
	}
	left := time.Until(p.deadline)
	if left <= 0 {
		return nil, "", errBudget
	}
	sp.SetOperationLimit(int(max(left.Microseconds(), 1)))
	tree, err = sp.ParseCtx(context.Background(), old, content)
	if errors.Is(err, sitter.ErrOperationLimit) {
		sp.Reset() // else the next parse would resume this one
		return nil, "", errBudget
	}
	if err != nil {
		return nil, "", fmt.Errorf("treesitter: parse %s: %w", g.name, err)
	}
	return tree, partial, nil
}

func (p *Parser) extract(g *grammar, tree *sitter.Tree, content []byte) (*File, error) {
	lines := NewLines(content)
	if g.name == LangMarkdown {
		f, _, err := p.extractMarkdown(tree.RootNode(), content, lines, nil)
		return f, err
	}
	f := extractQuery(g, p.queryCursor(), tree.RootNode(), content, lines)
	return f, nil
}

// guardDigits works around a crash in the Markdown block grammar's scanner
// (tree-sitter-markdown scanner.c, parse_ordered_list_marker): after a
// digit where a block can start it calls isdigit() on the next code point,
// an out-of-bounds table read for code points above 255 that crashes the
// process (found by FuzzParse: "0" followed by U+E3E80). A character above
// U+00FF right after an ASCII digit can never continue a list marker, so
// the grammar is given a copy where such characters are replaced by as many
// 'x' bytes: every offset stays the same, and names and text are still read
// from the original content.
func guardDigits(src []byte) []byte {
	var out []byte
	for i := 0; i+1 < len(src); i++ {
		if src[i] < '0' || src[i] > '9' || src[i+1] < 0xC4 {
			continue
		}
		if out == nil {
			out = append([]byte(nil), src...)
		}
		_, n := utf8.DecodeRune(src[i+1:])
		for j := i + 1; j < i+1+n; j++ {
			out[j] = 'x'
		}
	}
	if out == nil {
		return src
	}
	return out
}

// parseScanned parses content of a language without a grammar: a
// reStructuredText file by its scanner (and its code blocks by their
// grammar), anything else to an empty File.
func (p *Parser) parseScanned(lang string, content []byte) (*File, error) {
	if lang == LangText && bytes.Contains(content, []byte(".scripts]")) { // a pyproject.toml's programs
		col := newCollector()
		scriptCommands(content, col.addDef)
		return col.finish(&File{Language: lang}, content, NewLines(content)), nil
	}
	if lang != LangRST {
		return &File{Language: lang}, nil
	}
	p.start()
	f, err := p.parseRST(content, NewLines(content))
	if errors.Is(err, errBudget) {
		return &File{Language: lang, Skipped: p.budgetNote(len(content))}, nil
	}
	return f, err
}
