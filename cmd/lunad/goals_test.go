package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoalDiskBudget: the policy's [limits] disk is the goal's disk
// budget, read as the policy says it when each command and test run
// ends. With disk = "1MiB", tests that leave 4 MiB in an ignored
// directory are over it: what they wrote is undone and the model is
// told, against the policy's budget, not the 2 GiB default.
func TestGoalDiskBudget(t *testing.T) {
	m := &testModel{Key: scenarioKey}
	srv := openAIServer(t, m)
	w := goalWS(t, pythonProject, srv.URL+"/v1", true)
	for name, content := range map[string]string{
		".gitignore":        "build/\n",
		"conftest.py":       "import os\nos.makedirs('build', exist_ok=True)\nwith open('build/big', 'wb') as f:\n    f.write(os.urandom(4 << 20))\n",
		".luna/policy.toml": "[limits]\ndisk = \"1MiB\"\n",
	} {
		if err := os.WriteFile(filepath.Join(w.dir, filepath.FromSlash(name)), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.git("add", "-A")
	w.git("commit", "-q", "-m", "tests that fill an ignored directory, under a 1MiB disk budget")
	w.serve()
	res, progress := w.goal("make the tests pass")
	show := w.ok("goal", "show", res.Run)
	if want := "over the goal's budget of 1MiB: everything it wrote was undone"; !strings.Contains(show+progress, want) {
		t.Fatalf("the goal was not held to the policy's disk budget (want %q):\n%s\n%s", want, progress, show)
	}
}
