package goal

import (
	"testing"
)

func TestIgnore(t *testing.T) {
	rs := ignores(parseIgnore("", "# comment\n\n*.pyc\n/build/\nnode_modules\n!keep.pyc\ndocs/**/*.tmp\n\\#hash\ntrailing   \n[a-c]x\n[!a-c]y\n**/cache\nout/**\n"))
	rs = append(rs, parseIgnore("sub", "local.txt\n/anchored\n")...)
	for _, c := range []struct {
		path string
		dir  bool
		want bool
	}{
		{"x.pyc", false, true},
		{"deep/x.pyc", false, true},
		{"keep.pyc", false, false},
		{"build", true, true},
		{"build", false, false}, // dir only
		{"src/build", true, false},
		{"node_modules", true, true},
		{"a/node_modules", true, true},
		{"docs/x.tmp", false, true},
		{"docs/a/b/x.tmp", false, true},
		{"x.tmp", false, false},
		{"#hash", false, true},
		{"trailing", false, true},
		{"bx", false, true},
		{"dx", false, false},
		{"dy", false, true},
		{"ay", false, false},
		{"a/b/cache", true, true},
		{"out/a/b", false, true},
		{"sub/local.txt", false, true},
		{"sub/deeper/local.txt", false, true},
		{"local.txt", false, false},
		{"sub/anchored", false, true},
		{"sub/x/anchored", false, false},
		{"calc.go", false, false},
	} {
		if got := rs.match(c.path, c.dir); got != c.want {
			t.Errorf("%s (dir %v): ignored %v, want %v", c.path, c.dir, got, c.want)
		}
	}
}

func FuzzIgnore(f *testing.F) {
	f.Add("*.pyc\n!keep\n/build/\n[!a-]x\n**/c\\\n[", "a/b.pyc", true)
	f.Add("[]]\n[^\n\\", "]", false)
	f.Fuzz(func(t *testing.T, text, path string, dir bool) {
		rs := ignores(parseIgnore("", text))
		a, b := rs.match(path, dir), rs.match(path, dir)
		if a != b {
			t.Fatal("match is not deterministic")
		}
		for _, r := range rs {
			if r.re == nil {
				t.Fatal("a rule without its expression")
			}
		}
	})
}
