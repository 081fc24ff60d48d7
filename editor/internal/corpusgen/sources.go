package main

// The fixed list of real files the corpus is cut from. They are files that
// ship with the toolchains installed on the development machine (Go's own
// tree, the CPython 3.11 standard library, Linux perf's Python scripts, the
// README and manual pages of installed tools and Go modules). Changing this
// list, the seed or any of the generator's rules changes the corpus; the
// corpus itself is committed, so tests never need these files.

type srcSpec struct {
	lang lang
	path string
	tabs bool // indented with tabs: usable for the tabs-as-spaces kind
	gen  bool // usable for the general kinds
}

const (
	goroot = "/usr/local/go/"
	cpy    = "/root/.pyenv/versions/3.11.7/lib/python3.11/"
	perf   = "/usr/lib/perf-core/scripts/python/"
	gomod  = "/root/go/pkg/mod/"
	npmdoc = "/usr/lib/node_modules/npm/docs/content/"
)

var sources = []srcSpec{
	// Go: the standard library and the go command (all tab-indented).
	{langGo, goroot + "src/net/http/server.go", true, true},
	{langGo, goroot + "src/net/http/transport.go", true, true},
	{langGo, goroot + "src/encoding/json/decode.go", true, true},
	{langGo, goroot + "src/strings/strings.go", true, true},
	{langGo, goroot + "src/bufio/bufio.go", true, true},
	{langGo, goroot + "src/os/file.go", true, true},
	{langGo, goroot + "src/fmt/print.go", true, true},
	{langGo, goroot + "src/text/template/exec.go", true, true},
	{langGo, goroot + "src/go/parser/parser.go", true, true},
	{langGo, goroot + "src/net/url/url.go", true, true},
	{langGo, goroot + "src/archive/tar/reader.go", true, true},
	{langGo, goroot + "src/compress/gzip/gunzip.go", true, true},
	{langGo, goroot + "src/path/filepath/path.go", true, true},
	{langGo, goroot + "src/flag/flag.go", true, true},
	{langGo, goroot + "src/io/io.go", true, true},
	{langGo, goroot + "src/log/slog/handler.go", true, true},
	{langGo, goroot + "src/database/sql/sql.go", true, true},
	{langGo, goroot + "src/cmd/go/internal/modload/load.go", true, true},

	// Python: CPython's standard library (4-space indentation) ...
	{langPy, cpy + "os.py", false, true},
	{langPy, cpy + "argparse.py", false, true},
	{langPy, cpy + "json/decoder.py", false, true},
	{langPy, cpy + "json/encoder.py", false, true},
	{langPy, cpy + "subprocess.py", false, true},
	{langPy, cpy + "shutil.py", false, true},
	{langPy, cpy + "logging/__init__.py", false, true},
	{langPy, cpy + "http/server.py", false, true},
	{langPy, cpy + "textwrap.py", false, true},
	{langPy, cpy + "configparser.py", false, true},
	{langPy, cpy + "pathlib.py", false, true},
	{langPy, cpy + "tempfile.py", false, true},
	{langPy, cpy + "csv.py", false, true},
	{langPy, cpy + "difflib.py", false, true},
	{langPy, cpy + "zipfile.py", false, true},
	{langPy, cpy + "urllib/parse.py", false, true},
	{langPy, cpy + "functools.py", false, true},
	{langPy, cpy + "dataclasses.py", false, true},
	// ... and tab-indented Python: Go's gdb helpers and Linux perf scripts.
	{langPy, goroot + "src/runtime/runtime-gdb.py", true, true},
	{langPy, perf + "exported-sql-viewer.py", true, false},
	{langPy, perf + "export-to-postgresql.py", true, false},
	{langPy, perf + "export-to-sqlite.py", true, false},
	{langPy, perf + "netdev-times.py", true, false},
	{langPy, perf + "intel-pt-events.py", true, false},
	{langPy, perf + "sched-migration.py", true, false},
	{langPy, perf + "compaction-times.py", true, false},

	// Markdown: design notes, manuals and READMEs.
	{langMD, goroot + "src/runtime/HACKING.md", false, true},
	{langMD, goroot + "src/cmd/compile/README.md", false, true},
	{langMD, goroot + "src/cmd/compile/abi-internal.md", false, true},
	{langMD, goroot + "doc/godebug.md", false, true},
	{langMD, goroot + "src/math/big/calibrate.md", false, true},
	{langMD, "/root/.pyenv/README.md", false, true},
	{langMD, "/root/.pyenv/COMMANDS.md", false, true},
	{langMD, "/root/.pyenv/CHANGELOG.md", false, true},
	{langMD, "/root/.pyenv/plugins/python-build/README.md", false, true},
	{langMD, npmdoc + "commands/npm-install.md", false, true},
	{langMD, npmdoc + "commands/npm-audit.md", false, true},
	{langMD, npmdoc + "using-npm/config.md", false, true},
	{langMD, npmdoc + "using-npm/scripts.md", false, true},
	{langMD, npmdoc + "configuring-npm/package-json.md", false, true},
	{langMD, gomod + "github.com/cyphar/filepath-securejoin@v0.6.1/CHANGELOG.md", false, true},
	{langMD, gomod + "github.com/!burnt!sushi/toml@v1.6.0/internal/toml-test/specs/v1.0.0.md", false, true},
	{langMD, "/usr/lib/google-cloud-sdk/platform/gsutil/third_party/charset_normalizer/README.md", false, true},
	// Markdown with tab-indented code.
	{langMD, gomod + "github.com/emirpasic/gods@v1.18.1/README.md", true, true},
	{langMD, gomod + "dario.cat/mergo@v1.0.0/README.md", true, false},
	{langMD, gomod + "github.com/skeema/knownhosts@v1.3.1/README.md", true, false},
	{langMD, goroot + "src/cmd/compile/internal/ssa/README.md", true, false},
	{langMD, gomod + "github.com/go-git/go-billy/v5@v5.9.2/README.md", true, false},
	{langMD, gomod + "github.com/!burnt!sushi/toml@v1.6.0/README.md", true, false},
}

// displayPath shortens a source path for the case header.
func displayPath(p string) string {
	for _, r := range []struct{ from, to string }{
		{goroot, "$GOROOT/"},
		{cpy, "cpython-3.11/Lib/"},
		{perf, "linux/tools/perf/scripts/python/"},
		{gomod, "$GOMODCACHE/"},
		{npmdoc, "npm/docs/content/"},
		{"/usr/lib/google-cloud-sdk/platform/gsutil/third_party/", "gsutil/third_party/"},
		{"/root/.pyenv/", "pyenv/"},
	} {
		if len(p) >= len(r.from) && p[:len(r.from)] == r.from {
			return r.to + p[len(r.from):]
		}
	}
	return p
}
