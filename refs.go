package lunad

// RefState is the state of a reference between artifacts
// (docs/references.md gives the rules).
type RefState string

const (
	// RefOK: the target is unchanged since the referencing artifact's last
	// edit or acknowledgement.
	RefOK RefState = "ok"
	// RefStale: the target symbol (or quoted code, or explicitly linked
	// artifact) changed since then.
	RefStale RefState = "stale"
	// RefBroken: the target no longer exists.
	RefBroken RefState = "broken"
	// RefAmbiguous: a bare name matches several definitions; qualify it.
	RefAmbiguous RefState = "ambiguous"
	// RefUnverified: a link only a documentation site generator resolves
	// (page.html for page.md, a heading anchor made another way, a
	// directory without a page, a Sphinx label): not broken, not checked.
	RefUnverified RefState = "unverified"
)

// Heading slug rules of a workspace (.luna/config.toml, [refs] slugs).
const (
	// SlugsGitHub: a link's #fragment names a heading by GitHub's anchor;
	// one that matches only ignoring punctuation is unverified.
	SlugsGitHub = "github"
	// SlugsLoose: a #fragment that matches a heading ignoring punctuation
	// and case is as good as GitHub's anchor (sites whose generator makes
	// other anchors).
	SlugsLoose = "loose"
)

// Position is a place in a text: a byte offset, its 0-based line and its
// 0-based column counted in bytes (protocol adapters convert columns).
type Position struct {
	Byte   int `json:"byte"`
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Span is a half-open range of a text.
type Span struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Symbol is a definition in an artifact: a function, method, type,
// constant or Markdown heading. Fingerprint changes when its source does
// (modulo whitespace).
type Symbol struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	Container   string `json:"container,omitempty"`
	Span        Span   `json:"span"`
	Fingerprint string `json:"fingerprint"`
}

// Location is an artifact, optionally narrowed to a symbol or a line.
type Location struct {
	ID        string `json:"id"`
	Path      string `json:"path"`
	Symbol    string `json:"symbol,omitempty"`
	Container string `json:"container,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Line      int    `json:"line,omitempty"` // 1-based, for links to a line
	Span      *Span  `json:"span,omitempty"` // of the symbol, or of the reference in From
}

// Reference is one reference from an artifact, resolved, with its state.
type Reference struct {
	From       Location   `json:"from"` // Span: where the reference is written
	Kind       string     `json:"kind"` // call, import, identifier, code, example, link, include, doc, ref, wiki, snippet, explicit
	Text       string     `json:"text"` // the name, destination or link kind as written
	To         *Location  `json:"to,omitempty"`
	Candidates []Location `json:"candidates,omitempty"` // when ambiguous
	State      RefState   `json:"state"`
	Reason     string     `json:"reason,omitempty"` // what changed or what is missing
	// Baseline is the commit of From's last edit or acknowledgement that
	// the target was compared against.
	Baseline string `json:"baseline,omitempty"`
	// Since is the version of the target that made the reference stale or
	// broken: which commit, who, when.
	Since *Version `json:"since,omitempty"`
}

// Named reports whether symbol names the definition at l: its name, or
// Container.name.
func (l *Location) Named(symbol string) bool {
	return l != nil && l.Symbol != "" && (l.Symbol == symbol || l.Container != "" && l.Container+"."+l.Symbol == symbol)
}

// Covers reports whether an acknowledgement of symbol (AckRequest.Symbol)
// covers reference r: r resolves to that symbol, or is a name (a call,
// identifier, import or code span) written that way.
func (r Reference) Covers(symbol string) bool {
	switch r.Kind {
	case "call", "identifier", "import", "code":
		if r.Text == symbol {
			return true
		}
	}
	return r.To.Named(symbol)
}
