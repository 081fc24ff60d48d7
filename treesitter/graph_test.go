package treesitter

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// graphFixture is a small workspace exercising every resolution rule.
var graphFixture = []struct{ id, path, title, content string }{
	{"CFG", "src/config.py", "Config", "import os\n\ndef parse_config(path):\n    return load(path)\n\ndef load(path):\n    return os.path.join(path)\n\nclass Settings:\n    def get(self):\n        return 1\n"},
	{"MAIN", "src/main.py", "Main", "from config import parse_config\nimport config\n\ndef main():\n    parse_config('x')\n    helper()\n    get()\n"},
	{"UTIL", "src/util.py", "Util", "def helper():\n    pass\n\ndef get():\n    pass\n"},
	{"OTHER", "lib/other.py", "Other", "def helper():\n    pass\n"},
	{"DOC", "docs/guide.md", "Guide", "# Guide\n\nSee `parse_config` and `Settings.get`, [c](../src/config.py#parse_config),\n" +
		"[line](../src/config.py#L6), [sec](#usage), [gone](#nope), [x](missing.md), [[Config]], [[Nothing]], `helper`, ![img](pic.png), `os.path.join`.\n\n## Usage\n\nText.\n"},
}

func buildGraph(t *testing.T) *Graph {
	t.Helper()
	p := NewParser()
	defer p.Close()
	g := NewGraph()
	for _, a := range graphFixture {
		f, err := p.Parse(a.path, []byte(a.content))
		if err != nil {
			t.Fatal(err)
		}
		g.Put(Entry{ID: a.id, Path: a.path, Title: a.title, File: f})
	}
	return g
}

func describe(r Resolution) string {
	s := fmt.Sprintf("%s %q -> %s", r.Ref.Kind, r.Ref.Name, r.State)
	switch r.State {
	case Resolved, Local:
		s += " " + r.Target.ID
		if r.Target.Name != "" {
			s += "#" + r.Target.Name
		}
		if r.Target.Line > 0 {
			s += fmt.Sprintf(":L%d", r.Target.Line)
		}
	case Ambiguous:
		var ids []string
		for _, c := range r.Candidates {
			ids = append(ids, c.ID)
		}
		s += " " + strings.Join(ids, ",")
	case Broken:
		s += " (" + r.Reason + ")"
	}
	return s
}

func TestGraphResolve(t *testing.T) {
	g := buildGraph(t)
	tests := []struct {
		name, id string
		want     []string
	}{
		{"python imports and calls", "MAIN", []string{
			`import "config" -> resolved CFG`,
			`import "parse_config" -> resolved CFG#parse_config`,
			`import "config" -> resolved CFG`,
			`call "parse_config" -> resolved CFG#parse_config`,
			`call "helper" -> ambiguous OTHER,UTIL`,
			`call "get" -> resolved CFG#get`, // narrowed: main imports config
		}},
		{"markdown links, spans and wiki", "DOC", []string{
			`code "parse_config" -> resolved CFG#parse_config`,
			`code "Settings.get" -> resolved CFG#get`,
			`link "parse_config" -> resolved CFG#parse_config`,
			`link "L6" -> resolved CFG:L6`,
			`link "usage" -> local DOC#Usage`,
			`link "nope" -> broken (no heading #nope in docs/guide.md)`,
			`link "missing.md" -> broken (no artifact at docs/missing.md)`,
			`wiki "Config" -> resolved CFG`,
			`wiki "Nothing" -> broken (no artifact with ID, title or file name "Nothing")`,
			`code "helper" -> ambiguous OTHER,UTIL`,
			`link "pic.png" -> unresolved`,
			`code "os.path.join" -> unresolved`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range g.Resolve(tt.id) {
				if r.Ref.Kind == "identifier" {
					continue
				}
				got = append(got, describe(r))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// FuzzResolve puts an arbitrary Markdown and Python artifact next to the
// fixture and checks the invariants of every resolution: targets exist,
// ambiguity has candidates, local means the artifact itself; and that
// removing the fuzzed artifacts leaves the fixture as it was.
func FuzzResolve(f *testing.F) {
	f.Add("See `parse_config`, [x](src/config.py#L2) and [[Main]].\n", "def helper():\n    parse_config(1)\n")
	f.Add("[a](#b) [c](../../x#y) [[]] `a.b.c` [d](<src/config.py#Settings.get>)\n", "import config\nfrom .. import x\n")
	p := NewParser()
	defer p.Close()
	f.Fuzz(func(t *testing.T, md, py string) {
		g := buildGraph(t)
		before := resolveAll(g)
		for _, a := range []struct{ id, path, content string }{{"FMD", "docs/fuzz.md", md}, {"FPY", "src/fuzz.py", py}} {
			file, err := p.Parse(a.path, []byte(a.content))
			if err != nil {
				t.Fatal(err)
			}
			g.Put(Entry{ID: a.id, Path: a.path, Title: md, File: file})
		}
		for _, id := range g.IDs() {
			for _, r := range append(g.Resolve(id), g.Incoming(id)...) {
				switch r.State {
				case Resolved:
					if _, ok := g.Entry(r.Target.ID); !ok {
						t.Fatalf("%s: resolved to unknown %q", describe(r), r.Target.ID)
					}
				case Local:
					if r.Target.ID != r.From {
						t.Fatalf("%s: local target in %q", describe(r), r.Target.ID)
					}
				case Ambiguous:
					if len(r.Candidates) < 2 {
						t.Fatalf("%s: %d candidates", describe(r), len(r.Candidates))
					}
				}
			}
		}
		g.Remove("FMD")
		g.Remove("FPY")
		if after := resolveAll(g); after != before {
			t.Fatalf("removing the fuzzed artifacts changed the fixture:\n%s\nwas\n%s", after, before)
		}
	})
}

func resolveAll(g *Graph) string {
	var b strings.Builder
	for _, id := range g.IDs() {
		for _, r := range append(g.Resolve(id), g.Incoming(id)...) {
			b.WriteString(describe(r) + "\n")
		}
	}
	return b.String()
}

// TestGraphGoPackages: an unqualified Go name is looked up in its own
// package only; pkg.Name by the imported package's directory; x.Method()
// on a value by name.
func TestGraphGoPackages(t *testing.T) {
	p := NewParser()
	defer p.Close()
	g := NewGraph()
	for _, a := range []struct{ id, path, content string }{
		{"US", "util/strings.go", "package util\n\nfunc Trim(s string) string { return s }\n"},
		{"UO", "util/other.go", "package util\n\nfunc Other() string { return Trim(\"x\") + Gone() }\n"},
		{"TT", "text/trim.go", "package text\n\nfunc Trim(s string) string { return s }\n\nfunc Gone() string { return \"\" }\n"},
		{"SV", "srv/server.go", "package srv\n\ntype Server struct{}\n\nfunc (s *Server) Start() {}\n"},
		{"AM", "app/main.go", "package main\n\nimport (\n\t\"example.com/m/util\"\n\t\"example.com/m/srv/v2\"\n)\n\nfunc main() {\n\tutil.Trim(\"a\")\n\tvar s srv.Server\n\ts.Start()\n}\n"},
	} {
		f, err := p.Parse(a.path, []byte(a.content))
		if err != nil {
			t.Fatal(err)
		}
		g.Put(Entry{ID: a.id, Path: a.path, Title: a.id, File: f})
	}
	tests := []struct {
		name, id string
		want     []string
	}{
		{"same package only", "UO", []string{`call "Trim" -> resolved US#Trim`, `call "Gone" -> unresolved`}},
		{"package-qualified and method calls", "AM", []string{`call "util.Trim" -> resolved US#Trim`, `identifier "srv.Server" -> resolved SV#Server`, `call "s.Start" -> resolved SV#Start`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range g.Resolve(tt.id) {
				if r.Ref.Kind != "import" && r.Ref.Name != "string" {
					got = append(got, describe(r))
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestRemoveUnfilesEveryUserKey: the keys an artifact's references are filed
// under are recomputed on Remove rather than kept; after replacing and
// removing artifacts the name index must equal a fresh graph's.
func TestRemoveUnfilesEveryUserKey(t *testing.T) {
	p := NewParser()
	defer p.Close()
	parse := func(path, content string) *File {
		f, err := p.Parse(path, []byte(content))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	tests := []struct {
		name string
		edit func(g *Graph)
		want []string // IDs of graphFixture a fresh graph holds, plus a replaced DOC
	}{
		{"remove a code artifact", func(g *Graph) { g.Remove("MAIN") }, []string{"CFG", "UTIL", "OTHER", "DOC"}},
		{"remove a document", func(g *Graph) { g.Remove("DOC") }, []string{"CFG", "MAIN", "UTIL", "OTHER"}},
		{"replace a document", func(g *Graph) {
			g.Put(Entry{ID: "DOC", Path: "docs/guide.md", Title: "Guide", File: parse("docs/guide.md", "# Guide\n\nOnly `load` now.\n")})
		}, []string{"CFG", "MAIN", "UTIL", "OTHER", "DOC2"}},
		{"remove everything", func(g *Graph) {
			for _, a := range graphFixture {
				g.Remove(a.id)
			}
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := buildGraph(t)
			tt.edit(g)
			fresh := NewGraph()
			for _, id := range tt.want {
				if id == "DOC2" {
					fresh.Put(Entry{ID: "DOC", Path: "docs/guide.md", Title: "Guide", File: parse("docs/guide.md", "# Guide\n\nOnly `load` now.\n")})
					continue
				}
				for _, a := range graphFixture {
					if a.id == id {
						fresh.Put(Entry{ID: a.id, Path: a.path, Title: a.title, File: parse(a.path, a.content)})
					}
				}
			}
			if got, want := fmt.Sprint(usersByID(g)), fmt.Sprint(usersByID(fresh)); got != want {
				t.Errorf("users after the edit:\n got %s\nwant %s", got, want)
			}
			if tt.want == nil && len(g.users) != 0 {
				t.Errorf("an empty graph files %d keys", len(g.users))
			}
		})
	}
}

// usersByID is g.users with the artifacts' IDs, sorted, for their numbers
// (which depend on the order of Put and Remove).
func usersByID(g *Graph) map[string][]string {
	out := map[string][]string{}
	for k, ns := range g.users {
		for _, n := range ns {
			out[k.String()] = append(out[k.String()], g.nodes[n].ID)
		}
		sort.Strings(out[k.String()])
	}
	return out
}

// TestLastQualified: the name key of a reference is the last part
// splitQualified gives, for every shape of qualified name.
func TestLastQualified(t *testing.T) {
	for _, name := range []string{"a", "fmt.Println", "a.b.c", "a.b.", "x..", ".x", "...", ".", "", "a::b", "x#y", "p->q",
		"a.b-c", "a-b", "a:b", "std::io::Read.", "a.b::", "::", "é.ü"} {
		t.Run(name, func(t *testing.T) {
			parts := splitQualified(name)
			if got, want := lastQualified(name), parts[len(parts)-1]; got != want {
				t.Errorf("lastQualified(%q) = %q, want %q", name, got, want)
			}
		})
	}
}

// TestAppendTarget: overloads (same artifact, name, container and
// heading-ness) are one target; the same name in another artifact, in
// another container or as a heading is another.
func TestAppendTarget(t *testing.T) {
	f := func(id, name, container, kind string) Target {
		return Target{ID: id, Name: name, Container: container, Kind: kind}
	}
	tests := []struct {
		name string
		add  []Target
		want int
	}{
		{"overloads", []Target{f("A", "get", "", "function"), f("A", "get", "", "function")}, 1},
		{"overloads apart", []Target{f("A", "get", "", "function"), f("A", "put", "", "function"), f("A", "get", "", "function")}, 2},
		{"other containers", []Target{f("A", "get", "X", "method"), f("A", "get", "Y", "method")}, 2},
		{"a heading and a definition", []Target{f("A", "get", "", "heading"), f("A", "get", "", "function")}, 2},
		{"other artifacts", []Target{f("A", "get", "", "function"), f("B", "get", "", "function"), f("B", "get", "", "function"), f("C", "get", "", "function")}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ts []Target
			for _, x := range tt.add {
				ts = appendTarget(ts, x)
			}
			if len(ts) != tt.want {
				t.Errorf("%d targets, want %d: %+v", len(ts), tt.want, ts)
			}
		})
	}
}

// TestResolveSameNameTwice: references with the same name and shape are
// resolved once per call (memo), yet each Resolution has its own
// reference (position) and its own candidates.
func TestResolveSameNameTwice(t *testing.T) {
	p := NewParser()
	defer p.Close()
	g := NewGraph()
	for _, a := range []struct{ id, path, src string }{
		{"A", "a.py", "def load(p):\n    return p\n"},
		{"B", "b.py", "def load(p):\n    return p\n"},
		{"D", "d.md", "# D\n\nCall `load` first, then `load` again, and `missing` twice: `missing`.\n"},
	} {
		f, err := p.Parse(a.path, []byte(a.src))
		if err != nil {
			t.Fatal(err)
		}
		g.Put(Entry{ID: a.id, Path: a.path, File: f})
	}
	res := g.Resolve("D")
	var loads []Resolution
	for _, r := range res {
		if r.Ref.Name == "load" {
			loads = append(loads, r)
		}
	}
	if len(loads) != 2 || loads[0].State != Ambiguous || loads[1].State != Ambiguous {
		t.Fatalf("load: %+v", loads)
	}
	if loads[0].Ref.Span == loads[1].Ref.Span {
		t.Errorf("both at %+v", loads[0].Ref.Span)
	}
	if !reflect.DeepEqual(loads[0].Candidates, loads[1].Candidates) || len(loads[0].Candidates) != 2 {
		t.Errorf("candidates differ: %+v, %+v", loads[0].Candidates, loads[1].Candidates)
	}
	loads[0].Candidates[0].ID = "changed"
	if loads[1].Candidates[0].ID == "changed" {
		t.Error("two resolutions share their candidates")
	}
}

// TestExampleCandidates: a name in a fenced example resolves to the one
// definition of its language, or to the one in the document's scope
// (what it links to); otherwise it is unresolved (never ambiguous) —
// found from the candidates' artifacts alone when they are spread over
// several (ambiguous), from the definitions when one artifact has several.
func TestExampleCandidates(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		doc   string
		want  string
	}{
		{"one definition", map[string]string{"a.py": "def load(p):\n    return p\n"},
			"# D\n\n```python\nload('x')\n```\n", "resolved a.py"},
		{"two files, none linked", map[string]string{"a.py": "def load(p):\n    return p\n", "b.py": "def load(p):\n    return p\n"},
			"# D\n\n```python\nload('x')\n```\n", "unresolved "},
		{"two files, one linked", map[string]string{"a.py": "def load(p):\n    return p\n", "b.py": "def load(p):\n    return p\n"},
			"# D\n\nSee [b](b.py).\n\n```python\nload('x')\n```\n", "resolved b.py"},
		{"two files, both linked", map[string]string{"a.py": "def load(p):\n    return p\n", "b.py": "def load(p):\n    return p\n"},
			"# D\n\nSee [a](a.py), [b](b.py).\n\n```python\nload('x')\n```\n", "unresolved "},
		{"two classes of one file", map[string]string{"a.py": "class A:\n    def load(self):\n        pass\n\nclass B:\n    def load(self):\n        pass\n"},
			"# D\n\n```python\nload()\n```\n", "unresolved "},
		{"another language only", map[string]string{"a.go": "package a\n\nfunc load() {}\n", "b.go": "package b\n\nfunc load() {}\n"},
			"# D\n\n```python\nload('x')\n```\n", "unresolved "},
	}
	p := NewParser()
	defer p.Close()
	parse := func(path, src string) *File {
		f, err := p.Parse(path, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewGraph()
			for path, src := range tt.files {
				g.PutPacked(Entry{ID: path, Path: path}, Pack(parse(path, src)))
			}
			g.Put(Entry{ID: "D", Path: "d.md", Title: "D", File: parse("d.md", tt.doc)})
			var got []string
			for _, r := range g.Resolve("D") {
				if r.Ref.Kind == "example" && r.Ref.Name == "load" {
					got = append(got, r.State+" "+r.Target.ID)
				}
			}
			if len(got) != 1 || got[0] != tt.want {
				t.Errorf("load: %q, want [%q]", got, tt.want)
			}
		})
	}
}
