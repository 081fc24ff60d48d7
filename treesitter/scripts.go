package treesitter

import (
	"bytes"
	"unicode"
)

// scriptTables are the TOML tables naming the programs a Python project
// installs: each key is a program ("dotenv = \"dotenv.__main__:cli\""
// installs dotenv).
var scriptTables = [][]byte{[]byte("[project.scripts]"), []byte("[tool.poetry.scripts]")}

// scriptCommands reports, for a text file holding a pyproject.toml
// scripts table, each program it installs as a definition of kind
// "command": the name a command line starts with ("dotenv run"), which
// makes it this workspace's tool (Graph.isTool). It is Hidden: a bare
// name in prose ("`uvicorn[standard]`", the package) does not bind to
// it. A TOML file is text to
// the parser, which is not told its name: the table's header is what
// says it is one.
func scriptCommands(src []byte, add func(*def)) {
	for _, h := range scriptTables {
		i := bytes.Index(src, h)
		if i < 0 || i > 0 && src[i-1] != '\n' {
			continue
		}
		off := i + len(h)
		for off < len(src) {
			end := bytes.IndexByte(src[off:], '\n')
			if end < 0 {
				end = len(src)
			} else {
				end += off
			}
			line := src[off:end]
			trimmed := bytes.TrimLeft(line, " \t")
			if bytes.HasPrefix(trimmed, []byte("[")) {
				break
			}
			if s, e, ok := scriptKey(trimmed); ok {
				base := off + len(line) - len(trimmed)
				add(&def{Symbol: Symbol{Name: string(trimmed[s:e]), Kind: "command", Hidden: true}, start: base + s, end: base + e, nameStart: base + s, nameEnd: base + e})
			}
			off = end + 1
		}
	}
}

// scriptKey is the key of a TOML line `name = ...` or `"name" = ...`: a
// program name (a letter, then letters, digits, '-', '_' or '.').
func scriptKey(line []byte) (start, end int, ok bool) {
	s := 0
	if len(line) > 0 && line[0] == '"' {
		s = 1
	}
	e := s
	for e < len(line) && (unicode.IsLetter(rune(line[e])) || unicode.IsDigit(rune(line[e])) || bytes.IndexByte([]byte("-_."), line[e]) >= 0) {
		e++
	}
	if e == s || !unicode.IsLetter(rune(line[s])) || line[s] >= 0x80 {
		return 0, 0, false
	}
	rest := line[e:]
	if s == 1 {
		if !bytes.HasPrefix(rest, []byte(`"`)) {
			return 0, 0, false
		}
		rest = rest[1:]
	}
	if !bytes.HasPrefix(bytes.TrimLeft(rest, " \t"), []byte("=")) {
		return 0, 0, false
	}
	return s, e, true
}
