package treesitter

import (
	"strings"
	"testing"
)

func fingerprints(t *testing.T, p *Parser, typ, src string) map[string]string {
	t.Helper()
	f, err := p.Parse(typ, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, s := range f.Symbols {
		m[s.Name] = s.Fingerprint
	}
	return m
}

func TestFingerprintStability(t *testing.T) {
	p := NewParser()
	defer p.Close()
	tests := []struct {
		name, typ, before, after string
		changed, unchanged       []string
	}{
		{
			name: "python body edit", typ: "code/python",
			before:  "def parse_config(p):\n    return load(p)\n\ndef other():\n    return 1\n",
			after:   "def parse_config(p):\n    return load(p, strict=True)\n\ndef other():\n    return 1\n",
			changed: []string{"parse_config"}, unchanged: []string{"other"},
		},
		{
			name: "python unrelated edit moves lines", typ: "code/python",
			before:    "def parse_config(p):\n    return load(p)\n\ndef other():\n    return 1\n",
			after:     "import os\n\ndef parse_config(p):\n    return load(p)\n\ndef other():\n    x = 2\n    return x\n",
			changed:   []string{"other"},
			unchanged: []string{"parse_config"},
		},
		{
			name: "go re-indent", typ: "code/go",
			before:    "package p\n\nfunc F(a int) int {\n\treturn a + 1\n}\n\nfunc G() {}\n",
			after:     "package p\n\nfunc F(a int) int {\n        return a +\n            1\n}\n\nfunc G() {}\n",
			unchanged: []string{"F", "G"},
		},
		{
			name: "go method body edit leaves type and function", typ: "code/go",
			before:    "package p\n\ntype T struct{}\n\nfunc (t T) M() int { return 1 }\n\nfunc F() {}\n",
			after:     "package p\n\ntype T struct{}\n\nfunc (t T) M() int { return 2 }\n\nfunc F() {}\n",
			changed:   []string{"M"},
			unchanged: []string{"T", "F"},
		},
		{
			name: "typescript method edit changes method and class", typ: "code/typescript",
			before:    "class A {\n  m() { return 1; }\n  n() { return 2; }\n}\n",
			after:     "class A {\n  m() { return 3; }\n  n() { return 2; }\n}\n",
			changed:   []string{"m", "A"},
			unchanged: []string{"n"},
		},
		{
			name: "markdown section edit", typ: "text/markdown",
			before:    "# Top\n\n## A\n\ntext a\n\n## B\n\ntext b\n",
			after:     "# Top\n\n## A\n\ntext a changed\n\n## B\n\ntext b\n",
			changed:   []string{"A", "Top"},
			unchanged: []string{"B"},
		},
		{
			name: "comment edit counts", typ: "code/go",
			before:  "package p\n\nfunc F() {\n\t// old\n}\n",
			after:   "package p\n\nfunc F() {\n\t// new\n}\n",
			changed: []string{"F"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := fingerprints(t, p, tc.typ, tc.before)
			b := fingerprints(t, p, tc.typ, tc.after)
			for _, n := range tc.changed {
				if a[n] == "" || a[n] == b[n] {
					t.Errorf("%s: fingerprint %q -> %q, want a change", n, a[n], b[n])
				}
			}
			for _, n := range tc.unchanged {
				if a[n] == "" || a[n] != b[n] {
					t.Errorf("%s: fingerprint %q -> %q, want no change", n, a[n], b[n])
				}
			}
		})
	}
}

func TestFingerprintNormalization(t *testing.T) {
	base := Fingerprint([]byte("f(a, b)\n{ x }"))
	for _, s := range []string{"  f(a, b) { x }  ", "f(a,\tb)\r\n{\n    x\n}\n"} {
		if got := Fingerprint([]byte(s)); got != base {
			t.Errorf("Fingerprint(%q) = %s, want %s", s, got, base)
		}
	}
	if Fingerprint([]byte("f(a,b){x}")) == base {
		t.Error("removing whitespace between tokens should change the fingerprint")
	}
	long := strings.Repeat("token ", 2000)
	if Fingerprint([]byte(long)) != Fingerprint([]byte(strings.ReplaceAll(long, " ", "\n\t"))) {
		t.Error("long input: normalization differs across buffer flushes")
	}
}
