package daemon

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAskPolicy: the asks' Reads and Writes follow .luna/policy.toml as
// each stage starts: the paths it denies reading are withheld (ignoring
// case), writes meet lunad's rules (CI configuration in any case) and the
// workspace's, and a policy file that does not check withholds every
// artifact and refuses every write.
func TestAskPolicy(t *testing.T) {
	root := agentsRoot(t, "")
	h := NewGoalHost(root, envOf("LUNAD_SANDBOX_HOME", t.TempDir()), slog.New(slog.NewTextHandler(io.Discard, nil)))
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, ".luna", "policy.toml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("[[deny]]\nname = \"no-secrets\"\npaths = [\"config/secrets\", \"*.pem\"]\nreason = \"secrets stay out of the model's context\"\n\n[[confirm]]\nname = \"migrations\"\npaths = [\"db/migrations\"]\nwrites = true\nreason = \"schema changes need review\"\n")
	reads, writes := h.reads(), h.writes()
	for _, tc := range []struct {
		name string
		err  error
		want string // "" for nil
	}{
		{"read a doc", reads("docs/a.md"), ""},
		{"read a secret", reads("config/secrets/prod.env"), "denied by rule no-secrets"},
		{"read a secret other case", reads("Config/SECRETS/prod.env"), "denied by rule no-secrets"},
		{"read a key", reads("certs/server.PEM"), "denied by rule no-secrets"},
		{"write a doc", writes("docs/a.md"), ""},
		{"write a workflow", writes(".GitHub/Workflows/x.yml"), "denied by rule ci-config"},
		{"write a dotfile", writes("sub/.envrc"), "denied by rule dotfile"},
		{"write a secret", writes("config/secrets/new.env"), "denied by rule no-secrets"},
		{"write a migration", writes("db/migrations/002.sql"), "needs confirmation by rule migrations: schema changes need review; an ask cannot ask for it"},
		{"write outside", writes("../x"), "denied by rule outside-workspace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == "" && tc.err != nil || tc.want != "" && (tc.err == nil || !strings.Contains(tc.err.Error(), tc.want)) {
				t.Errorf("got %v; want %q", tc.err, tc.want)
			}
		})
	}
	write("netwrok = true\n")
	for _, err := range []error{h.reads()("docs/a.md"), h.writes()("docs/a.md")} {
		if err == nil || !strings.Contains(err.Error(), ".luna/policy.toml does not check") {
			t.Errorf("with a policy file that does not check: %v", err)
		}
	}
}
