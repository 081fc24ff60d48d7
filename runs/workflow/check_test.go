package workflow

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/lunad/lunad"
)

var update = flag.Bool("update", false, "rewrite the want section of testdata/check/*.txtar")

// checkCases reads testdata/check/*.txtar. Each archive holds one
// workflow file (any name but "want") and, in "want", the exact output of
// Check on it: one file:line:col: message line per problem.
func checkCases(t testing.TB) map[string]*txtar.Archive {
	files, err := filepath.Glob("testdata/check/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases in testdata/check: %v", err)
	}
	out := map[string]*txtar.Archive{}
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = ar
	}
	return out
}

// input is the workflow file of a case.
func input(ar *txtar.Archive) (name string, data []byte) {
	for _, f := range ar.Files {
		if f.Name != "want" {
			return f.Name, f.Data
		}
	}
	return "", nil
}

func TestCheck(t *testing.T) {
	for file, ar := range checkCases(t) {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			name, data := input(ar)
			err := Check(name, data)
			var ce *lunad.CheckError
			if !errors.As(err, &ce) || len(ce.Problems) == 0 {
				t.Fatalf("Check = %v; want a *lunad.CheckError", err)
			}
			if !errors.Is(err, lunad.ErrInvalid) {
				t.Errorf("the error does not wrap ErrInvalid")
			}
			lines := strings.Count(string(data), "\n") + 1
			for _, p := range ce.Problems {
				if p.File != name || p.Line < 1 || p.Line > lines || p.Col < 1 {
					t.Errorf("problem out of the file: %+v", p)
				}
			}
			got := err.Error() + "\n"
			want := ""
			for _, f := range ar.Files {
				if f.Name == "want" {
					want = string(f.Data)
				}
			}
			if got == want {
				return
			}
			if *update {
				setWant(ar, got)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			t.Errorf("Check output differs (go test ./workflow -run TestCheck -update to accept)\n--- got\n%s--- want\n%s", got, want)
		})
	}
}

func setWant(ar *txtar.Archive, data string) {
	for i := range ar.Files {
		if ar.Files[i].Name == "want" {
			ar.Files[i].Data = []byte(data)
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: "want", Data: []byte(data)})
}

func TestCheckValid(t *testing.T) {
	for name, src := range validWorkflows {
		t.Run(name, func(t *testing.T) {
			if err := Check(name+".toml", []byte(src)); err != nil {
				t.Errorf("Check:\n%v", err)
			}
		})
	}
}

// TestLines checks the positions the scanner finds for key paths in the
// shapes a workflow file may take.
func TestLines(t *testing.T) {
	src := `# a comment ["not a header"]
name = "x"   # trailing
start = 'a'
notes = """
[stages.fake]
to = "nowhere"
"""
[stages.a]
command = ["sh", "-c", "echo ]}"]
retry = { max_attempts = 3, initial = "1s" }
[[stages.a.next]]
to = "b"
when = "output.x"
[[stages.a.next]]
  to = "end"
[ stages . "b c" ]
agent = "w"
next = [
  { to = "end", when = "true" },
  {to="a"},
]
[stages.d.retry]
max = "1s"
`
	ix := newIndex(src)
	cases := []struct {
		path      []string
		line, col int
	}{
		{[]string{"name"}, 2, 1},
		{[]string{"start"}, 3, 1},
		{[]string{"stages", "a"}, 8, 1},
		{[]string{"stages", "a", "command"}, 9, 1},
		{[]string{"stages", "a", "retry"}, 10, 1},
		{[]string{"stages", "a", "retry", "initial"}, 10, 29},
		{[]string{"stages", "a", "retry", "max"}, 10, 1}, // not there: its table
		{[]string{"stages", "a", "next"}, 11, 1},
		{[]string{"stages", "a", "next", "0", "to"}, 12, 1},
		{[]string{"stages", "a", "next", "0", "when"}, 13, 1},
		{[]string{"stages", "a", "next", "1"}, 14, 1},
		{[]string{"stages", "a", "next", "1", "to"}, 15, 3},
		{[]string{"stages", "a", "next", "1", "when"}, 14, 1}, // not there: its table
		{[]string{"stages", "b c"}, 16, 1},
		{[]string{"stages", "b c", "agent"}, 17, 1},
		{[]string{"stages", "b c", "next", "0", "when"}, 19, 17},
		{[]string{"stages", "b c", "next", "1"}, 20, 3},
		{[]string{"stages", "b c", "next", "1", "to"}, 20, 4},
		{[]string{"stages", "d"}, 22, 1},
		{[]string{"stages", "d", "retry", "max"}, 23, 1},
		{[]string{"stages", "fake"}, 8, 1}, // in a string: not recorded, so its ancestor's
	}
	for _, c := range cases {
		t.Run(strings.Join(c.path, "."), func(t *testing.T) {
			line, col := ix.at(c.path...)
			if line != c.line || col != c.col {
				t.Errorf("at %v = %d:%d, want %d:%d", c.path, line, col, c.line, c.col)
			}
		})
	}
}
