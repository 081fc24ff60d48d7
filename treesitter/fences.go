package treesitter

import (
	"bytes"
	"hash/maphash"
	"strings"
)

// fenceLanguages maps the language word of a fenced block's info string
// to the grammar that parses its content as an example.
var fenceLanguages = map[string]string{
	"go": LangGo, "golang": LangGo,
	"python": LangPython, "py": LangPython, "python3": LangPython, "py3": LangPython,
	"javascript": LangJavaScript, "js": LangJavaScript, "jsx": LangJavaScript, "mjs": LangJavaScript, "cjs": LangJavaScript,
	"typescript": LangTypeScript, "ts": LangTypeScript, "tsx": LangTypeScript,
	"rust": LangRust, "rs": LangRust,
	"java": LangJava,
	"c":    LangC, "h": LangC,
}

// fence is what a fenced block's info string says about its content.
type fence struct {
	lang      string // the language word ("rust" in "rust,ignore", "python" in "{code-block} python")
	example   string // the grammar of the content when it is code lunad parses, else ""
	directive string // a MyST directive ("contents" in "{contents}"), else ""
	arg       string // the directive's argument ("python", a path)
	snippet   bool   // the content is a quote of code, checked for drift
}

// codeDirectives are MyST directives whose content is code in the
// language their argument names.
var codeDirectives = map[string]bool{"code-block": true, "code": true, "sourcecode": true, "code-cell": true}

// plainDirectives are MyST directives whose content is neither Markdown
// nor code lunad reads (math, diagrams, raw output, tables of data).
var plainDirectives = map[string]bool{"raw": true, "math": true, "mermaid": true, "graphviz": true, "csv-table": true,
	"literalinclude": true, "include": true, "image": true, "contents": true, "code-block": true, "code": true,
	"sourcecode": true, "code-cell": true, "toctree": true, "eval-rst": true, "automodule": true}

// readFence reads an info string: "python", "rust,ignore", "{code-block}
// python", "{note}", "{literalinclude} ../src/x.py".
func readFence(info string) fence {
	info = strings.TrimSpace(info)
	word, rest, _ := strings.Cut(info, " ")
	if strings.HasPrefix(word, "{") && strings.HasSuffix(word, "}") && len(word) > 2 {
		f := fence{directive: word[1 : len(word)-1], arg: strings.TrimSpace(rest)}
		if codeDirectives[f.directive] {
			f.lang, _, _ = strings.Cut(f.arg, " ")
			f.snippet = true
		}
		f.example = fenceLanguages[strings.ToLower(f.lang)]
		return f
	}
	word, _, _ = strings.Cut(word, ",") // mdBook: rust,ignore
	word = strings.Trim(word, "{}.")    // pandoc: {.python}
	return fence{lang: word, example: fenceLanguages[strings.ToLower(word)], snippet: true}
}

// fenceBlock is a fenced code block found by the block walk.
type fenceBlock struct {
	info       string
	start, end int // of the content
}

// fenceRefs returns the references of one fenced block, with offsets
// relative to its content: mdBook includes; for a MyST directive, the
// references of its Markdown content ({note}), its document list
// ({toctree}) or its file ({literalinclude}); for code in a language with
// a grammar, the names it uses (kind "example", Target: the language).
// The block itself (kind "snippet") is added by the caller when
// readFence says it is a quote.
func (p *Parser) fenceRefs(f fence, content []byte) ([]ref, error) {
	out := scanIncludes(content)
	switch {
	case f.directive == "literalinclude" || f.directive == "include":
		return out, nil // the argument is on the fence line: see addFence
	case f.directive == "toctree":
		return append(out, toctreeRefs(content)...), nil
	case f.directive == "eval-rst":
		return append(out, rstRefs(content)...), nil
	case f.directive != "" && !plainDirectives[f.directive]:
		refs, err := p.inlineRefs(content)
		return append(out, refs...), err
	case f.example != "" && len(out) == 0:
		refs, err := p.exampleRefs(f.example, content)
		return append(out, refs...), err
	}
	return out, nil
}

// exampleRefs parses code in language lang and returns the names it calls
// or uses (call and identifier references), as references of kind
// "example" whose Target is the language, minus the names the example
// defines itself.
func (p *Parser) exampleRefs(lang string, code []byte) ([]ref, error) {
	g := grammars[lang]
	tree, _, err := p.parseTree(g, nil, code)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	defined := map[string]bool{}
	byNode := map[[2]int]*ref{}
	queryItems(g, p.queryCursor(), tree.RootNode(), code, func(d *def) { defined[d.Name] = true }, func(r *ref) {
		if r.Kind != "call" && r.Kind != "identifier" {
			return
		}
		key := [2]int{r.start, r.end}
		if old := byNode[key]; old == nil || better(r, old) {
			byNode[key] = r
		}
	})
	out := make([]ref, 0, len(byNode))
	for _, r := range byNode {
		if defined[lastName(r.Name)] {
			continue
		}
		r.Kind, r.Target = "example", lang
		out = append(out, *r)
	}
	return out, nil
}

// lastName is the last part of a qualified name.
func lastName(name string) string {
	parts := splitQualified(name)
	return parts[len(parts)-1]
}

// toctreeRefs reads the entries of a {toctree} directive: one document
// per line ("intro", "Title <api/index>"), options (":maxdepth: 2") and
// globs skipped. They are references of kind "doc".
func toctreeRefs(content []byte) []ref {
	var out []ref
	off := 0
	for _, line := range bytes.SplitAfter(content, []byte("\n")) {
		start := off
		off += len(line)
		text := string(bytes.TrimSpace(line))
		if text == "" || strings.HasPrefix(text, ":") || strings.ContainsAny(text, "*?") || text == "self" {
			continue
		}
		if r, ok := roleRef("doc", text); ok {
			lead := len(line) - len(bytes.TrimLeft(line, " \t"))
			out = append(out, ref{Reference: r, start: start + lead, end: start + lead + len(text)})
		}
	}
	return out
}

// addFence adds the references of one fenced block to col: the quoted
// snippet, a directive's argument (directiveArgRef), and fenceRefs (cached by the
// block's info string and content, like inline spans).
func (p *Parser) addFence(col *collector, src []byte, b fenceBlock, lang string, cache, next map[uint64][]ref) error {
	f := readFence(b.info)
	content := src[b.start:b.end]
	if f.snippet && len(content) > 0 && !bytes.Contains(content, []byte("{{#")) {
		name := lang
		if f.directive != "" {
			name = f.lang
		}
		if name == "" {
			name = "code"
		}
		col.addRef(&ref{Reference: Reference{Kind: "snippet", Name: name}, start: b.start, end: b.end})
	}
	if r, ok := directiveArgRef(f.directive, f.arg); ok {
		// the fence line: the argument is written there
		ls := bytes.LastIndexByte(src[:max(b.start-1, 0)], '\n') + 1
		if i := bytes.Index(src[ls:b.start], []byte(f.arg)); i >= 0 {
			col.addRef(&ref{Reference: r, start: ls + i, end: ls + i + len(f.arg)})
		}
	}
	h := maphash.Hash{}
	h.SetSeed(chunkSeed)
	h.WriteString("fence\x00")
	h.WriteString(b.info)
	h.WriteByte(0)
	h.Write(content)
	key := h.Sum64()
	refs, ok := cache[key]
	if !ok {
		refs, ok = next[key]
	}
	if !ok {
		var err error
		if refs, err = p.fenceRefs(f, content); err != nil {
			return err
		}
	}
	next[key] = refs
	for _, r := range refs {
		r.start, r.end = r.start+b.start, r.end+b.start
		col.addRef(&r)
	}
	return nil
}

// directiveArgRef is the reference a directive's argument makes: the file
// of {literalinclude} and {include} (kind "include"), the documented
// object of Sphinx's autodoc directives ({autofunction} httpx.get,
// {automodule}, ...) and of the Python domain's ({py:function}
// get(url), ...), kind "code". ok is false for any other directive.
func directiveArgRef(directive, arg string) (Reference, bool) {
	switch {
	case directive == "literalinclude" || directive == "include":
		return includeRef(arg)
	case autodocDirectives[strings.TrimPrefix(directive, "py:")] && (strings.HasPrefix(directive, "auto") || strings.HasPrefix(directive, "py:")):
		name, _, _ := strings.Cut(arg, "(")
		name = strings.TrimSpace(name)
		if !symbolLike().MatchString(name) {
			return Reference{}, false
		}
		return Reference{Name: name, Kind: "code"}, true
	}
	return Reference{}, false
}

// autodocDirectives are the directives that document a named object:
// autodoc's (autofunction) and the Python domain's (py:function).
var autodocDirectives = map[string]bool{}

func init() {
	for _, k := range []string{"function", "class", "method", "module", "attribute", "exception", "data", "property", "decorator"} {
		autodocDirectives["auto"+k], autodocDirectives[k] = true, true
	}
}
