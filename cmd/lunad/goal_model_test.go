package main

import (
	"path"
	"regexp"
	"strings"
)

// goalPromptStart is how the goal's system prompt begins (the model
// servers tell its requests by it).
const goalPromptStart = "You are an autonomous software engineer working toward one goal"

// The goal's model: it reads the state a goal shows it each step — the
// tests, the history of its actions with their observations — and takes
// the next step as a careful engineer would on the sample projects (a
// function that subtracts where it should add): search for the suspect
// code, read the file the search found, fix the line it read, add a
// regression test, run the tests, finish. Each step is decided from what
// the state shows, never from a count, so a goal resumed after a crash
// goes on where it was.

var (
	// historyLine is an older step in a line: "#3 edit_artifact {…} → ok: …".
	historyLine = regexp.MustCompile(`(?m)^#\d+ (\w+) .* → (\w+):`)
	// recentStep is a latest step in full: "--- Step 3: edit_artifact {…}"
	// and, on the next line, "Status: ok".
	recentStep = regexp.MustCompile(`(?m)^--- Step \d+: (\w+).*\nStatus: (\w+)`)
	// searchHit is a hit of the text search: "calc.go:6: return a - b".
	searchHit = regexp.MustCompile(`(?m)(\S+\.(?:go|py)):\d+: .*a - b`)
	// readPath is the file a step read: read_artifact {"path":"calc.go"}.
	readPath = regexp.MustCompile(`read_artifact \{"path":"([^"]+)"`)
	// readLine is a line of read_artifact's output: "    6| \treturn a - b".
	readLine = regexp.MustCompile(`(?m)^ *\d+\| (.*a - b.*)$`)
)

// goalPlan is the model's plan when it is asked for one (--plan).
const goalPlan = "1. Search the code for the subtraction in add.\n2. Read the file it is in.\n3. Make add return a + b.\n4. Add a regression test and run the tests."

// goalStep is the model's next action on the state s shows.
func goalStep(s seen) modelCall {
	state := s.Turns[len(s.Turns)-1].Text
	done := map[string]string{} // tool → the status of its last step
	for _, re := range []*regexp.Regexp{historyLine, recentStep} {
		for _, m := range re.FindAllStringSubmatch(state, -1) {
			done[m[1]] = m[2]
		}
	}
	// A dry run's actions are checked, not done, and a denied one is
	// not tried again: either way the model goes on.
	ok := func(tool string) bool { return done[tool] == "ok" || done[tool] == "skipped" || done[tool] == "denied" }
	tested := !strings.Contains(state, "Tests: none are configured")
	file := ""
	if m := readPath.FindStringSubmatch(state); m != nil {
		file = m[1]
	} else if m := searchHit.FindStringSubmatch(state); m != nil {
		file = m[1]
	}
	switch {
	case len(done) == 0 && strings.Contains(state, "Tests when the goal started:\ntests: ok"):
		return finish("the tests already pass: nothing to do")
	case !ok("search"):
		return call("search", map[string]string{"query": "a - b", "kind": "text"})
	case file == "":
		return finish("the search found no subtraction to fix")
	case !ok("read_artifact"):
		return call("read_artifact", map[string]string{"path": file})
	case !ok("edit_artifact"):
		m := readLine.FindStringSubmatch(state)
		if m == nil {
			return call("read_artifact", map[string]string{"path": file})
		}
		return call("edit_artifact", map[string]any{"path": file, "blocks": []map[string]string{
			{"search": m[1] + "\n", "replace": strings.Replace(m[1], "a - b", "a + b", 1) + "\n"}}})
	case !ok("write_file"):
		name, content := regressionTest(file)
		return call("write_file", map[string]string{"path": name, "content": content})
	case tested && !ok("run_tests"):
		return call("run_tests", map[string]string{})
	case tested:
		return finish("add returned a - b; it returns a + b now, with a regression test; the tests pass")
	}
	return finish("add returned a - b; it returns a + b now, with a regression test (no tests are configured to run it)")
}

// regressionTest is a test of the fix, beside the fixed file.
func regressionTest(fixed string) (name, content string) {
	dir := path.Dir(fixed)
	if strings.HasSuffix(fixed, ".go") {
		return path.Join(dir, "add_test.go"), "package calc\n\nimport \"testing\"\n\nfunc TestAddNegative(t *testing.T) {\n\tif got := Add(-2, 5); got != 3 {\n\t\tt.Fatalf(\"Add(-2, 5) = %d, want 3\", got)\n\t}\n}\n"
	}
	return path.Join(dir, "test_add.py"), "from calc import add\n\n\ndef test_add_negative():\n    assert add(-2, 5) == 3\n"
}

func call(tool string, args any) modelCall {
	return modelCall{Name: tool, Args: mustJSON(args)}
}

func finish(summary string) modelCall {
	return call("finish", map[string]string{"summary": summary})
}
