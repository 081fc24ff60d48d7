package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lunad/lunad/daemon/rpc"
)

// BenchmarkStale times `lunad stale` as a process on the generated
// references tree of -bench.files artifacts (committed, adopted with
// `lunad init`), without a daemon and through one, in the same run:
//
//   - without a daemon, nothing saved: the process builds the index from
//     the parse cache `lunad init` saved and evaluates every reference;
//   - without a daemon, again at the same state: the answer the last
//     process saved;
//   - after a `lunad edit` of a function other artifacts mention (no
//     daemon): evaluated again, then saved;
//   - through a daemon (`lunad serve`), once it has answered a first
//     `lunad stale`: its answer kept in memory.
//
// The repeated runs are -bench.reps each, the median reported; every
// answer at one state is checked to be the same, with and without the
// daemon.
func BenchmarkStale(b *testing.B) {
	bin, root, tree, _ := adoptedTree(b, "stale-tree")
	stale := func() (string, time.Duration) {
		b.Helper()
		cmd := exec.Command(bin, "stale")
		cmd.Dir = root
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("lunad stale: %v\n%s", err, errb.String())
		}
		return out.String(), time.Since(t0)
	}
	repeat := func(want string) time.Duration {
		b.Helper()
		var ds []time.Duration
		for range max(*flagReps, 1) {
			got, d := stale()
			if got != want {
				b.Fatalf("lunad stale answered\n%s\nthen\n%s", want, got)
			}
			ds = append(ds, d)
		}
		return pct(ds, 0.5)
	}
	load0 := loadAvg()

	first, cold := stale()
	saved := repeat(first)

	f, _, _ := editedGoFile(b, root, tree)
	editWithLunad(b, bin, root, f)
	edited, afterEdit := stale()
	if edited == first {
		b.Fatalf("editing %s changed no stale reference", f.path)
	}
	savedAfterEdit := repeat(edited)

	serve := exec.Command(bin, "serve")
	serve.Dir = root
	if err := serve.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		serve.Process.Signal(syscall.SIGTERM)
		serve.Wait()
	}()
	waitDaemon(b, root)
	viaDaemon, daemonFirst := stale()
	if viaDaemon != edited {
		b.Fatalf("through the daemon:\n%s\nwithout:\n%s", viaDaemon, edited)
	}
	daemon := repeat(edited)
	load1 := loadAvg()

	lines := strings.Count(edited, "\n")
	fmt.Printf("\n`lunad stale` as a process, %d artifacts, %d lines of answer (%s); load %s → %s\n\n", len(tree.files), lines, machine(), load0, load1)
	fmt.Printf("| `lunad stale` | ms | vs through the daemon |\n|---|---:|---:|\n")
	for _, r := range []struct {
		name string
		d    time.Duration
	}{
		{"without a daemon, nothing saved (index from lunad init's parse cache, every reference evaluated)", cold},
		{"without a daemon, the answer saved by the last process", saved},
		{"without a daemon, after a `lunad edit` (evaluated again)", afterEdit},
		{"without a daemon, the answer saved after the edit", savedAfterEdit},
		{"through a daemon, its first answer (the saved one, read at its start)", daemonFirst},
		{"through a daemon, its answer kept", daemon},
	} {
		fmt.Printf("| %s | %.1f | %.2f× |\n", r.name, ms(r.d), float64(r.d)/float64(daemon))
	}
	b.ReportMetric(ms(saved), "saved-ms")
	b.ReportMetric(ms(afterEdit), "after-edit-ms")
	b.ReportMetric(ms(daemon), "daemon-ms")
}

// editedGoFile is the first Go file of tree whose edit line is in a
// top-level function that no other Go file defines and that a Markdown
// artifact names in a code span qualified by its package: editing it
// makes that reference stale. It returns the function's name and the
// first Markdown file that names it.
func editedGoFile(b *testing.B, root string, tree *rwTree) (f *rwFile, fn, doc string) {
	var docs [][]byte
	var paths []string
	defined := map[string]int{} // Go function name -> files defining it
	for _, f := range tree.files {
		switch f.lang {
		case rwMD:
			data, err := os.ReadFile(filepath.Join(root, f.path))
			if err != nil {
				b.Fatal(err)
			}
			docs, paths = append(docs, data), append(paths, f.path)
		case rwGo:
			for _, name := range f.funcs {
				defined[name]++
			}
			for _, ty := range f.types {
				for _, name := range ty.methods {
					defined[name]++
				}
			}
		}
	}
	for _, f := range tree.files {
		if f.lang != rwGo || f.editLine == "" {
			continue
		}
		content, err := os.ReadFile(filepath.Join(root, f.path))
		if err != nil {
			b.Fatal(err)
		}
		at := bytes.LastIndex(content[:f.editAt], []byte("\nfunc "))
		if at < 0 || content[at+len("\nfunc ")] == '(' { // none, or a method
			continue
		}
		name := content[at+len("\nfunc "):]
		name = name[:bytes.IndexByte(name, '(')]
		if defined[string(name)] != 1 {
			continue
		}
		span := []byte("`" + path.Base(f.dir) + "." + string(name) + "`")
		if i := slices.IndexFunc(docs, func(d []byte) bool { return bytes.Contains(d, span) }); i >= 0 {
			return f, string(name), paths[i]
		}
	}
	b.Fatal("no Go function of the tree is named in its Markdown")
	return nil, "", ""
}

// editWithLunad changes f's edit line (the first statement of a function)
// with a `lunad edit` process, without a daemon.
func editWithLunad(b *testing.B, bin, root string, f *rwFile) {
	b.Helper()
	search, replace := filepath.Join(scratch, "edit-search"), filepath.Join(scratch, "edit-replace")
	os.WriteFile(search, []byte(f.editLine+"\n"), 0o644)
	os.WriteFile(replace, []byte(editLine(f.lang, f.editIndent, f.editN+1)+"\n"), 0o644)
	if out, err := exec.Command(bin, "--dir", root, "edit", f.path, "--search-file", search, "--replace-file", replace).CombinedOutput(); err != nil {
		b.Fatalf("lunad edit %s: %v\n%s", f.path, err, out)
	}
}

// waitDaemon waits until a daemon serves root.
func waitDaemon(b *testing.B, root string) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		ws, err := rpc.Connect(context.Background(), root, rpc.ConnectOptions{})
		if err == nil {
			ws.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.Fatal("no daemon serves " + root + " after a minute")
}

// loadAvg is the one-minute load average.
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(data))[0]
}
