package treesitter

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// deepInputs are Markdown files that made the grammar abort the process
// (256 open block containers) before guardNesting, each after a heading
// and a link that must still be indexed.
var deepInputs = map[string]string{
	"256 nested quotes":             strings.Repeat(">", 256) + " x\n",
	"dash-space 256 times":          strings.Repeat("- ", 256) + "x\n",
	"star-space 300 times":          strings.Repeat("* ", 300) + "x\n",
	"ordered markers 300 times":     strings.Repeat("1. ", 300) + "x\n",
	"quotes and lists 200 times":    strings.Repeat("> - ", 200) + "x\n",
	"list nested 300 deep":          nestedList(300, "  "),
	"list nested 300 deep by tabs":  nestedList(300, "\t"),
	"quotes with CRLF":              strings.Repeat("> ", 300) + "x\r\n" + strings.Repeat("> ", 300) + "y\r\n",
	"deep quote inside a deep list": nestedList(150, "  ") + strings.Repeat(" ", 300) + strings.Repeat(">", 150) + " z\n",
}

func nestedList(n int, indent string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(indent, i) + "- item\n")
	}
	return b.String()
}

const deepPreamble = "# Guide\n\nSee [config](config.py).\n\n"

// TestMarkdownDeepNesting parses each deep input in a child process (an
// abort in C would end this test binary otherwise): the child must exit 0,
// index what comes before the nesting, and flag the file Partial.
func TestMarkdownDeepNesting(t *testing.T) {
	if name := os.Getenv("LUNAD_DEEP_INPUT"); name != "" {
		parseDeep(t, name)
		return
	}
	for name := range deepInputs {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestMarkdownDeepNesting$", "-test.v")
			cmd.Env = append(os.Environ(), "LUNAD_DEEP_INPUT="+name)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("parsing %q ended the process: %v\n%s", name, err, lastLines(out, 8))
			}
			if !bytes.Contains(out, []byte("deep input indexed")) {
				t.Fatalf("the child did not parse:\n%s", out)
			}
		})
	}
}

func parseDeep(t *testing.T, name string) {
	src := []byte(deepPreamble + deepInputs[name])
	p := NewParser()
	defer p.Close()
	f, err := p.Parse("text/markdown", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Symbols) == 0 || f.Symbols[0].Name != "Guide" {
		t.Fatalf("symbols %+v", f.Symbols)
	}
	if len(f.References) == 0 || f.References[0].Target != "config.py" {
		t.Fatalf("references %+v", f.References)
	}
	if !strings.Contains(f.Partial, fmt.Sprintf("nested deeper than %d", MaxNesting)) {
		t.Fatalf("Partial = %q", f.Partial)
	}
	doc, err := p.Open("text/markdown", src[:len(src)/2])
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	if got, err := doc.Update(src); err != nil || !reflect.DeepEqual(got, f) {
		t.Fatalf("incremental update: %v\n%+v\n%+v", err, got, f)
	}
	fmt.Println("deep input indexed")
}

func lastLines(b []byte, n int) []byte {
	lines := bytes.Split(b, []byte("\n"))
	return bytes.Join(lines[max(0, len(lines)-n):], []byte("\n"))
}

// TestGuardNesting: guarded content keeps every offset; lines within the
// limit are untouched; only markers past it turn into spaces.
func TestGuardNesting(t *testing.T) {
	cases := []struct {
		name, src, want string
		lines           []int
	}{
		{"at the limit", strings.Repeat(">", MaxNesting) + " x\n", strings.Repeat(">", MaxNesting) + " x\n", nil},
		{"one past", strings.Repeat(">", MaxNesting+1) + " x\n", strings.Repeat(">", MaxNesting) + "  x\n", []int{1}},
		{"dashes", "a\n" + strings.Repeat("- ", MaxNesting+2) + "x\n", "a\n" + strings.Repeat("- ", MaxNesting) + "    x\n", []int{2}},
		{"ordered", strings.Repeat("12) ", MaxNesting+1) + "x", strings.Repeat("12) ", MaxNesting) + "    x", []int{1}},
		{"content is kept", strings.Repeat("> ", MaxNesting+1) + "- not > a marker", strings.Repeat("> ", MaxNesting) + "  " + "  not > a marker", []int{1}},
		{"a thematic break is content", strings.Repeat("-", 300) + "\n", strings.Repeat("-", 300) + "\n", nil},
		{"deep indentation", strings.Repeat(" ", 2*MaxNesting) + "- x\n", strings.Repeat(" ", 2*MaxNesting) + "  x\n", []int{1}},
		{"long plain lines", strings.Repeat("word ", 100) + "\n", strings.Repeat("word ", 100) + "\n", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, lines := guardNesting([]byte(tc.src))
			if string(got) != tc.want || !reflect.DeepEqual(lines, tc.lines) {
				t.Fatalf("guardNesting(%q)\n = %q %v\nwant %q %v", tc.src, got, lines, tc.want, tc.lines)
			}
			if len(got) != len(tc.src) {
				t.Fatal("offsets moved")
			}
		})
	}
}
