package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/lunad/lunad/internal/wstest"
)

// The lunad binary the end-to-end tests run, built once per test binary.
var (
	lunadOnce sync.Once
	lunadDir  string
	lunadBin  string
	lunadErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if lunadDir != "" {
		os.RemoveAll(lunadDir)
	}
	os.Exit(code)
}

// buildLunad builds ./cmd/lunad (once) and returns the binary's path.
func buildLunad(t *testing.T) string {
	t.Helper()
	lunadOnce.Do(func() {
		lunadDir, lunadErr = os.MkdirTemp("", "lunad-lsp-test-")
		if lunadErr != nil {
			return
		}
		lunadBin = filepath.Join(lunadDir, "lunad")
		out, err := exec.Command("go", "build", "-o", lunadBin, "../cmd/lunad").CombinedOutput()
		if err != nil {
			lunadErr = fmt.Errorf("go build ./cmd/lunad: %v\n%s", err, out)
		}
	})
	if lunadErr != nil {
		t.Fatal(lunadErr)
	}
	return lunadBin
}

// e2eEnv is the environment of every process the Neovim test starts: a
// private HOME and XDG directories (Neovim's LSP log lands in tmp), no
// system git config, a fixed author.
func e2eEnv(tmp string, extra ...string) []string {
	home := filepath.Join(tmp, "home")
	return append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local/share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local/state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_RUNTIME_DIR=" + filepath.Join(tmp, "run"),
		"GIT_CONFIG_NOSYSTEM=1",
		"LANG=C.UTF-8",
		"LUNAD_AUTHOR_NAME=Ada Lovelace",
		"LUNAD_AUTHOR_EMAIL=ada@example.com",
		"LUNAD_LOCK_TIMEOUT=5s",
		// A daemon that `lunad lsp` or the CLI starts for the workspace
		// exits soon after the test.
		"LUNAD_IDLE_TIMEOUT=3s",
	}, extra...)
}

// step is one line of the Lua script's results.
type step struct {
	Step  string          `json:"step"`
	OK    bool            `json:"ok"`
	Error string          `json:"error"`
	Raw   json.RawMessage `json:"-"`
}

// nvimRun is a finished Neovim run: its steps and what to show on failure.
type nvimRun struct {
	t      *testing.T
	steps  map[string]step
	order  []string
	report string
}

// get returns a step's result decoded into v, failing the test (with
// everything the run left behind) if the step is missing or failed.
func (r *nvimRun) get(name string, v any) {
	r.t.Helper()
	s, ok := r.steps[name]
	if !ok {
		r.t.Fatalf("step %q did not run (steps run: %s)\n%s", name, strings.Join(r.order, ", "), r.report)
	}
	if !s.OK {
		r.t.Fatalf("step %q failed: %s\n%s", name, s.Error, r.report)
	}
	if v != nil {
		if err := json.Unmarshal(s.Raw, v); err != nil {
			r.t.Fatalf("step %q: %v in %s", name, err, s.Raw)
		}
	}
}

// TestNvim drives `lunad lsp` from a real, headless Neovim through the
// plugin in editors/nvim (lsp/testdata/nvim/e2e.lua): go to definition
// across artifacts (UTF-16 columns), hover, lenses, a stale diagnostic
// after `lunad edit` in another process, luna.undo clearing it and
// updating the open buffer, and luna.runWorkflow reporting a run as $/progress
// until it completes.
func TestNvim(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the Neovim end-to-end test starts nvim and lunad processes")
	}
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Fatal("nvim is not on PATH: install neovim (apt-get install neovim); .ci/run does")
	}
	if _, err := exec.LookPath("timeout"); err != nil {
		t.Fatal("timeout (coreutils) is not on PATH")
	}
	bin := buildLunad(t)
	script, err := filepath.Abs(filepath.Join("testdata", "nvim", "e2e.lua"))
	if err != nil {
		t.Fatal(err)
	}
	plugin, err := filepath.Abs(filepath.Join("..", "editors", "nvim"))
	if err != nil {
		t.Fatal(err)
	}

	// Not t.TempDir: an auto-started daemon may still be writing in the
	// workspace when the test ends; retry the removal for a while.
	tmp, err := os.MkdirTemp("", "lunad-nvim-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		var err error
		for i := 0; i < 100; i++ {
			if err = os.RemoveAll(tmp); err == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("remove %s: %v", tmp, err)
	})
	ws, in, syncDir := filepath.Join(tmp, "w"), filepath.Join(tmp, "in"), filepath.Join(tmp, "sync")
	for _, d := range []string{ws, in, syncDir, filepath.Join(tmp, "home"), filepath.Join(tmp, "run")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env := e2eEnv(tmp)
	lunadCmd := func(ctx context.Context, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, bin, append(args, "--dir", ws)...)
		cmd.Dir, cmd.Env = ws, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	write := func(name, content string) string {
		p := filepath.Join(in, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, args := range [][]string{
		{"init"},
		{"create", "--title", "config", "--path", "config.py", "--content-file", write("config.py", configPy)},
		{"create", "--title", "Guide", "--path", "guide.md", "--content-file", write("guide.md", guideMd)},
	} {
		if out, err := lunadCmd(ctx, args...); err != nil {
			t.Fatalf("lunad %q: %v\n%s", args, err, out)
		}
	}

	wstest.AddWorkflows(t, ws)

	results := filepath.Join(tmp, "results.jsonl")
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "timeout", "60", nvim, "--headless", "--clean", "-n", "-c", "luafile "+script)
	cmd.Dir = ws
	cmd.Env = append(env, "LUNAD_NVIM_OUT="+results, "LUNAD_NVIM_SYNC="+syncDir, "LUNAD_NVIM_WS="+ws,
		"LUNAD_NVIM_BIN="+bin, "LUNAD_NVIM_PLUGIN="+plugin)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// timeout passes SIGTERM on to nvim, which stops its language server.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	// When Neovim is ready, edit config.py with lunad in another process
	// and tell Neovim how it went.
	var editOut string
	var waitErr error
	exited := false
	deadline := time.After(40 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
wait:
	for {
		select {
		case waitErr = <-done:
			exited = true
			break wait
		case <-deadline:
			break wait
		case <-tick.C:
			if _, err := os.Stat(filepath.Join(syncDir, "ready")); err != nil {
				continue
			}
			out, err := lunadCmd(ctx, "edit", "config.py",
				"--search-file", write("search", "        return tomllib.load(f)\n"),
				"--replace-file", write("replace", "        return tomllib.load(f) or {}\n"),
				"--agent", "coder")
			editOut = out
			name := "edited"
			if err != nil {
				name, out = "edit-failed", fmt.Sprintf("%v\n%s", err, out)
			}
			if err := os.WriteFile(filepath.Join(syncDir, name+".tmp"), []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(filepath.Join(syncDir, name+".tmp"), filepath.Join(syncDir, name)); err != nil {
				t.Fatal(err)
			}
			break wait
		}
	}
	if !exited {
		select {
		case waitErr = <-done:
		case <-ctx.Done():
			t.Fatalf("nvim did not exit\nstdout:\n%s\nstderr:\n%s", &stdout, &stderr)
		}
	}

	r := &nvimRun{t: t, steps: map[string]step{}}
	if f, err := os.Open(results); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var s step
			if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
				t.Errorf("results line %q: %v", sc.Text(), err)
				continue
			}
			s.Raw = append(json.RawMessage(nil), sc.Bytes()...)
			r.steps[s.Step] = s
			r.order = append(r.order, s.Step)
		}
		f.Close()
	}
	var rep strings.Builder
	fmt.Fprintf(&rep, "nvim exit: %v\nresults:\n", waitErr)
	for _, name := range r.order {
		fmt.Fprintf(&rep, "  %s\n", r.steps[name].Raw)
	}
	fmt.Fprintf(&rep, "lunad edit output:\n%s\nnvim stdout:\n%s\nnvim stderr:\n%s\n", editOut, &stdout, &stderr)
	for _, log := range []string{"home/.cache/nvim/lsp.log", "home/.local/state/nvim/lsp.log", "w/.git/luna/lunad.log"} {
		if b, err := os.ReadFile(filepath.Join(tmp, log)); err == nil {
			if len(b) > 8000 {
				b = b[len(b)-8000:]
			}
			fmt.Fprintf(&rep, "%s (tail):\n%s\n", log, b)
		}
	}
	r.report = rep.String()
	if e, ok := r.steps["error"]; ok {
		t.Fatalf("the Lua script raised an error: %s\n%s", e.Error, r.report)
	}

	cfgURI := string(uri.File(filepath.Join(ws, "config.py")))

	var version struct{ Nvim string }
	r.get("version", &version)
	t.Logf("Neovim %s", version.Nvim)

	var plug struct {
		Commands      []string
		ClientCommand bool `json:"client_command"`
		Root          string
	}
	r.get("plugin", &plug)
	if len(plug.Commands) != 8 || !plug.ClientCommand || plug.Root != ws {
		t.Errorf("plugin: commands %v, luna.editFromClipboard and luna.askPrompt handlers %v, root %q (want 8 commands, the handlers, %q)", plug.Commands, plug.ClientCommand, plug.Root, ws)
	}

	var ini struct {
		Root, Name string
	}
	r.get("initialized", &ini)
	if ini.Root != ws || ini.Name != "lunad" {
		t.Errorf("client %q at root %q, want lunad at %q", ini.Name, ini.Root, ws)
	}

	var def struct {
		URI               string
		Line, Character   int
		Bytecol, Utf16col int
	}
	r.get("definition", &def)
	// 😀 and 𝄞 are four bytes and two UTF-16 units each, then " Call `".
	if def.Bytecol != 15 || def.Utf16col != 11 {
		t.Errorf("parse_config at byte %d, UTF-16 %d; want 15, 11", def.Bytecol, def.Utf16col)
	}
	if def.URI != cfgURI || def.Line != 3 {
		t.Errorf("definition at %s:%d, want %s:3 (the def line)", def.URI, def.Line, cfgURI)
	}
	var jump struct {
		File string
		Line int
	}
	r.get("jump", &jump)
	if jump.File != filepath.Join(ws, "config.py") || jump.Line != 4 {
		t.Errorf("after the jump: %s line %d, want config.py line 4", jump.File, jump.Line)
	}
	r.get("config_open", nil)

	var hover struct{ Text string }
	r.get("hover", &hover)
	for _, want := range []string{"parse_config", "config.py"} {
		if !strings.Contains(hover.Text, want) {
			t.Errorf("hover %q does not mention %q", hover.Text, want)
		}
	}

	var lens struct{ Titles []string }
	r.get("codelens", &lens)
	if len(lens.Titles) == 0 || lens.Titles[0] != "v1 · 1 dependent" {
		t.Errorf("code lenses on config.py = %q, want the header \"v1 · 1 dependent\" first", lens.Titles)
	}

	var hist struct{ Lines []string }
	r.get("history", &hist)
	if len(hist.Lines) != 1 || !strings.HasPrefix(hist.Lines[0], "v1 ") || !strings.Contains(hist.Lines[0], "create") {
		t.Errorf(":LunaHistory on config.py showed %q, want one line for v1 (create)", hist.Lines)
	}
	r.get("clipboard_edit", nil)

	r.get("ready", nil)
	r.get("edited", nil)

	type diag struct {
		Lnum, Col, Severity int
		Message             string
	}
	var stale struct {
		Diagnostics []diag
		Raw         struct {
			Severity int
			Message  string
			Range    struct {
				Start struct{ Line, Character int }
			}
		}
	}
	r.get("stale", &stale)
	if len(stale.Diagnostics) != 1 {
		t.Errorf("diagnostics on guide.md = %+v, want one", stale.Diagnostics)
	} else if d := stale.Diagnostics[0]; d.Severity != 2 || !strings.Contains(d.Message, "parse_config") || d.Lnum != 2 || d.Col != 14 {
		// Neovim converts the server's UTF-16 column 10 to byte column 14.
		t.Errorf("diagnostic = %+v, want a warning about parse_config at line 2, byte column 14", d)
	}
	if s := stale.Raw; s.Severity != 2 || !strings.Contains(s.Message, "parse_config in config.py changed in v2") || s.Range.Start.Line != 2 || s.Range.Start.Character != 10 {
		t.Errorf("published diagnostic = %+v, want a warning \"parse_config in config.py changed in v2 …\" at 2:10 (UTF-16)", s)
	}

	var list struct {
		Items []struct {
			File, Text, Type string
			Lnum, Col        int
		}
	}
	r.get("stale_list", &list)
	if len(list.Items) != 1 {
		t.Errorf(":LunaStale in config.py listed %+v, want guide.md's stale reference", list.Items)
	} else if it := list.Items[0]; it.File != filepath.Join(ws, "guide.md") || it.Lnum != 3 || it.Col != 15 || it.Type != "W" || !strings.Contains(it.Text, "parse_config") {
		t.Errorf(":LunaStale item %+v, want a warning at guide.md:3:15 about parse_config", it)
	}

	r.get("buffer_after_edit", nil)
	r.get("undo", nil)
	r.get("cleared", nil)
	var after struct {
		Buffer   []string
		Modified bool
	}
	r.get("buffer_after_undo", &after)
	if got := strings.Join(after.Buffer, "\n") + "\n"; got != configPy {
		t.Errorf("config.py's buffer after the undo = %q, want %q", got, configPy)
	}
	if after.Modified {
		t.Errorf("config.py's buffer is 'modified' after the undo although it equals the file lunad wrote")
	}

	var started struct{ ID, Status string }
	r.get("run_started", &started)
	if started.ID == "" || started.Status != "running" {
		t.Errorf("luna.runWorkflow answered %+v, want the run's ID, running", started)
	}
	var prog struct {
		Progress []struct{ Kind, Title, Message string }
	}
	r.get("run_progress", &prog)
	var got []string
	for _, p := range prog.Progress {
		got = append(got, strings.Join(slices.DeleteFunc([]string{p.Kind, p.Title, p.Message}, func(f string) bool { return f == "" }), " "))
	}
	want := []string{"begin lunad: run review " + started.ID + ": started", "report " + started.ID + ": stage 1, draft",
		"report " + started.ID + ": stage 2, publish", "end " + started.ID + ": completed: draft → publish"}
	if !slices.Equal(got, want) {
		t.Errorf("$/progress of the run in Neovim:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var shown struct {
		Status string
		Path   []string
	}
	r.get("run_shown", &shown)
	if shown.Status != "completed" || !slices.Equal(shown.Path, []string{"draft", "publish"}) {
		t.Errorf("luna.runs {id} = %+v, want completed through draft and publish", shown)
	}

	var end struct {
		ClientsStopped bool `json:"clients_stopped"`
	}
	r.get("done", &end)
	if !end.ClientsStopped {
		t.Errorf("the lunad client did not stop within 5s of stop_client")
	}
	if waitErr != nil {
		t.Errorf("nvim: %v\n%s", waitErr, r.report)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "config.py")); string(got) != configPy {
		t.Errorf("config.py after the undo = %q", got)
	}
}
