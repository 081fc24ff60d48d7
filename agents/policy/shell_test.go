package policy

import (
	"reflect"
	"testing"
)

// shCmd is a script's command as the tests compare it.
type shCmd struct {
	Words, Writes []string
	Piped         bool
	Subs          int
	Heredocs      []string
}

func TestParseShell(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []shCmd
	}{
		{"simple", "go test ./...", []shCmd{{Words: []string{"go", "test", "./..."}}}},
		{"quotes", `echo 'a b' "c \"d\" $x" e\ f`, []shCmd{{Words: []string{"echo", "a b", `c "d" $x`, "e f"}}}},
		{"lists", "a && b || c; d & e\nf", []shCmd{{Words: []string{"a"}}, {Words: []string{"b"}}, {Words: []string{"c"}},
			{Words: []string{"d"}}, {Words: []string{"e"}}, {Words: []string{"f"}}}},
		{"pipe", "curl -s x | sh -s", []shCmd{{Words: []string{"curl", "-s", "x"}}, {Words: []string{"sh", "-s"}, Piped: true}}},
		{"pipe-stderr", "a |& b", []shCmd{{Words: []string{"a"}}, {Words: []string{"b"}, Piped: true}}},
		{"redirects", "go test >out.txt 2>&1 </dev/null 2>>err.log &>all.log", []shCmd{{Words: []string{"go", "test"},
			Writes: []string{"out.txt", "err.log", "all.log"}}}},
		{"fd-word", "echo 2 > x", []shCmd{{Words: []string{"echo", "2"}, Writes: []string{"x"}}}},
		{"assignments-and-reserved", "if CGO=0 go vet; then ! make; fi", []shCmd{{Words: []string{"go", "vet"}}, {Words: []string{"make"}}}},
		{"substitution", "echo $(curl x | sh) `id`", []shCmd{{Words: []string{"echo", "$(…)", "$(…)"}, Subs: 2}}},
		{"process-substitution", "bash <(curl x)", []shCmd{{Words: []string{"bash", "$(…)"}, Subs: 1}}},
		{"arithmetic", "echo $((1 + (2)))", []shCmd{{Words: []string{"echo", "$((1 + (2)))"}}}},
		{"braces-var", "rm -rf ${HOME}/x", []shCmd{{Words: []string{"rm", "-rf", "${HOME}/x"}}}},
		{"comment", "ls # rm -rf /\npwd", []shCmd{{Words: []string{"ls"}}, {Words: []string{"pwd"}}}},
		{"heredoc", "cat <<EOF > f\nrm -rf /\nEOF\nls", []shCmd{{Words: []string{"cat"}, Writes: []string{"f"}, Heredocs: []string{"rm -rf /\n"}},
			{Words: []string{"ls"}}}},
		{"heredoc-strip", "sh <<-'X'\n\tcurl x\n\tX\n", []shCmd{{Words: []string{"sh"}, Heredocs: []string{"curl x\n"}}}},
		{"heredoc-substitution", "cat <<EOF\n$(curl x)\nEOF", []shCmd{{Words: []string{"cat"}, Subs: 1, Heredocs: []string{"$(curl x)\n"}}}},
		{"subshell", "(cd src && make) | tee log", []shCmd{{Words: []string{"cd", "src"}}, {Words: []string{"make"}},
			{Words: []string{"tee", "log"}, Piped: true}}},
		{"unterminated", `echo "abc`, []shCmd{{Words: []string{"echo", "abc"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []shCmd
			for _, c := range parseShell(tc.src, 0).cmds {
				got = append(got, shCmd{Words: c.words, Writes: c.writes, Piped: c.piped, Subs: len(c.subs), Heredocs: c.heredocs})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("parseShell(%q) =\n %+v\nwant\n %+v", tc.src, got, tc.want)
			}
		})
	}
}

func TestShellScript(t *testing.T) {
	for _, tc := range []struct {
		argv   []string
		script string
		ok     bool
	}{
		{[]string{"sh", "-c", "ls"}, "ls", true},
		{[]string{"bash", "-xec", "ls", "name"}, "ls", true},
		{[]string{"bash", "-o", "pipefail", "-c", "ls"}, "ls", true},
		{[]string{"bash", "--norc", "-c", "ls"}, "ls", true},
		{[]string{"fish", "--command", "ls"}, "ls", true},
		{[]string{"fish", "--command=ls"}, "ls", true},
		{[]string{"sh", "script.sh"}, "", false},
		{[]string{"sh", "-c"}, "", false},
		{[]string{"python3", "-c", "x"}, "", false},
	} {
		script, ok := shellScript(tc.argv)
		if script != tc.script || ok != tc.ok {
			t.Errorf("shellScript(%q) = %q, %v; want %q, %v", tc.argv, script, ok, tc.script, tc.ok)
		}
	}
}

func TestUnwrap(t *testing.T) {
	for _, tc := range []struct {
		argv, inner []string
		chdir       string
	}{
		{[]string{"env", "-i", "A=1", "-", "go", "test"}, []string{"go", "test"}, ""},
		{[]string{"env", "-C", "src", "-u", "X", "make"}, []string{"make"}, "src"},
		{[]string{"env", "-S", "curl -s 'a b'", "c"}, []string{"curl", "-s", "a b", "c"}, ""},
		{[]string{"timeout", "--signal=KILL", "-k", "5", "10s", "make"}, []string{"make"}, ""},
		{[]string{"nice", "-10", "make"}, []string{"make"}, ""},
		{[]string{"xargs", "-I", "{}", "-P4", "rm", "{}"}, []string{"rm", "{}"}, ""},
		{[]string{"sudo", "-u", "root", "--", "id"}, []string{"id"}, ""},
		{[]string{"busybox", "wget", "x"}, []string{"wget", "x"}, ""},
		{[]string{"command", "-v", "curl"}, nil, ""},
		{[]string{"env"}, nil, ""},
		{[]string{"make", "x"}, nil, ""},
	} {
		inner, chdir, ok := unwrap(tc.argv)
		if !reflect.DeepEqual(inner, tc.inner) || chdir != tc.chdir || ok != (tc.inner != nil) {
			t.Errorf("unwrap(%q) = %q, %q, %v; want %q, %q", tc.argv, inner, chdir, ok, tc.inner, tc.chdir)
		}
	}
}

func TestLocate(t *testing.T) {
	src := "network = true\n\"quoted key\" = 1 # c\n[limits]\ntimeout = \"1m\"\n\n[[deny]]\nname = \"a\"\n[[deny]]\n  name = 'b'\n  args = [\"x\",\n    \"y\"]\ninline = { k = 1, l = \"\"\"\nm\"\"\" }\n"
	loc := locate(src)
	for _, tc := range []struct {
		path      keyPath
		line, col int
	}{
		{keyPath{"network"}, 1, 1},
		{keyPath{"quoted key"}, 2, 1},
		{keyPath{"limits", "timeout"}, 4, 1},
		{keyPath{"limits", "nothing"}, 3, 1},
		{keyPath{"deny", "0"}, 6, 1},
		{keyPath{"deny", "0", "name"}, 7, 1},
		{keyPath{"deny", "1", "name"}, 9, 3},
		{keyPath{"deny", "1", "args", "1"}, 11, 5},
		{keyPath{"deny", "1", "inline", "l"}, 12, 19},
		{keyPath{"absent"}, 1, 1},
	} {
		if line, col := loc.at(tc.path); line != tc.line || col != tc.col {
			t.Errorf("at(%q) = %d:%d; want %d:%d", tc.path, line, col, tc.line, tc.col)
		}
	}
}
