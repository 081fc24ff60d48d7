package treesitter

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"unsafe"
)

// packedGraph is an empty graph, put, which parses a file and puts it
// packed (as the daemon's index does), and done, which frees the parser.
func packedGraph(t *testing.T) (g *Graph, put func(path, src string), done func()) {
	p := NewParser()
	g = NewGraph()
	return g, func(path, src string) {
		t.Helper()
		f, err := p.Parse(path, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		g.PutPacked(Entry{ID: path, Path: path}, Pack(f))
	}, p.Close
}

// manyDefiners is a graph where get is defined in n Python files (T.py
// among them) and called by users files: one of them imports T (its call
// resolves to T), the others do not (their calls are ambiguous among the
// n definitions).
func manyDefiners(t *testing.T, n, users int) *Graph {
	t.Helper()
	g, put, done := packedGraph(t)
	defer done()
	put("T.py", "def get():\n    return 0\n\ndef other():\n    return 1\n")
	for i := 1; i < n; i++ {
		put(fmt.Sprintf("lib/d%03d.py", i), "def get():\n    return 1\n")
	}
	put("use/importer.py", "from T import get\n\nget()\nother()\n")
	for i := 1; i < users; i++ {
		put(fmt.Sprintf("use/u%03d.py", i), "def f():\n    return get()\n")
	}
	return g
}

// withoutAmbiguous is Incoming's answer as IncomingResolved should give it.
func withoutAmbiguous(rs []Resolution) []Resolution {
	var out []Resolution
	for _, r := range rs {
		if r.State != Ambiguous {
			out = append(out, r)
		}
	}
	return out
}

// incomingGraphs are the graphs the incoming tests ask about: the
// resolution fixture and graphs where one name has many definitions.
func incomingGraphs(t *testing.T) []struct {
	name string
	g    *Graph
} {
	return []struct {
		name string
		g    *Graph
	}{
		{"fixture", buildGraph(t)},
		{"many definers", manyDefiners(t, 20, 10)},
		{"go methods", goMethodDefiners(t, 20, 10)},
	}
}

// TestIncomingResolved: IncomingResolved is Incoming without the
// ambiguous references, on every artifact of the resolution fixture and
// of a graph where one name has many definitions.
func TestIncomingResolved(t *testing.T) {
	for _, tt := range incomingGraphs(t) {
		t.Run(tt.name, func(t *testing.T) {
			ambiguous := 0
			for _, id := range tt.g.IDs() {
				all := tt.g.Incoming(id)
				want := withoutAmbiguous(all)
				ambiguous += len(all) - len(want)
				if got := tt.g.IncomingResolved(id); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: IncomingResolved\n%v\nwant\n%v", id, got, want)
				}
			}
			if ambiguous == 0 {
				t.Error("no ambiguous incoming reference: the test checks nothing")
			}
		})
	}
	g := manyDefiners(t, 20, 10)
	var got []string
	for _, r := range g.IncomingResolved("T.py") {
		got = append(got, r.From+" "+r.Ref.Kind+" "+r.Ref.Name)
	}
	want := []string{"use/importer.py import T", "use/importer.py import get", "use/importer.py call get", "use/importer.py call other"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("IncomingResolved(T.py) = %q, want %q", got, want)
	}
	got = nil
	for _, r := range goMethodDefiners(t, 20, 10).IncomingResolved("t/T.go") {
		got = append(got, r.From+" "+r.Ref.Kind+" "+r.Ref.Name)
	}
	if want := []string{"t/use.go call x.Get"}; !reflect.DeepEqual(got, want) {
		t.Errorf("IncomingResolved(t/T.go) = %q, want %q", got, want)
	}
}

// goMethodDefiners is a graph where method Get is defined in n Go packages
// (t/T.go among them) and called on a value, x.Get(), in T's package
// (resolved to T's by the package rule) and in users other packages:
// resolved by name, ambiguous among the n.
func goMethodDefiners(t *testing.T, n, users int) *Graph {
	t.Helper()
	g, put, done := packedGraph(t)
	defer done()
	put("t/T.go", "package t\n\ntype T struct{}\n\nfunc (T) Get() int { return 0 }\n")
	for i := 1; i < n; i++ {
		put(fmt.Sprintf("d%03d/d.go", i), fmt.Sprintf("package d%03d\n\ntype D struct{}\n\nfunc (D) Get() int { return 1 }\n", i))
	}
	put("t/use.go", "package t\n\nfunc g(x Getter) int { return x.Get() }\n") // in T's package: resolves to T.Get
	for i := 0; i < users; i++ {
		put(fmt.Sprintf("u%03d/u.go", i), fmt.Sprintf("package u%03d\n\nfunc f(x Getter) int { return x.Get() }\n", i))
	}
	return g
}

// TestIncomingResolvedGathersNoCandidates: a references request on a
// definition of a name defined in many artifacts does not build the
// candidate lists of the files where the name is ambiguous (each a
// Target per definition: gigabytes on the 10,000-artifact benchmark), nor
// list the definitions there — in Python (narrowed by imports) and in Go (by package,
// then imports).
func TestIncomingResolvedGathersNoCandidates(t *testing.T) {
	for _, tt := range []struct {
		name   string
		graph  func(t *testing.T, n, users int) *Graph
		target string
	}{
		{"python", manyDefiners, "T.py"},
		{"go methods", goMethodDefiners, "t/T.go"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			many, more := tt.graph(t, 1000, 60), tt.graph(t, 1000, 120)
			var in []Resolution
			all := allocated(func() { in = many.Incoming(tt.target) })
			if len(withoutAmbiguous(in)) == len(in) {
				t.Fatal("no ambiguous incoming reference: the test checks nothing")
			}
			resolved := allocated(func() { many.IncomingResolved(tt.target) })
			// 60 more users where no rule can pick the target: each costs
			// less than a quarter of a list of the 1,000 definitions.
			perUser := (allocated(func() { more.IncomingResolved(tt.target) }) - resolved) / 60
			if resolved*10 > all || perUser > 1000*uint64(unsafe.Sizeof(defLoc{}))/4 {
				t.Errorf("IncomingResolved allocated %d bytes (Incoming %d; want a tenth at most), %d per user where the name is ambiguous (want less than a quarter of a list of 1,000 definitions)",
					resolved, all, perUser)
			}
		})
	}
}

// allocated is the bytes fn allocates on the heap.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestIncomingResolvedTo: IncomingResolvedTo is IncomingResolved kept to
// the references resolved to one definition (its name and container), for
// every definition and heading of every artifact of the resolution fixture
// and of graphs where one name has many definitions.
func TestIncomingResolvedTo(t *testing.T) {
	for _, tt := range incomingGraphs(t) {
		t.Run(tt.name, func(t *testing.T) {
			found := 0
			for _, id := range tt.g.IDs() {
				_, syms, _ := tt.g.Symbols(id)
				all := tt.g.IncomingResolved(id)
				for _, s := range syms {
					var want []Resolution
					for _, r := range all {
						if r.Target.Name == s.Name && r.Target.Container == s.Container {
							want = append(want, r)
						}
					}
					found += len(want)
					if got := tt.g.IncomingResolvedTo(id, s.Name, s.Container); !reflect.DeepEqual(got, want) {
						t.Errorf("%s: IncomingResolvedTo(%q, %q)\n%v\nwant\n%v", id, s.Name, s.Container, got, want)
					}
				}
			}
			if found == 0 {
				t.Error("no definition has incoming references: the test checks nothing")
			}
		})
	}
}

// TestIncomingResolvedToReadsOneName: a references request on one
// definition of a file does not resolve the references to the file's other
// definitions — here 200 users of other, none of get.
func TestIncomingResolvedToReadsOneName(t *testing.T) {
	g, put, done := packedGraph(t)
	put("T.py", "def get():\n    return 0\n\ndef other():\n    return 1\n")
	for i := range 200 {
		put(fmt.Sprintf("use/u%03d.py", i), "def f():\n    return other() + other()\n")
	}
	done()
	if n := len(g.IncomingResolvedTo("T.py", "other", "")); n != 400 {
		t.Fatalf("IncomingResolvedTo(T.py, other) = %d references, want 400", n)
	}
	var got []Resolution
	one := allocated(func() { got = g.IncomingResolvedTo("T.py", "get", "") })
	whole := allocated(func() { g.IncomingResolved("T.py") })
	if len(got) != 0 || one*20 > whole {
		t.Errorf("IncomingResolvedTo(T.py, get) = %d references, allocated %d bytes (IncomingResolved %d; want a twentieth at most)", len(got), one, whole)
	}
}
