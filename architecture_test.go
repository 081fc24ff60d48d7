package lunad_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestArchitecture checks the dependency rules docs/architecture.md states,
// with `go list -deps`: the adapters link neither git, the file watcher nor
// cgo; the store speaks no protocol; the pure packages import no sibling.
func TestArchitecture(t *testing.T) {
	const mod = "github.com/lunad/lunad"
	cases := []struct {
		pkg       string
		forbidden []string // import path prefixes
		noCgo     bool     // no cgo outside the standard library
		siblings  []string // lunad packages it may import (nil: any)
	}{
		{pkg: "lsp", forbidden: []string{"github.com/go-git/", "github.com/fsnotify/", "github.com/smacker/", mod + "/daemon", mod + "/gitstore", mod + "/treesitter"}, noCgo: true},
		{pkg: "mcp", forbidden: []string{"github.com/go-git/", "github.com/fsnotify/", "github.com/smacker/", mod + "/daemon", mod + "/gitstore", mod + "/treesitter"}, noCgo: true},
		{pkg: "gitstore", forbidden: []string{"go.lsp.dev/", "github.com/modelcontextprotocol/", mod + "/daemon", mod + "/lsp", mod + "/mcp"}},
		{pkg: ".", siblings: []string{}},
		{pkg: "editor", siblings: []string{}},
		{pkg: "textpos", siblings: []string{}},
		{pkg: "treesitter", siblings: []string{mod + "/textpos"}},
		{pkg: "runs/procagent", forbidden: []string{"github.com/go-git/", "github.com/fsnotify/", "github.com/smacker/", "github.com/modelcontextprotocol/", "go.lsp.dev/"}, noCgo: true, siblings: []string{mod}},
		{pkg: "runs/natsqueue", forbidden: []string{"github.com/go-git/", "github.com/fsnotify/", "github.com/smacker/", "github.com/modelcontextprotocol/", "go.lsp.dev/"}, noCgo: true, siblings: []string{mod, mod + "/runs/procagent"}},
	}
	for _, c := range cases {
		t.Run(c.pkg, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}} {{len .CgoFiles}}", "./"+c.pkg).CombinedOutput()
			if err != nil {
				t.Fatalf("go list: %v\n%s", err, out)
			}
			self := strings.TrimSuffix(mod+"/"+c.pkg, "/.")
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				f := strings.Fields(line)
				path, std, cgo := f[0], f[1] == "true", f[2] != "0"
				for _, bad := range c.forbidden {
					if strings.HasPrefix(path, bad) {
						t.Errorf("%s links %s", c.pkg, path)
					}
				}
				if c.noCgo && cgo && !std {
					t.Errorf("%s links %s, which uses cgo", c.pkg, path)
				}
				if c.siblings != nil && path != self && (path == mod || strings.HasPrefix(path, mod+"/")) {
					allowed := false
					for _, ok := range c.siblings {
						allowed = allowed || path == ok
					}
					if !allowed {
						t.Errorf("%s imports %s; it may import %v of lunad's packages", c.pkg, path, c.siblings)
					}
				}
			}
		})
	}
}
