package treesitter

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"path"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	mdblock "github.com/smacker/go-tree-sitter/markdown/tree-sitter-markdown"
	mdinline "github.com/smacker/go-tree-sitter/markdown/tree-sitter-markdown-inline"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// Language names as reported in File.Language.
const (
	LangGo         = "go"
	LangPython     = "python"
	LangJavaScript = "javascript"
	LangTypeScript = "typescript"
	LangRust       = "rust"
	LangJava       = "java"
	LangC          = "c"
	LangMarkdown   = "markdown"
	LangText       = "text" // plain-text fallback: no symbols, no references
)

//go:embed queries/*.scm
var queryFS embed.FS

// grammar is one tree-sitter language with its compiled lunad query.
type grammar struct {
	name string
	lang func() *sitter.Language

	once  sync.Once
	ts    *sitter.Language
	query *sitter.Query // compiled once, shared read-only; cursors are per call
	// captures names each capture id of query, and filtered says which
	// patterns have predicates (#match?): read once, not per match through
	// cgo (a capture's name is a C call and a fresh string).
	captures []string
	filtered []bool
	err      error
}

func (g *grammar) load() error {
	g.once.Do(func() {
		g.ts = g.lang()
		src, err := queryFS.ReadFile("queries/" + g.name + ".scm")
		if err != nil {
			g.err = err
			return
		}
		q, err := sitter.NewQuery(src, g.ts)
		if err != nil {
			g.err = fmt.Errorf("treesitter: query %s.scm: %w", g.name, err)
			return
		}
		g.query = q
		g.captures = make([]string, q.CaptureCount())
		for i := range g.captures {
			g.captures[i] = q.CaptureNameForId(uint32(i))
		}
		g.filtered = make([]bool, q.PatternCount())
		for i := range g.filtered {
			g.filtered[i] = len(q.PredicatesForPattern(uint32(i))) > 0
		}
	})
	return g.err
}

var grammars = map[string]*grammar{
	LangGo:         {name: LangGo, lang: golang.GetLanguage},
	LangPython:     {name: LangPython, lang: python.GetLanguage},
	LangJavaScript: {name: LangJavaScript, lang: javascript.GetLanguage},
	LangTypeScript: {name: LangTypeScript, lang: typescript.GetLanguage},
	LangRust:       {name: LangRust, lang: rust.GetLanguage},
	LangJava:       {name: LangJava, lang: java.GetLanguage},
	LangC:          {name: LangC, lang: c.GetLanguage},
	LangMarkdown:   {name: LangMarkdown, lang: mdblock.GetLanguage},
}

// markdownInline is the inline grammar, run only on the inline spans of the
// block tree that contain a character that can start a code span or link.
var markdownInline = &grammar{name: "markdown_inline", lang: mdinline.GetLanguage}

var typeLanguages = map[string]string{
	"code/go":         LangGo,
	"code/python":     LangPython,
	"code/javascript": LangJavaScript,
	"code/typescript": LangTypeScript,
	"code/rust":       LangRust,
	"code/java":       LangJava,
	"code/c":          LangC,
	"text/markdown":   LangMarkdown,
	"text/mdx":        LangMarkdown,
	"text/x-rst":      LangRST,
}

var extLanguages = map[string]string{
	".go": LangGo, ".py": LangPython, ".pyi": LangPython,
	".js": LangJavaScript, ".mjs": LangJavaScript, ".cjs": LangJavaScript, ".jsx": LangJavaScript,
	".ts": LangTypeScript, ".mts": LangTypeScript, ".cts": LangTypeScript,
	".rs": LangRust, ".java": LangJava, ".c": LangC, ".h": LangC,
	".md": LangMarkdown, ".markdown": LangMarkdown, ".mdx": LangMarkdown,
	".rst": LangRST,
}

// LanguageFor maps an artifact type ("code/go", "text/markdown", ...) or,
// failing that, a file name or extension (".py", "main.go") to a language
// name. Anything unknown is LangText.
func LanguageFor(typOrName string) string {
	if l, ok := typeLanguages[strings.ToLower(typOrName)]; ok {
		return l
	}
	ext := strings.ToLower(path.Ext(typOrName))
	if ext == "" && strings.HasPrefix(typOrName, ".") {
		ext = strings.ToLower(typOrName)
	}
	if l, ok := extLanguages[ext]; ok {
		return l
	}
	return LangText
}

// IsProse reports whether lang is a language of documents rather than
// code (Markdown, reStructuredText, plain text): its names may refer to
// code in any language.
func IsProse(lang string) bool { return lang == LangMarkdown || lang == LangRST || lang == LangText }

// Languages lists the languages with a grammar (LangText excluded).
func Languages() []string {
	return []string{LangGo, LangPython, LangJavaScript, LangTypeScript, LangRust, LangJava, LangC, LangMarkdown}
}

// extractorVersion changes whenever the Go code that turns captures into
// Files changes what it produces, or the rules Graph resolves references
// by change what they resolve to; Schema folds it in with the queries.
const extractorVersion = "8"

var schema = sync.OnceValue(func() string {
	h := sha256.New()
	h.Write([]byte(extractorVersion))
	entries, _ := queryFS.ReadDir("queries")
	for _, e := range entries {
		b, _ := queryFS.ReadFile("queries/" + e.Name())
		fmt.Fprintf(h, "\x00%s\x00%d\x00", e.Name(), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
})

// Schema identifies what Parse produces and how a Graph resolves it: it
// changes when a query file, the extraction code or the resolution rules
// change, so caches of parsed Files keyed by content, and anything saved
// from resolutions, are discarded when it differs.
func Schema() string { return schema() }
