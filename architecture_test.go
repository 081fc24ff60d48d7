package lunad_test

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestArchitecture checks the dependency rules docs/architecture.md states,
// with `go list -deps`: the adapters link neither git, the file watcher,
// cgo nor any implementation of the Workspace; the daemon links only the
// protocol; the service, the watcher and the reference index know no
// adapter; the store speaks no protocol; the pure packages import no
// sibling.
func TestArchitecture(t *testing.T) {
	const mod = "github.com/lunad/lunad"
	adapters := []string{mod + "/lsp", mod + "/mcp", mod + "/cmd/"}
	// The adapters are given a lunad.Workspace: they link no implementation
	// of it, nor git, the watcher or the cgo parser.
	adapterForbidden := []string{"github.com/go-git/", "github.com/fsnotify/", "github.com/smacker/",
		mod + "/daemon", mod + "/daemon/", mod + "/workspace", mod + "/workspace/", mod + "/gitstore", mod + "/treesitter"}
	cases := []struct {
		pkg       string
		forbidden []string // import paths; one ending in "/" forbids every path below it
		noCgo     bool     // no cgo outside the standard library
		siblings  []string // lunad packages it may import (nil: any)
		stdOnly   bool     // nothing outside the standard library and lunad
		external  []string // if set: outside the standard library and lunad, only these (prefixes)
	}{
		{pkg: "lsp", forbidden: adapterForbidden, noCgo: true},
		{pkg: "mcp", forbidden: adapterForbidden, noCgo: true},
		{pkg: "gitstore", forbidden: []string{"go.lsp.dev/", "github.com/modelcontextprotocol/", "github.com/fsnotify/", mod + "/daemon/rpc", mod + "/lsp", mod + "/mcp", mod + "/workspace", mod + "/workspace/refindex", mod + "/daemon/watch"}},
		// The daemon speaks the socket protocol over any lunad.Workspace: it
		// links neither the service, the store, the parser nor the watcher.
		{pkg: "daemon/rpc", forbidden: append([]string{"github.com/go-git/", "github.com/fsnotify/", "github.com/smacker/", "github.com/modelcontextprotocol/", mod + "/workspace", mod + "/workspace/refindex", mod + "/daemon/watch", mod + "/gitstore", mod + "/treesitter"}, adapters...), noCgo: true},
		// The service speaks no protocol and knows no adapter nor the watcher.
		{pkg: "workspace", forbidden: append([]string{"go.lsp.dev/", "github.com/modelcontextprotocol/", "github.com/fsnotify/", mod + "/daemon/rpc", mod + "/daemon/watch"}, adapters...)},
		// The watcher works over a small interface of the service.
		{pkg: "daemon/watch", siblings: []string{mod, mod + "/internal/gitdir"}, forbidden: []string{"github.com/go-git/", "go.lsp.dev/", "github.com/modelcontextprotocol/"}},
		{pkg: "workspace/refindex", siblings: []string{mod, mod + "/treesitter", mod + "/internal/textpos", mod + "/internal/atomicfile", mod + "/internal/lazyregexp"}},
		{pkg: "workspace/events", siblings: []string{mod}},
		{pkg: ".", siblings: []string{}},
		{pkg: "editor", siblings: []string{}},
		{pkg: "internal/textpos", siblings: []string{}},
		// Regular expressions compiled on first use: the standard library only.
		{pkg: "internal/lazyregexp", siblings: []string{}, noCgo: true, stdOnly: true},
		{pkg: "daemon/exemem", siblings: []string{mod}, stdOnly: true, noCgo: true},
		{pkg: "treesitter", siblings: []string{mod + "/internal/textpos", mod + "/internal/lazyregexp"}},
		// The workflow engine speaks to git only through its Store
		// interface, and to the workspace through Effects.
		{pkg: "runs", forbidden: []string{"github.com/go-git/", "github.com/fsnotify/", "github.com/smacker/", "github.com/modelcontextprotocol/", "go.lsp.dev/"}, noCgo: true, siblings: []string{mod, mod + "/runs/workflow", mod + "/runs/procagent", mod + "/internal/atomicfile", mod + "/internal/lazyregexp"}},
		{pkg: "runs/workflow", siblings: []string{mod}, noCgo: true},
		// A run as people follow it, shared by the adapters: the vocabulary
		// only, so that they may import it.
		{pkg: "runs/follow", siblings: []string{mod, mod + "/internal/atomicfile", mod + "/internal/gitdir"}, forbidden: adapterForbidden, noCgo: true, stdOnly: true},
		// Context compilation reads a Source interface: no store, no parser.
		{pkg: "agents/window", siblings: []string{mod}, noCgo: true},
		{pkg: "runs/procagent", forbidden: []string{"github.com/go-git/", "github.com/fsnotify/", "github.com/smacker/", "github.com/modelcontextprotocol/", "go.lsp.dev/"}, noCgo: true, siblings: []string{mod, mod + "/internal/atomicfile"}},
		// The working memory of an agent run knows only the vocabulary.
		{pkg: "agents/memory", siblings: []string{mod}, noCgo: true},
		// The agents' tool layer stages writes over the workspace's reads.
		{pkg: "agents/tools", noCgo: true, siblings: []string{mod, mod + "/editor", mod + "/agents/llm"}},
		// The router, the workers and the ask workflow's agents: no git, no
		// parser, no protocol; the workspace only through lunad's interfaces.
		// The memory's guards inside lunad's retry policy around a provider.
		{pkg: "agents/guard", noCgo: true, siblings: []string{mod, mod + "/agents/llm", mod + "/agents/memory"}},
		{pkg: "agents/supervisor", noCgo: true, siblings: []string{mod, mod + "/editor", mod + "/agents/llm", mod + "/agents/memory", mod + "/agents/tools", mod + "/agents/guard"}},
		{pkg: "agents/worker", noCgo: true, siblings: []string{mod, mod + "/editor", mod + "/agents/llm", mod + "/agents/memory", mod + "/agents/tools", mod + "/agents/guard"}},
		{pkg: "agents/ask", noCgo: true, siblings: []string{mod, mod + "/editor", mod + "/agents/llm", mod + "/agents/memory", mod + "/agents/tools", mod + "/agents/window", mod + "/agents/worker", mod + "/agents/supervisor", mod + "/agents/guard", mod + "/agents/stage"}},
		// The goal's agents: the sandbox, the policy and the test harness
		// through their types and small interfaces of their own; no git, no
		// parser, no protocol, no engine.
		{pkg: "agents/goal", noCgo: true, siblings: []string{mod, mod + "/editor", mod + "/agents/llm", mod + "/agents/memory", mod + "/agents/tools", mod + "/agents/window", mod + "/agents/guard", mod + "/agents/stage", mod + "/agents/goal/tree", mod + "/agents/policy", mod + "/sandbox", mod + "/sandbox/shim", mod + "/agents/goal/harness", mod + "/internal/lazyregexp"}},
		// A goal's worktree, read and written beneath its root without
		// following a link: the system calls, nothing else.
		{pkg: "agents/goal/tree", siblings: []string{}, noCgo: true, external: []string{"golang.org/x/sys/"}},
		// A stage visit's runtime (its recorded clock, the memory on it, its
		// recorded model calls) knows the vocabulary, the providers' and the
		// working memory's; the guards are the agents' to put around it.
		{pkg: "agents/stage", siblings: []string{mod, mod + "/agents/llm", mod + "/agents/memory"}, stdOnly: true, noCgo: true},
		// The model providers: agents/llm is the vocabulary (root and the
		// standard library only); each SDK is linked by its provider only.
		{pkg: "agents/llm", siblings: []string{mod}, stdOnly: true},
		{pkg: "agents/llm/openai", siblings: []string{mod, mod + "/agents/llm"}, forbidden: []string{"github.com/anthropics/"}},
		{pkg: "agents/llm/process", siblings: []string{mod, mod + "/agents/llm"}, stdOnly: true},
		{pkg: "agents/llm/scripted", siblings: []string{mod, mod + "/agents/llm"}, stdOnly: true},
		{pkg: "agents/llm/providers", siblings: []string{mod, mod + "/agents/llm", mod + "/agents/llm/openai", mod + "/agents/llm/anthropic", mod + "/agents/llm/process", mod + "/agents/llm/scripted"}},
		{pkg: "agents/llm/anthropic", siblings: []string{mod, mod + "/agents/llm"}, forbidden: []string{"github.com/openai/"}},
		// The test harness runs commands through a Runner interface it
		// declares: it knows the sandbox's types, not how it isolates.
		{pkg: "agents/goal/harness", noCgo: true, siblings: []string{mod, mod + "/sandbox", mod + "/sandbox/shim", mod + "/internal/lazyregexp"}},
		// The policy engine: pure decisions over the vocabulary, its file
		// read with toml.
		{pkg: "agents/policy", siblings: []string{mod, mod + "/internal/lazyregexp"}, noCgo: true, external: []string{"github.com/BurntSushi/toml"}},
		// The command sandbox knows only the vocabulary and the kernel.
		{pkg: "sandbox", siblings: []string{mod, mod + "/sandbox/shim", mod + "/internal/lazyregexp"}, noCgo: true, external: []string{"golang.org/x/sys/", "github.com/elastic/go-seccomp-bpf", "golang.org/x/net/bpf"}},
		// The Landlock shim starts for every sandboxed command: the
		// standard library and the system calls, nothing else to
		// initialise, no cgo (it is built with CGO_ENABLED=0).
		{pkg: "sandbox/shim", siblings: []string{}, noCgo: true, external: []string{"golang.org/x/sys/"}},
		{pkg: "cmd/lunad-shim", siblings: []string{mod + "/sandbox/shim"}, noCgo: true, external: []string{"golang.org/x/sys/"}},
		{pkg: "sandbox/shim/shimtest", siblings: []string{}, noCgo: true, stdOnly: true},
		// Owner-only unix sockets and directories: the kernel, nothing else.
		{pkg: "internal/unixsock", siblings: []string{}, noCgo: true, stdOnly: true},
		// Finding a directory's checkout: the vocabulary and the standard
		// library; no git library.
		{pkg: "internal/gitdir", siblings: []string{mod}, noCgo: true, stdOnly: true},
		// Replacing a file in one step: the standard library, nothing else.
		{pkg: "internal/atomicfile", siblings: []string{}, noCgo: true, stdOnly: true},
		// The build's version: the standard library's build information.
		{pkg: "internal/version", siblings: []string{}, noCgo: true, stdOnly: true},
		// The configuration is values: read by the command line and the
		// daemon alike, it links nothing the daemon runs.
		{pkg: "config", noCgo: true, forbidden: []string{"github.com/go-git/", "github.com/fsnotify/", "github.com/smacker/", mod + "/daemon", mod + "/workspace", mod + "/workspace/refindex", mod + "/gitstore", mod + "/treesitter", mod + "/runs", mod + "/agents/ask", mod + "/agents/goal", mod + "/daemon/watch", mod + "/daemon/exemem"}},
		{pkg: "config/configtest", siblings: []string{}, stdOnly: true},
		// The assembled daemon: the service, the engine, the agents, the
		// watcher and the protocol, but no adapter's protocol nor the
		// command line.
		{pkg: "daemon", forbidden: []string{"go.lsp.dev/protocol", mod + "/lsp", mod + "/cmd/"}},
		// The queue checks a stage against its clone's workflow file and runs
		// its command through the sandbox's types.
		{pkg: "runs/natsqueue", forbidden: []string{"github.com/go-git/", "github.com/fsnotify/", "github.com/smacker/", "github.com/modelcontextprotocol/", "go.lsp.dev/"}, noCgo: true, siblings: []string{mod, mod + "/runs/procagent", mod + "/runs/workflow", mod + "/sandbox", mod + "/sandbox/shim", mod + "/internal/atomicfile", mod + "/internal/lazyregexp"}},
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
				if c.stdOnly && !std && path != mod && !strings.HasPrefix(path, mod+"/") {
					t.Errorf("%s links %s; it may link only the standard library and lunad", c.pkg, path)
				}
				if c.external != nil && !std && path != mod && !strings.HasPrefix(path, mod+"/") && !slices.ContainsFunc(c.external, func(p string) bool { return strings.HasPrefix(path, p) }) {
					t.Errorf("%s links %s; outside the standard library and lunad it may link only %v", c.pkg, path, c.external)
				}
				for _, bad := range c.forbidden {
					if path == bad || strings.HasSuffix(bad, "/") && strings.HasPrefix(path, bad) {
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

// TestNothingImportsDaemon: the assembled daemon is the command line's
// alone; no package of the module below it imports it.
func TestNothingImportsDaemon(t *testing.T) {
	const mod = "github.com/lunad/lunad"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if strings.HasPrefix(f[0], mod+"/cmd/") {
			continue
		}
		if slices.Contains(f[1:], mod+"/daemon") {
			t.Errorf("%s imports %s/daemon; only the command line may", f[0], mod)
		}
	}
}

// topLevel is the documented set of top-level directories, each with why
// it is one (docs/architecture.md, "Why the top level is grouped so"). A
// package goes under the part it serves; only these parts, the
// dependencies more than one part uses, and the homes of what is not Go
// sit at the top. Directories whose name starts with a dot (the CI's
// scripts, git's) are tooling, not architecture, and are not listed.
var topLevel = map[string]string{
	"cmd":        "the programs: lunad, whose commands wire the parts for a person at a terminal, and lunad-shim, the Landlock shim",
	"config":     "the workspace's configuration, which the program and the daemon both read",
	"daemon":     "the daemon lunad serve runs, with the parts only it uses: the socket protocol, the watcher, the executable's page trimming",
	"workspace":  "the workspace service, with the parts only it uses: the reference index and the event hub",
	"runs":       "the workflow engine, with its language (workflow) and the ways it runs a stage's command",
	"agents":     "every agent and what only agents use: the policy, the goal's test harness, the model providers",
	"lsp":        "an adapter: the language server over a lunad.Workspace",
	"mcp":        "an adapter: the MCP server over a lunad.Workspace",
	"editor":     "the pure edit engine, used by the service, the agents' tools, the protocol and MCP",
	"gitstore":   "the one package of go-git, which the service and the engine's run log use",
	"treesitter": "the one package of tree-sitter (cgo), which the service and the reference index use",
	"sandbox":    "the one package of bubblewrap, which a goal's commands and a queue worker's stages both run in",
	"internal":   "small helpers with no domain, shared across parts",
	"bench":      "the benchmarks, which drive every part from outside",
	"docs":       "the documentation",
	"editors":    "the editor clients (VS Code, Neovim), outside the Go module",
}

// TestLayout checks that the tree shows the architecture: the top-level
// directories are exactly the documented set, every package has a doc.go
// that holds its package comment, and docs/architecture.md lists every
// package.
func TestLayout(t *testing.T) {
	t.Run("top-level", func(t *testing.T) {
		entries, err := os.ReadDir(".")
		if err != nil {
			t.Fatal(err)
		}
		var found []string
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				found = append(found, e.Name())
				if _, ok := topLevel[e.Name()]; !ok {
					t.Errorf("top-level directory %s/ is not in the documented set: put it under the part it serves, or document it (topLevel, docs/architecture.md)", e.Name())
				}
			}
		}
		for name := range topLevel {
			if !slices.Contains(found, name) {
				t.Errorf("documented top-level directory %s/ does not exist", name)
			}
		}
	})

	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Dir}}", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const mod = "github.com/lunad/lunad"
	arch, err := os.ReadFile(filepath.Join("docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, dir, _ := strings.Cut(line, " ")
		rel := strings.TrimPrefix(strings.TrimPrefix(path, mod), "/")
		if rel == "" {
			rel = "."
		}
		t.Run("doc.go/"+rel, func(t *testing.T) {
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, "doc.go"), nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatalf("%s has no doc.go: every package keeps its package comment in doc.go (%v)", rel, err)
			}
			if f.Doc == nil || strings.TrimSpace(f.Doc.Text()) == "" {
				t.Errorf("%s/doc.go has no package comment", rel)
			}
		})
		if rel != "." && !strings.Contains(string(arch), "`"+rel+"`") {
			t.Errorf("docs/architecture.md does not name package %s: add its line to the package list", rel)
		}
	}
}
