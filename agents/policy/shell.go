package policy

import "strings"

// A shell script (sh -c SCRIPT) is read as far as the policy needs it:
// its simple commands with their words (quotes removed, nothing
// expanded), the files they redirect output to, whether they read a pipe,
// the scripts their command substitutions ($(…), `…`, <(…)) run, and the
// here-documents they read. It is not a shell: words with variables stay
// as written, and whatever it cannot tell it leaves to the sandbox.

type shScript struct {
	cmds    []*shCommand
	tooDeep bool // substitutions nested deeper than maxDepth
}

type shCommand struct {
	words    []string    // assignments and leading reserved words removed
	writes   []string    // the files its output is redirected to
	piped    bool        // its standard input is a pipe
	subs     []*shScript // the scripts its command substitutions run
	heredocs []string    // the here-documents it reads
	// subFirst: its first word is a command substitution (it runs what
	// the substitution prints).
	subFirst bool
}

// The redirections the parser waits for a word of.
const (
	redirNone = iota
	redirWrite
	redirSkip // a file read, an fd (2>&1), a here-string
	redirHeredoc
)

type shParser struct {
	src     string
	i       int
	depth   int
	out     *shScript
	cur     *shCommand
	word    strings.Builder
	inWord  bool
	redir   int
	strip   bool // <<-
	pending []heredoc
}

type heredoc struct {
	cmd    *shCommand
	delim  string
	strip  bool
	quoted bool
}

func parseShell(src string, depth int) *shScript {
	p := &shParser{src: src, depth: depth, out: &shScript{}, cur: &shCommand{}}
	p.run()
	return p.out
}

func (p *shParser) peek(n int) byte {
	if p.i+n < len(p.src) {
		return p.src[p.i+n]
	}
	return 0
}

func (p *shParser) run() {
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			p.endWord()
			p.i++
		case c == '\n':
			p.i++
			p.endCommand(false)
			p.readHeredocs()
		case c == '#' && !p.inWord:
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
		case c == '\\':
			if p.peek(1) != '\n' && p.i+1 < len(p.src) {
				p.add(p.src[p.i+1 : p.i+2])
			}
			p.i += 2
		case c == '\'':
			end := strings.IndexByte(p.src[p.i+1:], '\'')
			if end < 0 {
				end = len(p.src) - p.i - 1
			}
			p.add(p.src[p.i+1 : p.i+1+end])
			p.i += end + 2
		case c == '"':
			p.i++
			p.double()
		case c == '`':
			p.backtick()
		case c == '$':
			p.dollar()
		case c == '<' || c == '>':
			p.redirect()
		case c == '&':
			switch p.peek(1) {
			case '&':
				p.i += 2
				p.endCommand(false)
			case '>':
				p.endWord()
				p.i += 2
				if p.peek(0) == '>' {
					p.i++
				}
				p.redir = redirWrite
			default:
				p.i++
				p.endCommand(false)
			}
		case c == '|':
			switch p.peek(1) {
			case '|':
				p.i += 2
				p.endCommand(false)
			case '&':
				p.i += 2
				p.endCommand(true)
			default:
				p.i++
				p.endCommand(true)
			}
		case c == ';' || c == '(' || c == ')':
			p.i++
			p.endCommand(false)
		default:
			p.add(p.src[p.i : p.i+1])
			p.i++
		}
	}
	p.endCommand(false)
	p.readHeredocs()
}

func (p *shParser) add(s string) {
	p.word.WriteString(s)
	p.inWord = true
}

// double reads a double-quoted string, after its opening quote.
func (p *shParser) double() {
	p.inWord = true
	for p.i < len(p.src) {
		switch c := p.src[p.i]; c {
		case '"':
			p.i++
			return
		case '\\':
			if n := p.peek(1); n == '$' || n == '`' || n == '"' || n == '\\' {
				p.add(string(n))
			} else if n != '\n' && n != 0 {
				p.add(p.src[p.i : p.i+2])
			}
			p.i += 2
		case '`':
			p.backtick()
		case '$':
			p.dollar()
		default:
			p.add(p.src[p.i : p.i+1])
			p.i++
		}
	}
}

// expansions reads the command substitutions of an unquoted
// here-document.
func (p *shParser) expansions() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case '\\':
			p.i += 2
		case '`':
			p.backtick()
		case '$':
			p.dollar()
		default:
			p.i++
		}
	}
}

// dollar reads $(…), $((…)), ${…} or a plain $.
func (p *shParser) dollar() {
	switch {
	case p.peek(1) == '(' && p.peek(2) == '(':
		start := p.i
		p.i++
		p.balanced()
		p.add(p.src[start:min(p.i, len(p.src))])
	case p.peek(1) == '(':
		p.i++
		p.substitution(p.balanced())
	case p.peek(1) == '{':
		end := strings.IndexByte(p.src[p.i:], '}')
		if end < 0 {
			end = len(p.src) - p.i - 1
		}
		p.add(p.src[p.i : p.i+end+1])
		p.i += end + 1
	default:
		p.add("$")
		p.i++
	}
}

// balanced reads from an opening parenthesis to its match, skipping
// quotes, and returns what is between them.
func (p *shParser) balanced() string {
	start := p.i + 1
	depth := 0
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				p.i++
				return p.src[start : p.i-1]
			}
		case '\\':
			p.i++
		case '\'':
			if end := strings.IndexByte(p.src[p.i+1:], '\''); end >= 0 {
				p.i += end + 1
			} else {
				p.i = len(p.src)
			}
		case '"':
			for p.i++; p.i < len(p.src) && p.src[p.i] != '"'; p.i++ {
				if p.src[p.i] == '\\' {
					p.i++
				}
			}
		}
		p.i++
	}
	return p.src[min(start, len(p.src)):]
}

func (p *shParser) backtick() {
	p.i++
	start := p.i
	for p.i < len(p.src) && p.src[p.i] != '`' {
		if p.src[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	inner := p.src[start:min(p.i, len(p.src))]
	p.i++
	p.substitution(strings.ReplaceAll(inner, "\\`", "`"))
}

// substitution records a command substitution of the current word.
func (p *shParser) substitution(inner string) {
	if !p.inWord && len(p.cur.words) == 0 {
		p.cur.subFirst = true
	}
	p.add("$(…)")
	if p.depth >= maxDepth {
		p.out.tooDeep = true
		return
	}
	sub := parseShell(inner, p.depth+1)
	p.out.tooDeep = p.out.tooDeep || sub.tooDeep
	p.cur.subs = append(p.cur.subs, sub)
}

func (p *shParser) redirect() {
	if p.inWord && strings.Trim(p.word.String(), "0123456789") == "" {
		p.word.Reset() // the fd of 2>file
		p.inWord = false
	}
	p.endWord()
	c := p.src[p.i]
	p.i++
	switch n := p.peek(0); {
	case n == '(': // process substitution: a word
		p.substitution(p.balanced())
		return
	case c == '>' && (n == '>' || n == '|'):
		p.i++
		p.redir = redirWrite
	case n == '&':
		p.i++
		p.redir = redirSkip
	case c == '>':
		p.redir = redirWrite
	case n == '<' && p.peek(1) == '<':
		p.i += 2
		p.redir = redirSkip
	case n == '<':
		p.i++
		p.redir, p.strip = redirHeredoc, p.peek(0) == '-'
		if p.strip {
			p.i++
		}
	default: // <, <>
		if n == '>' {
			p.i++
		}
		p.redir = redirSkip
	}
}

func (p *shParser) endWord() {
	if !p.inWord {
		return
	}
	w := p.word.String()
	p.word.Reset()
	p.inWord = false
	switch p.redir {
	case redirWrite:
		p.cur.writes = append(p.cur.writes, w)
	case redirHeredoc:
		end := min(p.i, len(p.src)) // past the end after an unterminated quote
		quoted := strings.ContainsAny(p.src[max(end-len(w)-2, 0):end], `'"\`)
		p.pending = append(p.pending, heredoc{cmd: p.cur, delim: w, strip: p.strip, quoted: quoted})
	case redirNone:
		p.cur.words = append(p.cur.words, w)
	}
	p.redir = redirNone
}

// reserved are the shell's words that may start a command before the
// program.
var reserved = []string{"!", "if", "then", "else", "elif", "fi", "do", "done", "while", "until",
	"for", "case", "esac", "in", "select", "function", "{", "}", "time", "coproc"}

func (p *shParser) endCommand(pipeNext bool) {
	p.endWord()
	c := p.cur
	for len(c.words) > 0 && (contains(reserved, c.words[0]) || isAssignment(c.words[0])) {
		c.words = c.words[1:]
	}
	if len(c.words) > 0 || len(c.writes) > 0 || len(c.subs) > 0 || len(p.pending) > 0 {
		p.out.cmds = append(p.out.cmds, c)
	}
	p.cur = &shCommand{piped: pipeNext}
}

// readHeredocs skips the here-documents started on the line just ended,
// keeping their text with the commands that read them (and the scripts
// of the substitutions in the unquoted ones, which the shell runs).
func (p *shParser) readHeredocs() {
	for _, h := range p.pending {
		var body strings.Builder
		for p.i < len(p.src) {
			end := strings.IndexByte(p.src[p.i:], '\n')
			if end < 0 {
				end = len(p.src) - p.i
			}
			line := p.src[p.i : p.i+end]
			p.i = min(p.i+end+1, len(p.src))
			if h.strip {
				line = strings.TrimLeft(line, "\t")
			}
			if line == h.delim {
				break
			}
			body.WriteString(line)
			body.WriteByte('\n')
		}
		h.cmd.heredocs = append(h.cmd.heredocs, body.String())
		if !h.quoted {
			q := &shParser{src: body.String(), depth: p.depth, out: p.out, cur: h.cmd, inWord: true}
			q.expansions()
		}
	}
	p.pending = nil
}
