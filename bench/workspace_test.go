package bench

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad/gitstore"
)

var (
	flagFiles = flag.Int("bench.files", 10000, "files in the generated workspace")
	flagEdits = flag.Int("bench.edits", 200, "edits in the sequence (each on a different file)")
	flagKeep  = flag.Bool("bench.keep", false, "keep the generated workspaces (their directory is printed)")
	flagDir   = flag.String("bench.dir", "", "work in this directory and keep it; a template workspace already there is reused")
	flagOnly  = flag.String("bench.only", "", "comma-separated ways to measure (a,a',b,b',c,d); default all")
	flagSync  = flag.Duration("bench.indexsync", 0, "gitstore.Options.IndexSyncDelay of the in-process stores (`lunad serve` sets 50ms: each write then patches its index entries before it answers)")
	flagHist  = flag.Int("bench.history", 0, "commits of history (a person's, each changing nothing) the generated repository has before adoption, as a user's repository has")
)

// scratch holds every workspace of this run; TestMain removes it.
var scratch string

func TestMain(m *testing.M) {
	flag.Parse()
	if *flagDir != "" {
		scratch, _ = filepath.Abs(*flagDir)
		os.MkdirAll(scratch, 0o755)
	}
	code := m.Run()
	if scratch != "" {
		if *flagKeep || *flagDir != "" {
			fmt.Println("workspaces kept in", scratch)
		} else {
			os.RemoveAll(scratch)
		}
	}
	os.Exit(code)
}

// template is the generated, adopted workspace every measurement copies.
type template struct {
	dir     string
	files   []string          // generated files, in generation order
	ids     map[string]string // path -> artifact ID
	setup   time.Duration     // generation + git add/commit + adoption
	adopt   time.Duration     // gitstore.Init alone
	tracked int               // files git tracks after adoption
	plain   string            // the same repository before adoption (no lunad metadata), packed
}

var (
	templateOnce sync.Once
	tmpl         *template
	tmplErr      error
)

func getTemplate() (*template, error) {
	templateOnce.Do(func() { tmpl, tmplErr = makeTemplate(*flagFiles) })
	return tmpl, tmplErr
}

// gitEnv is the environment of every git command: no user or system
// configuration, a fixed identity, and no automatic gc (a detached
// `git gc --auto` started by one measured commit would slow the next ones
// and collide with the setup's own gc).
func gitEnv() []string {
	home := filepath.Join(scratch, "home")
	os.MkdirAll(home, 0o755)
	return append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=Bench", "GIT_COMMITTER_EMAIL=bench@example.com",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=gc.auto", "GIT_CONFIG_VALUE_0=0")
}

func run(dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, errb.String())
	}
	return nil
}

func makeTemplate(n int) (*template, error) {
	var err error
	if scratch == "" {
		if scratch, err = os.MkdirTemp("", "lunad-bench-"); err != nil {
			return nil, err
		}
	}
	t0 := time.Now()
	t := &template{dir: filepath.Join(scratch, "template")}
	if _, err := os.Stat(filepath.Join(t.dir, ".git", "luna")); err == nil {
		return loadTemplate(t, n)
	}
	if t.files, err = generate(t.dir, n, true); err != nil {
		return nil, err
	}
	for _, c := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "generated workspace"}} {
		if err := run(t.dir, "git", c...); err != nil {
			return nil, err
		}
	}
	if err := addHistory(t.dir, *flagHist); err != nil {
		return nil, err
	}
	// The repository as its user had it, before adoption: what `git commit`
	// is compared with (adoption doubles the tracked files).
	t.plain = filepath.Join(scratch, "template-plain")
	os.RemoveAll(t.plain)
	if err := run(scratch, "cp", "-a", t.dir, t.plain); err != nil {
		return nil, err
	}
	if err := run(t.plain, "git", "gc", "-q"); err != nil {
		return nil, err
	}
	t1 := time.Now()
	s, rep, err := gitstore.Init(t.dir, benchOptions())
	if err != nil {
		return nil, fmt.Errorf("gitstore.Init: %w", err)
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	t.adopt = time.Since(t1)
	t.ids = map[string]string{}
	for _, a := range rep.Adopted {
		t.ids[a.Path] = a.ID
	}
	if len(t.ids) != n {
		return nil, fmt.Errorf("adopted %d of %d files (%d skipped)", len(t.ids), n, len(rep.Skipped))
	}
	// Pack the objects, as any repository of this size is: otherwise the
	// first `git commit` starts an automatic gc of the ~25,000 loose objects.
	if err := run(t.dir, "git", "gc", "-q"); err != nil {
		return nil, err
	}
	out, err := exec.Command("git", "-C", t.dir, "ls-files").Output()
	if err != nil {
		return nil, err
	}
	t.tracked = bytes.Count(out, []byte("\n"))
	t.setup = time.Since(t0)
	return t, nil
}

// addHistory adds n commits on top of the repository at dir, each by a
// person and changing nothing (git fast-import: seconds for thousands).
func addHistory(dir string, n int) error {
	if n <= 0 {
		return nil
	}
	var stream bytes.Buffer
	for i := range n {
		msg := fmt.Sprintf("a person's commit %d\n", i)
		fmt.Fprintf(&stream, "commit refs/heads/main\ncommitter Person <person@example.com> %d +0000\ndata %d\n%s", 1700000000+i, len(msg), msg)
		if i == 0 {
			stream.WriteString("from refs/heads/main^0\n")
		}
		stream.WriteString("\n")
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, gitEnv(), &stream
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git fast-import: %v: %s", err, out)
	}
	return nil
}

// loadTemplate reuses a template an earlier run left in -bench.dir.
func loadTemplate(t *template, n int) (*template, error) {
	var err error
	t.plain = filepath.Join(scratch, "template-plain")
	if _, err := os.Stat(filepath.Join(t.plain, ".git")); err != nil {
		return nil, fmt.Errorf("the template in %s has no repository before adoption (%s): remove %s to rebuild it", t.dir, t.plain, t.dir)
	}
	if out, err := exec.Command("git", "-C", t.plain, "rev-list", "--count", "HEAD").Output(); err != nil || strings.TrimSpace(string(out)) != fmt.Sprint(1+*flagHist) {
		return nil, fmt.Errorf("the template in %s has %s commits, not the %d of -bench.history %d: remove %s to rebuild it", t.dir, strings.TrimSpace(string(out)), 1+*flagHist, *flagHist, t.dir)
	}
	if t.files, err = generate(t.dir, n, false); err != nil {
		return nil, err
	}
	s, err := gitstore.Open(t.dir, benchOptions())
	if err != nil {
		return nil, err
	}
	defer s.Close()
	as, err := s.List(context.Background())
	if err != nil {
		return nil, err
	}
	t.ids = map[string]string{}
	for _, a := range as {
		t.ids[a.Path] = a.ID
	}
	for _, p := range t.files {
		if t.ids[p] == "" {
			return nil, fmt.Errorf("the template in %s is not one of %d files (no artifact %s)", t.dir, n, p)
		}
	}
	out, err := exec.Command("git", "-C", t.dir, "ls-files").Output()
	t.tracked = bytes.Count(out, []byte("\n"))
	return t, err
}

func benchOptions() gitstore.Options {
	return gitstore.Options{Human: gitstore.Signature{Name: "Bench", Email: "bench@example.com"}, LockTimeout: time.Minute, IndexSyncDelay: *flagSync}
}

// copyOf makes an identical copy of the template (cp -a) and refreshes the
// copy's git index, whose stat data no longer matches the copied files, so
// that no measurement pays for that once.
func copyOf(t *template, name string) (string, error) { return copyRepo(t.dir, name) }

// copyRepo is copyOf for any repository src.
func copyRepo(src, name string) (string, error) {
	dst := filepath.Join(scratch, name)
	os.RemoveAll(dst)
	if err := run(scratch, "cp", "-a", src, dst); err != nil {
		return "", err
	}
	if err := run(dst, "git", "update-index", "-q", "--refresh"); err != nil {
		return "", err
	}
	return dst, nil
}

// generate writes n files of 1–4 KB (40% Go, 35% Python, 25% Markdown) into
// 100 directories two levels deep. Line 3 of every file is a marker unique
// in the workspace, the line the edits change.
func generate(dir string, n int, write bool) ([]string, error) {
	rng := rand.New(rand.NewPCG(20260102, 1))
	tops := []string{"api", "cmd", "docs", "internal", "lib", "pkg", "scripts", "tests", "tools", "web"}
	subs := []string{"auth", "cache", "config", "core", "db", "http", "log", "queue", "store", "util"}
	var dirs []string
	for _, t := range tops {
		for _, s := range subs {
			dirs = append(dirs, t+"/"+s)
		}
	}
	files := make([]string, 0, n)
	for i := range n {
		d := dirs[i%len(dirs)]
		var ext string
		switch r := rng.IntN(100); {
		case r < 40:
			ext = ".go"
		case r < 75:
			ext = ".py"
		default:
			ext = ".md"
		}
		p := fmt.Sprintf("%s/%s_%05d%s", d, words[rng.IntN(len(words))], i, ext)
		content := genContent(rng, p, ext, i, 1024+rng.IntN(3*1024))
		files = append(files, p)
		if !write {
			continue
		}
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(full, content, 0o644); err != nil {
			return nil, err
		}
	}
	return files, nil
}

var words = strings.Fields(`alpha beta gamma delta config parse load store fetch merge split render handle
	update create delete index query token session buffer stream record event worker client server
	cache entry value option result error reader writer scanner builder manager`)

func marker(i int) string { return fmt.Sprintf("lunad-bench-marker-%05d", i) }

func genContent(rng *rand.Rand, p, ext string, i, size int) []byte {
	var b bytes.Buffer
	w := func() string { return words[rng.IntN(len(words))] }
	switch ext {
	case ".go":
		fmt.Fprintf(&b, "package %s\n\n// %s\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\n", filepath.Base(filepath.Dir(p)), marker(i))
		for f := 0; b.Len() < size; f++ {
			name := w() + strings.ToUpper(w()[:1]) + w()[1:]
			fmt.Fprintf(&b, "// %s%d %ss the %s of a %s.\nfunc %s%d(in []string, n int) (string, error) {\n", name, f, w(), w(), w(), name, f)
			fmt.Fprintf(&b, "\tif n < %d {\n\t\treturn \"\", fmt.Errorf(\"%s: n = %%d\", n)\n\t}\n", rng.IntN(100), w())
			fmt.Fprintf(&b, "\tparts := make([]string, 0, len(in))\n\tfor _, s := range in {\n\t\tparts = append(parts, strings.TrimSpace(s)+%q)\n\t}\n", w())
			fmt.Fprintf(&b, "\treturn strings.Join(parts, %q), nil\n}\n\n", ", ")
		}
	case ".py":
		fmt.Fprintf(&b, "\"\"\"%s %s module.\"\"\"\n\n# %s\n\nimport os\nimport re\n\n", w(), w(), marker(i))
		for f := 0; b.Len() < size; f++ {
			fmt.Fprintf(&b, "\ndef %s_%s_%d(items, limit=%d):\n    \"\"\"%s the %s of each item.\"\"\"\n", w(), w(), f, rng.IntN(500), w(), w())
			fmt.Fprintf(&b, "    out = []\n    for item in items:\n        if len(out) >= limit:\n            break\n        out.append(re.sub(r\"%s\", \"%s\", str(item)))\n    return out\n\n", w(), w())
		}
	default:
		fmt.Fprintf(&b, "# %s %s\n\n<!-- %s -->\n\n", strings.ToUpper(w()[:1])+w()[1:], w(), marker(i))
		for s := 0; b.Len() < size; s++ {
			if s%3 == 0 {
				fmt.Fprintf(&b, "## %s %s\n\n", w(), w())
			}
			for l := 0; l < 4; l++ {
				for k := 0; k < 10; k++ {
					b.WriteString(w())
					b.WriteByte(' ')
				}
				b.WriteString(w() + ".\n")
			}
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}

// commitTree makes root a git repository with its files in one commit,
// made with the git CLI.
func commitTree(b *testing.B, root string) {
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "tree"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// adoptedTree builds lunad and generates the references tree of
// -bench.files files in scratch/name, committed with the git CLI and
// adopted with `lunad init` (which takes adopt).
func adoptedTree(b *testing.B, name string) (bin, root string, tree *rwTree, adopt time.Duration) {
	var err error
	if scratch == "" {
		if scratch, err = os.MkdirTemp("", "lunad-bench-"); err != nil {
			b.Fatal(err)
		}
	}
	if bin, err = buildLunad(); err != nil {
		b.Fatal(err)
	}
	root = filepath.Join(scratch, name)
	os.RemoveAll(root)
	if tree, err = generateRefsTree(root, *flagFiles); err != nil {
		b.Fatal(err)
	}
	commitTree(b, root)
	t0 := time.Now()
	if out, err := exec.Command(bin, "--dir", root, "init").CombinedOutput(); err != nil {
		b.Fatalf("lunad init: %v\n%s", err, out)
	}
	return bin, root, tree, time.Since(t0)
}
