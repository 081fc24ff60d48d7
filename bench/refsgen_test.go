package bench

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// The source tree of BenchmarkReferences: n files (30% Go, 25% Python, 20%
// TypeScript, 25% Markdown) in 100 directories two or three levels deep,
// generated deterministically in two passes. The first pass plans every
// file: path, language, length (code 40–300 lines, Markdown 20–150) and the
// names it defines. The second writes each file, calling functions and
// methods of other files of its language (imported as the language does:
// Go packages, Python modules, relative TypeScript modules) and, for
// Markdown, naming real symbols in code spans, linking to
// `../pkg/file.py#func_name` and to other documents' headings, writing
// [[Title]] links and fenced code blocks.

var (
	rwVerbs = strings.Fields(`parse load store fetch merge split render handle update create delete build
		resolve validate encode decode compute apply flush open close scan sync emit collect filter sort
		normalize format register lookup`)
	rwNouns = strings.Fields(`config session token buffer stream record event worker client server cache
		entry value option result reader writer scanner builder manager index query request response header
		payload schema policy route metric batch queue job task user account order invoice item`)
	rwProse = strings.Fields(`the a an of to in for with when this that each every before after only
		returns keeps reads writes checks stores sends waits calls holds uses may must should not then
		first last next previous current new old empty full value list set map key field request caller
		server client worker result error retry timeout limit offset state change version owner path`)
	rwTops = strings.Fields(`api cmd docs internal lib pkg scripts tests tools web`)
	rwSubs = strings.Fields(`auth cache config core db http log queue store util events jobs metrics
		billing search users orders admin render sync`)
)

const (
	rwGo   = "go"
	rwPy   = "python"
	rwTS   = "typescript"
	rwMD   = "markdown"
	rwSeed = 20260311
)

// rwType is a class (a Go struct type) and its methods.
type rwType struct {
	name    string
	methods []string
}

// rwFile is one planned, then written, file of the tree.
type rwFile struct {
	i      int
	path   string // slash-separated, relative to the tree
	dir    string
	lang   string
	target int // lines wanted
	funcs  []string
	types  []rwType
	title  string   // Markdown: the first heading
	heads  []string // Markdown: section headings
	// The line the update benchmark changes: inside a function body (the
	// middle one) for code, a paragraph line for Markdown.
	editAt               int    // byte offset in the generated content
	editLine, editIndent string // the line as generated, its indentation
	editN                int    // the number in that line (code)
	lines, size          int
}

type rwTree struct {
	dir   string
	files []*rwFile
	byDir map[string][]int
	byLng map[string][]int
	topOf map[string]string // dir -> top-level directory
}

func rwCap(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// rwName joins words in the language's style: ParseConfig (Go exported,
// types), parse_config (Python), parseConfig (TypeScript).
func rwName(lang string, exported bool, ws ...string) string {
	switch {
	case exported || lang == rwGo:
		var b strings.Builder
		for _, w := range ws {
			b.WriteString(rwCap(w))
		}
		return b.String()
	case lang == rwPy:
		return strings.Join(ws, "_")
	default:
		var b strings.Builder
		b.WriteString(ws[0])
		for _, w := range ws[1:] {
			b.WriteString(rwCap(w))
		}
		return b.String()
	}
}

// generateRefsTree writes n files under dir and returns their plan.
func generateRefsTree(dir string, n int) (*rwTree, error) {
	rng := rand.New(rand.NewPCG(rwSeed, 7))
	pick := func(ws []string) string { return ws[rng.IntN(len(ws))] }
	t := &rwTree{dir: dir, byDir: map[string][]int{}, byLng: map[string][]int{}, topOf: map[string]string{}}
	// 100 leaf directories: seven per top level two levels deep, three
	// nested one level further.
	var dirs []string
	for _, top := range rwTops {
		subs := rng.Perm(len(rwSubs))
		for j := 0; j < 10; j++ {
			d := top + "/" + rwSubs[subs[j]]
			if j >= 7 {
				d = top + "/" + rwSubs[subs[j-7]] + "/" + rwSubs[subs[j]]
			}
			dirs = append(dirs, d)
			t.topOf[d] = top
		}
	}
	// Pass 1: plan.
	names := map[string]bool{}   // dir/stem.ext
	defined := map[string]bool{} // dir/Name (a Go package) or path/Name
	titles := map[string]bool{}
	for i := range n {
		f := &rwFile{i: i, dir: dirs[rng.IntN(len(dirs))]}
		switch r := rng.IntN(100); {
		case r < 30:
			f.lang = rwGo
		case r < 55:
			f.lang = rwPy
		case r < 75:
			f.lang = rwTS
		default:
			f.lang = rwMD
		}
		ext := map[string]string{rwGo: ".go", rwPy: ".py", rwTS: ".ts", rwMD: ".md"}[f.lang]
		for k := 0; ; k++ {
			a, b := pick(rwNouns), pick(append(rwNouns, rwVerbs...))
			var stem string
			switch f.lang {
			case rwTS:
				stem = a + rwCap(b)
			case rwMD:
				stem = a + "-" + b
			default:
				stem = a + "_" + b
			}
			if k > 20 {
				stem += fmt.Sprint(k)
			}
			if p := f.dir + "/" + stem + ext; !names[p] {
				names[p], f.path = true, p
				break
			}
		}
		unique := func(make func() string) string {
			for k := 0; ; k++ {
				s := make()
				if k > 20 {
					s += fmt.Sprint(k)
				}
				key := f.dir + "/" + s
				if f.lang != rwGo {
					key = f.path + "/" + s
				}
				if !defined[key] {
					defined[key] = true
					return s
				}
			}
		}
		if f.lang == rwMD {
			f.target = 20 + rng.IntN(131)
			for {
				f.title = rwCap(pick(rwNouns)) + " " + pick(rwNouns) + " " + pick([]string{"guide", "design", "notes", "overview", "runbook", "reference", "howto", "faq"})
				if !titles[f.title] {
					titles[f.title] = true
					break
				}
				// several documents may share a title; rarely
				if rng.IntN(50) == 0 {
					break
				}
			}
			for s := 0; s < 2+f.target/25; s++ {
				f.heads = append(f.heads, rwCap(pick(rwVerbs))+" the "+pick(rwNouns)+" "+pick(rwNouns))
			}
		} else {
			f.target = 40 + rng.IntN(261)
			// lines of a function with about four statements
			perUnit := map[string]int{rwGo: 29, rwPy: 19, rwTS: 22}[f.lang]
			units := max(2, (f.target+perUnit/2)/perUnit)
			for k := 0; k < units; {
				if rng.IntN(10) < 3 && units-k >= 2 {
					ty := rwType{name: unique(func() string { return rwName(f.lang, true, pick(rwNouns), pick(rwNouns)) })}
					m := min(2+rng.IntN(3), units-k)
					used := map[string]bool{}
					for len(ty.methods) < m {
						s := rwName(f.lang, false, pick(rwVerbs), pick(rwNouns))
						if !used[s] {
							used[s] = true
							ty.methods = append(ty.methods, s)
						}
					}
					f.types = append(f.types, ty)
					k += m
				} else {
					f.funcs = append(f.funcs, unique(func() string {
						return rwName(f.lang, false, pick(rwVerbs), pick(rwNouns), pick(rwNouns))
					}))
					k++
				}
			}
		}
		t.files = append(t.files, f)
		t.byDir[f.dir] = append(t.byDir[f.dir], i)
		t.byLng[f.lang] = append(t.byLng[f.lang], i)
	}
	// Pass 2: write.
	for _, f := range t.files {
		var content []byte
		switch f.lang {
		case rwGo:
			content = t.goFile(rng, f)
		case rwPy:
			content = t.pyFile(rng, f)
		case rwTS:
			content = t.tsFile(rng, f)
		default:
			content = t.mdFile(rng, f)
		}
		f.size, f.lines = len(content), bytes.Count(content, []byte("\n"))
		full := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(full, content, 0o644); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// deps picks k other files of lang, most (70%) from the same top-level
// directory, for f to call or mention.
func (t *rwTree) deps(rng *rand.Rand, f *rwFile, lang string, k int) []*rwFile {
	pool := t.byLng[lang]
	var out []*rwFile
	seen := map[int]bool{f.i: true}
	for tries := 0; len(out) < k && tries < 50*k; tries++ {
		c := t.files[pool[rng.IntN(len(pool))]]
		if seen[c.i] || rng.IntN(10) < 7 && t.topOf[c.dir] != t.topOf[f.dir] {
			continue
		}
		seen[c.i] = true
		out = append(out, c)
	}
	return out
}

// rwCall is one function or method of another file, as the caller writes it.
type rwCall struct{ fn, typ, method string }

func calls(rng *rand.Rand, ds []*rwFile, qual func(*rwFile) string) []rwCall {
	var out []rwCall
	for _, d := range ds {
		q := qual(d)
		if len(d.types) > 0 && rng.IntN(3) == 0 {
			ty := d.types[rng.IntN(len(d.types))]
			out = append(out, rwCall{typ: q + ty.name, method: ty.methods[rng.IntN(len(ty.methods))]})
		} else if len(d.funcs) > 0 {
			out = append(out, rwCall{fn: q + d.funcs[rng.IntN(len(d.funcs))]})
		}
	}
	return out
}

// rwWriter accumulates a file and remembers where the edited line is.
type rwWriter struct {
	bytes.Buffer
	f *rwFile
}

func (w *rwWriter) line(format string, args ...any) {
	fmt.Fprintf(w, format, args...)
	w.WriteByte('\n')
}

func (w *rwWriter) lineCount() int { return bytes.Count(w.Bytes(), []byte("\n")) }

// editLine is the line the update benchmark changes, for number n.
func editLine(lang, indent string, n int) string {
	switch lang {
	case rwGo:
		return fmt.Sprintf("%slimit := %d * len(in)", indent, n)
	case rwPy:
		return fmt.Sprintf("%slimit = %d * len(items)", indent, n)
	default:
		return fmt.Sprintf("%sconst limit = %d * items.length;", indent, n)
	}
}

// body writes one function body: indent is the body's indentation, unit
// one more level. stmts is the number of statement groups wanted.
func (w *rwWriter) body(rng *rand.Rand, lang, indent, unit string, stmts int, cs []rwCall, local []string, edit bool) {
	pick := func(ws []string) string { return ws[rng.IntN(len(ws))] }
	i2, i3 := indent+unit, indent+unit+unit
	n := 2 + rng.IntN(60)
	if edit {
		w.f.editAt, w.f.editN, w.f.editIndent = w.Len(), n, indent
		w.f.editLine = editLine(lang, indent, n)
	}
	w.line("%s", editLine(lang, indent, n))
	verb := pick(rwVerbs)
	switch lang {
	case rwGo:
		w.line("%sif n > limit {", indent)
		w.line("%sreturn \"\", fmt.Errorf(\"%s: n = %%d over %%d\", n, limit)", i2, verb)
		w.line("%s}", indent)
		w.line("%sparts := make([]string, 0, len(in))", indent)
		w.line("%sfor _, s := range in {", indent)
		w.line("%sif strings.HasPrefix(s, %q) {", i2, pick(rwNouns))
		w.line("%scontinue", i3)
		w.line("%s}", i2)
		w.line("%sparts = append(parts, strings.TrimSpace(s))", i2)
		w.line("%s}", indent)
	case rwPy:
		w.line("%sif n > limit:", indent)
		w.line("%sraise ValueError(f\"%s: {n} over {limit}\")", i2, verb)
		w.line("%sparts = []", indent)
		w.line("%sfor item in items:", indent)
		w.line("%sif str(item).startswith(%q):", i2, pick(rwNouns))
		w.line("%scontinue", i3)
		w.line("%sparts.append(str(item).strip())", i2)
	default:
		w.line("%sif (n > limit) {", indent)
		w.line("%sthrow new Error(`%s: ${n} over ${limit}`);", i2, verb)
		w.line("%s}", indent)
		w.line("%sconst parts: string[] = [];", indent)
		w.line("%sfor (const item of items) {", indent)
		w.line("%sif (item.startsWith(%q)) {", i2, pick(rwNouns))
		w.line("%scontinue;", i3)
		w.line("%s}", i2)
		w.line("%sparts.push(item.trim());", i2)
		w.line("%s}", indent)
	}
	for s := 0; s < stmts; s++ {
		var c rwCall
		switch r := rng.IntN(10); {
		case r < 5 && len(cs) > 0:
			c = cs[rng.IntN(len(cs))]
		case r < 7 && len(local) > 0:
			c = rwCall{fn: local[rng.IntN(len(local))]}
		}
		switch {
		case c.fn != "" && lang == rwGo:
			w.line("%sif _, err := %s(parts, n+%d); err != nil {", indent, c.fn, rng.IntN(9))
			w.line("%sreturn \"\", fmt.Errorf(\"%s %s: %%w\", err)", i2, pick(rwVerbs), pick(rwNouns))
			w.line("%s}", indent)
		case c.typ != "" && lang == rwGo:
			v := "w" + fmt.Sprint(s)
			w.line("%svar %s %s", indent, v, c.typ)
			w.line("%sif _, err := %s.%s(parts, %d); err != nil {", indent, v, c.method, rng.IntN(9))
			w.line("%sreturn \"\", err", i2)
			w.line("%s}", indent)
		case c.fn != "" && lang == rwPy:
			w.line("%s%s = %s(parts, n + %d)", indent, pick(rwNouns), c.fn, rng.IntN(9))
		case c.typ != "" && lang == rwPy:
			w.line("%s%s(%q).%s(parts, %d)", indent, c.typ, pick(rwNouns), c.method, rng.IntN(9))
		case c.fn != "":
			w.line("%sconst %s%d = %s(parts, n + %d);", indent, pick(rwNouns), s, c.fn, rng.IntN(9))
		case c.typ != "":
			w.line("%snew %s(%q).%s(parts, %d);", indent, c.typ, pick(rwNouns), c.method, rng.IntN(9))
		default: // a comment and an assignment
			comment := map[string]string{rwGo: "//", rwPy: "#", rwTS: "//"}[lang]
			w.line("%s%s %s the %s before the %s.", indent, comment, rwCap(pick(rwVerbs)), pick(rwNouns), pick(rwNouns))
			switch lang {
			case rwGo:
				w.line("%sn += len(parts) %% %d", indent, 2+rng.IntN(9))
			case rwPy:
				w.line("%sn += len(parts) %% %d", indent, 2+rng.IntN(9))
			default:
				w.line("%sn += parts.length %% %d;", indent, 2+rng.IntN(9))
			}
		}
	}
	switch lang {
	case rwGo:
		w.line("%sreturn strings.Join(parts, %q), nil", indent, ", ")
	case rwPy:
		w.line("%sreturn \", \".join(parts)", indent)
	default:
		w.line("%sreturn parts.join(\", \");", indent)
	}
}

// units lists a code file's definitions in order: functions and types.
type rwUnit struct {
	fn string
	ty *rwType
}

func units(rng *rand.Rand, f *rwFile) []rwUnit {
	var us []rwUnit
	for _, fn := range f.funcs {
		us = append(us, rwUnit{fn: fn})
	}
	for i := range f.types {
		us = append(us, rwUnit{ty: &f.types[i]})
	}
	rng.Shuffle(len(us), func(i, j int) { us[i], us[j] = us[j], us[i] })
	return us
}

// stmtsPer spreads the file's target length over its functions: header
// lines before the first, fixed lines in each besides the statements, and
// perStmt10 tenths of a line per statement.
func stmtsPer(f *rwFile, header, fixed, perStmt10 int) int {
	fns := len(f.funcs)
	for _, t := range f.types {
		fns += len(t.methods)
	}
	per := (f.target-header)/max(fns, 1) - fixed
	return max(2, per*10/perStmt10)
}

func (t *rwTree) goFile(rng *rand.Rand, f *rwFile) []byte {
	w := &rwWriter{f: f}
	pkg := path.Base(f.dir)
	// Files of other packages, imported (one per package name), and of
	// the same package, called unqualified.
	var imported, same []*rwFile
	usedPkg := map[string]bool{pkg: true}
	for _, d := range t.deps(rng, f, rwGo, 4) {
		switch {
		case d.dir == f.dir:
			same = append(same, d)
		case !usedPkg[path.Base(d.dir)]:
			usedPkg[path.Base(d.dir)] = true
			imported = append(imported, d)
		}
	}
	for _, j := range t.byDir[f.dir] {
		if o := t.files[j]; o.lang == rwGo && o != f && len(same) < 2 {
			same = append(same, o)
		}
	}
	cs := calls(rng, append(imported, same...), func(d *rwFile) string {
		if d.dir == f.dir {
			return ""
		}
		return path.Base(d.dir) + "."
	})
	w.line("// Package %s %ss the %s %s.", pkg, rwVerbs[rng.IntN(len(rwVerbs))], rwNouns[rng.IntN(len(rwNouns))], rwNouns[rng.IntN(len(rwNouns))])
	w.line("package %s", pkg)
	w.line("")
	w.line("import (")
	w.line("\t\"fmt\"")
	w.line("\t\"strings\"")
	for k, d := range imported {
		if k == 0 {
			w.line("")
		}
		w.line("\t\"example.com/ws/%s\"", d.dir)
	}
	w.line(")")
	us := units(rng, f)
	per := stmtsPer(f, 10, 16, 28)
	editUnit := len(us) / 2
	for k, u := range us {
		w.line("")
		if u.fn != "" {
			w.line("// %s %ss the %s of in.", u.fn, rwVerbs[rng.IntN(len(rwVerbs))], rwNouns[rng.IntN(len(rwNouns))])
			w.line("func %s(in []string, n int) (string, error) {", u.fn)
			w.body(rng, rwGo, "\t", "\t", per, cs, f.funcs, k == editUnit)
			w.line("}")
			continue
		}
		w.line("// %s keeps the %s of a %s.", u.ty.name, rwNouns[rng.IntN(len(rwNouns))], rwNouns[rng.IntN(len(rwNouns))])
		w.line("type %s struct {", u.ty.name)
		w.line("\tname  string")
		w.line("\titems []string")
		w.line("}")
		for m, name := range u.ty.methods {
			w.line("")
			w.line("// %s %ss r's items.", name, rwVerbs[rng.IntN(len(rwVerbs))])
			w.line("func (r *%s) %s(in []string, n int) (string, error) {", u.ty.name, name)
			w.line("\tr.items = append(r.items, in...)")
			w.body(rng, rwGo, "\t", "\t", per, cs, f.funcs, k == editUnit && m == 0)
			w.line("}")
		}
	}
	return w.Bytes()
}

// pyModule is the dotted module of a Python file, from the tree's root.
func pyModule(p string) string {
	return strings.ReplaceAll(strings.TrimSuffix(p, ".py"), "/", ".")
}

func (t *rwTree) pyFile(rng *rand.Rand, f *rwFile) []byte {
	w := &rwWriter{f: f}
	ds := t.deps(rng, f, rwPy, 4)
	w.line("\"\"\"%s %s module: %ss the %s.\"\"\"", rwCap(rwNouns[rng.IntN(len(rwNouns))]), rwNouns[rng.IntN(len(rwNouns))], rwVerbs[rng.IntN(len(rwVerbs))], rwNouns[rng.IntN(len(rwNouns))])
	w.line("")
	w.line("import os")
	w.line("import re")
	w.line("")
	var cs []rwCall
	for k, d := range ds {
		if k%2 == 0 { // from module import name
			c := calls(rng, []*rwFile{d}, func(*rwFile) string { return "" })
			if len(c) == 0 {
				continue
			}
			name := c[0].fn + c[0].typ
			w.line("from %s import %s", pyModule(d.path), name)
			cs = append(cs, c...)
		} else { // import the module, qualify the name
			stem := path.Base(strings.TrimSuffix(d.path, ".py"))
			w.line("from %s import %s", pyModule(path.Dir(d.path)), stem)
			cs = append(cs, calls(rng, []*rwFile{d}, func(*rwFile) string { return stem + "." })...)
		}
	}
	us := units(rng, f)
	per := stmtsPer(f, 10, 13, 14)
	editUnit := len(us) / 2
	for k, u := range us {
		w.line("")
		w.line("")
		if u.fn != "" {
			w.line("def %s(items, n=0):", u.fn)
			w.line("    \"\"\"%s the %s of each item.\"\"\"", rwCap(rwVerbs[rng.IntN(len(rwVerbs))]), rwNouns[rng.IntN(len(rwNouns))])
			w.body(rng, rwPy, "    ", "    ", per, cs, f.funcs, k == editUnit)
			continue
		}
		w.line("class %s:", u.ty.name)
		w.line("    \"\"\"Keeps the %s of a %s.\"\"\"", rwNouns[rng.IntN(len(rwNouns))], rwNouns[rng.IntN(len(rwNouns))])
		w.line("")
		w.line("    def __init__(self, name=\"\"):")
		w.line("        self.name = name")
		w.line("        self.items = []")
		for m, name := range u.ty.methods {
			w.line("")
			w.line("    def %s(self, items, n=0):", name)
			w.line("        \"\"\"%s the items.\"\"\"", rwCap(rwVerbs[rng.IntN(len(rwVerbs))]))
			w.line("        self.items.extend(items)")
			w.body(rng, rwPy, "        ", "    ", per, cs, f.funcs, k == editUnit && m == 0)
		}
	}
	return w.Bytes()
}

// relTo is the relative path from directory dir to file p, "./x" in the
// same directory.
func relTo(dir, p string) string {
	r, err := filepath.Rel(filepath.FromSlash(dir), filepath.FromSlash(p))
	if err != nil {
		return p
	}
	r = filepath.ToSlash(r)
	if !strings.HasPrefix(r, ".") {
		r = "./" + r
	}
	return r
}

func (t *rwTree) tsFile(rng *rand.Rand, f *rwFile) []byte {
	w := &rwWriter{f: f}
	ds := t.deps(rng, f, rwTS, 4)
	var cs []rwCall
	for _, d := range ds {
		c := calls(rng, []*rwFile{d}, func(*rwFile) string { return "" })
		if len(c) == 0 {
			continue
		}
		w.line("import { %s } from %q;", c[0].fn+c[0].typ, strings.TrimSuffix(relTo(f.dir, d.path), ".ts"))
		cs = append(cs, c...)
	}
	us := units(rng, f)
	per := stmtsPer(f, 4, 16, 14)
	editUnit := len(us) / 2
	for k, u := range us {
		w.line("")
		if u.fn != "" {
			w.line("/** %s the %s of each item. */", rwCap(rwVerbs[rng.IntN(len(rwVerbs))]), rwNouns[rng.IntN(len(rwNouns))])
			w.line("export function %s(items: string[], n = 0): string {", u.fn)
			w.body(rng, rwTS, "  ", "  ", per, cs, f.funcs, k == editUnit)
			w.line("}")
			continue
		}
		w.line("/** Keeps the %s of a %s. */", rwNouns[rng.IntN(len(rwNouns))], rwNouns[rng.IntN(len(rwNouns))])
		w.line("export class %s {", u.ty.name)
		w.line("  private items: string[] = [];")
		w.line("")
		w.line("  constructor(readonly name = \"\") {}")
		for m, name := range u.ty.methods {
			w.line("")
			w.line("  %s(items: string[], n = 0): string {", name)
			w.line("    this.items.push(...items);")
			w.body(rng, rwTS, "    ", "  ", per, cs, f.funcs, k == editUnit && m == 0)
			w.line("  }")
		}
		w.line("}")
	}
	return w.Bytes()
}

// mdSymbol is a symbol of code file d as a document names it in a code span.
func mdSymbol(rng *rand.Rand, d *rwFile) (span, frag string) {
	if len(d.types) > 0 && (len(d.funcs) == 0 || rng.IntN(3) == 0) {
		ty := d.types[rng.IntN(len(d.types))]
		m := ty.methods[rng.IntN(len(ty.methods))]
		return ty.name + "." + m, m
	}
	fn := d.funcs[rng.IntN(len(d.funcs))]
	if d.lang == rwGo && rng.IntN(2) == 0 {
		return path.Base(d.dir) + "." + fn, fn
	}
	return fn, fn
}

// mdSlug is GitHub's anchor of a heading made of lowercase words.
func mdSlug(h string) string { return strings.ReplaceAll(strings.ToLower(h), " ", "-") }

func (t *rwTree) mdFile(rng *rand.Rand, f *rwFile) []byte {
	w := &rwWriter{f: f}
	pick := func(ws []string) string { return ws[rng.IntN(len(ws))] }
	var code []*rwFile
	for _, lang := range []string{rwGo, rwPy, rwTS} {
		code = append(code, t.deps(rng, f, lang, 2)...)
	}
	docs := t.deps(rng, f, rwMD, 3)
	// One prose line of about 12 words with, sometimes, a reference.
	prose := func() string {
		var b strings.Builder
		for k := 0; k < 9+rng.IntN(6); k++ {
			if k > 0 {
				b.WriteByte(' ')
			}
			if k == 4 {
				switch r := rng.IntN(10); {
				case r < 3 && len(code) > 0:
					s, _ := mdSymbol(rng, code[rng.IntN(len(code))])
					fmt.Fprintf(&b, "`%s`", s)
					continue
				case r < 5 && len(code) > 0:
					d := code[rng.IntN(len(code))]
					s, frag := mdSymbol(rng, d)
					fmt.Fprintf(&b, "[%s](%s#%s)", s, relTo(f.dir, d.path), frag)
					continue
				case r < 6 && len(docs) > 0:
					fmt.Fprintf(&b, "[[%s]]", docs[rng.IntN(len(docs))].title)
					continue
				case r < 7 && len(docs) > 0:
					d := docs[rng.IntN(len(docs))]
					fmt.Fprintf(&b, "[the %s section](%s#%s)", pick(rwNouns), relTo(f.dir, d.path), mdSlug(d.heads[rng.IntN(len(d.heads))]))
					continue
				}
			}
			b.WriteString(pick(rwProse))
		}
		b.WriteByte('.')
		s := b.String()
		return strings.ToUpper(s[:1]) + s[1:]
	}
	w.line("# %s", f.title)
	w.line("")
	for k := 0; k < 2+rng.IntN(2); k++ {
		w.line("%s", prose())
	}
	editSection := len(f.heads) / 2
	for s := 0; w.lineCount() < f.target; s++ {
		h := f.heads[s%len(f.heads)]
		if s >= len(f.heads) {
			h += fmt.Sprintf(" %d", s/len(f.heads)+1)
		}
		w.line("")
		w.line("## %s", h)
		w.line("")
		for k := 0; k < 2+rng.IntN(4); k++ {
			if s == editSection && k == 1 {
				w.f.editAt, w.f.editLine = w.Len(), prose()
				w.line("%s", w.f.editLine)
				continue
			}
			w.line("%s", prose())
		}
		switch r := rng.IntN(3); {
		case len(code) == 0:
		case r == 0:
			w.line("")
			for k := 0; k < 2+rng.IntN(3); k++ {
				s, _ := mdSymbol(rng, code[rng.IntN(len(code))])
				w.line("- `%s` %s %s %s.", s, pick(rwProse), pick(rwProse), pick(rwNouns))
			}
		case r == 1:
			d := code[rng.IntN(len(code))]
			s, _ := mdSymbol(rng, d)
			fence := map[string]string{rwGo: "go", rwPy: "python", rwTS: "ts"}[d.lang]
			w.line("")
			w.line("```%s", fence)
			switch d.lang {
			case rwGo:
				w.line("out, err := %s(items, %d)", s, rng.IntN(9))
				w.line("if err != nil {")
				w.line("\treturn err")
				w.line("}")
				w.line("fmt.Println(out)")
			case rwPy:
				w.line("out = %s(items, %d)", s, rng.IntN(9))
				w.line("print(out)")
			default:
				w.line("const out = %s(items, %d);", s, rng.IntN(9))
				w.line("console.log(out);")
			}
			w.line("```")
		}
	}
	return w.Bytes()
}

// edited returns content with f's edit line changed for pass p (1, 2, …):
// a new number in the function's first statement for code, a sentence
// added to a paragraph line for Markdown. n is the length of that line in
// content (it changes with each pass); newLen is its new length.
func (f *rwFile) edited(content []byte, n, pass int) (out []byte, newLen int) {
	var nl string
	if f.lang == rwMD {
		nl = strings.TrimSuffix(f.editLine, ".") + fmt.Sprintf(", revised in pass %d.", pass)
	} else {
		nl = editLine(f.lang, f.editIndent, f.editN+pass)
	}
	out = make([]byte, 0, len(content)+len(nl))
	out = append(append(append(out, content[:f.editAt]...), nl...), content[f.editAt+n:]...)
	return out, len(nl)
}
