package policy

import "testing"

func TestGlobText(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"make", "make", true},
		{"make", "cmake", false},
		{"deploy*", "deploy", true},
		{"deploy*", "deploy-prod", true},
		{"*deploy", "predeploy", true},
		{"python*", "python3.12", true},
		{"?", "é", true},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxbyy", false},
		{"*", "./...", true},
		{`\*`, "*", true},
		{`\*`, "x", false},
		{`a\`, "a", false},
		{"**", "", true},
	} {
		if got := globText(tc.pattern, tc.s); got != tc.want {
			t.Errorf("globText(%q, %q) = %v; want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}

func TestMatchPath(t *testing.T) {
	for _, tc := range []struct {
		pattern, rel string
		want         bool
	}{
		{"db/migrations", "db/migrations/001.sql", true},
		{"db/migrations", "db/migrations", true},
		{"db/migrations", "db/migrationsx/1", false},
		{"db/migrations", "x/db/migrations/1", false},
		{"db/migrations/**", "db/migrations/a/b.sql", true},
		{"db/*/x", "db/a/x", true},
		{"db/*/x", "db/a/b/x", false},
		{"db/**/x", "db/a/b/x", true},
		{"db/**/x", "db/x", true},
		{"**/*.pem", "a/b/c.pem", true},
		{"*.pem", "keys/server.pem", true},
		{"*.pem", "server.pem.bak", false},
		{"secrets", "config/secrets/prod.env", true},
		{"secrets", "config/secret", false},
		{".github/workflows/", ".github/workflows/ci.yml", true},
		{"*", ".", false},
		{"**", ".", true},
	} {
		if got := matchPath(tc.pattern, tc.rel); got != tc.want {
			t.Errorf("matchPath(%q, %q) = %v; want %v", tc.pattern, tc.rel, got, tc.want)
		}
	}
}

func TestArgsMatch(t *testing.T) {
	for _, tc := range []struct {
		patterns, args []string
		want           bool
	}{
		{[]string{"push"}, []string{"-C", "x", "push", "origin"}, true},
		{[]string{"deploy*"}, []string{"test"}, false},
		{[]string{"install", "-e"}, []string{"install", "-r", "x", "-e", "."}, true},
		{[]string{"-e", "install"}, []string{"install", "-e", "."}, false},
	} {
		if got := argsMatch(tc.patterns, tc.args); got != tc.want {
			t.Errorf("argsMatch(%q, %q) = %v; want %v", tc.patterns, tc.args, got, tc.want)
		}
	}
}
