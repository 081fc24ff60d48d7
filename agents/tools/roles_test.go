package tools_test

import (
	"testing"

	"github.com/lunad/lunad/agents/tools"
)

// TestRoleFor: who writes a file follows its path — documents by their
// extension, in any case, outside dot-directories, are the writer's;
// code, configuration, scripts and anything else the coder's.
func TestRoleFor(t *testing.T) {
	for _, tc := range []struct{ path, role string }{
		{"docs/guide.md", tools.Writer},
		{"README.MD", tools.Writer},
		{"notes/a.rst", tools.Writer},
		{"notes/todo.txt", tools.Writer},
		{"evil.py", tools.Coder},
		{"docs/evil.md.py", tools.Coder},
		{".github/workflows/x.yml", tools.Coder},
		{".github/ISSUE_TEMPLATE/bug.md", tools.Coder},
		{".GitHub/Workflows/x.md", tools.Coder},
		{"docs/.env.txt", tools.Coder},
		{"Makefile", tools.Coder},
		{"scripts/deploy", tools.Coder},
		{"config/app.toml", tools.Coder},
	} {
		t.Run(tc.path, func(t *testing.T) {
			if got := tools.RoleFor(tc.path); got != tc.role {
				t.Errorf("RoleFor(%q) = %s; want %s", tc.path, got, tc.role)
			}
		})
	}
}
