# lunad — the two commands a new machine needs:
#   make run DIR=/path/to/project   make or adopt the workspace at DIR and list its artifacts
#   make test                       every test (vet, unit, integration, crash, MCP and editor clients, fuzz seeds and short fuzzing)

GO      ?= go
DIR     ?= $(CURDIR)
# A count, not a duration: with -fuzztime as a duration, Go 1.26's fuzz
# coordinator can fail a target at the deadline with "context deadline
# exceeded" and no failing input (golang/go#75804, fixed in Go 1.27).
# 50,000 executions take 1-35 s per target here (about a minute in all).
# Minimizing each new interesting input is bounded by a count too: by
# default it runs for up to 60 s per input, and a target whose inputs are
# slow to run (FuzzEncodePack writes a pack file per input) spent minutes
# minimizing, close to the test timeout.
FUZZTIME ?= 50000x
BIN     := bin/lunad
# Release builds: no file paths of this machine, no symbol table or DWARF.
RELEASE := -trimpath -ldflags='-s -w'

.PHONY: build run test unit fuzz vscode bench quality clean

# lunad-shim, the Landlock shim a sandboxed command starts through, goes
# next to lunad, where lunad looks for it first; no cgo, so it is static
# and starts in about a millisecond.
build:
	$(GO) build $(RELEASE) -o $(BIN) ./cmd/lunad
	CGO_ENABLED=0 $(GO) build $(RELEASE) -o bin/lunad-shim ./cmd/lunad-shim

run: build
	./$(BIN) --dir "$(DIR)" init
	./$(BIN) --dir "$(DIR)" list

test: unit fuzz vscode

# The MCP end-to-end test (cmd/lunad/mcp_client_test.go) drives lunad with
# the npm MCP client, and the conformance test (mcp_conformance_test.go)
# with the official MCP conformance suite and the Node 22 it needs, both
# installed here from their lockfiles.
unit:
	npm ci --prefix cmd/lunad/testdata/mcpclient
	npm ci --prefix cmd/lunad/testdata/mcpconformance --no-audit --no-fund
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

# Each fuzz target runs FUZZTIME executions; the seeds in testdata/fuzz also run in `unit`.
fuzz:
	@set -e; for pkg in . ./editor ./daemon/exemem ./gitstore ./treesitter ./mcp ./runs ./runs/procagent ./runs/natsqueue ./runs/workflow ./agents/policy ./agents/ask ./agents/goal ./agents/goal/tree ./agents/llm/process ./agents/llm/scripted ./agents/memory ./agents/supervisor ./agents/tools ./agents/window ./agents/goal/harness ./sandbox ./sandbox/shim ./daemon/rpc ./cmd/lunad; do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$f"; \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 200x $$pkg; \
	  done; \
	done

# The VS Code extension: install the locked dependencies, compile, package
# editors/vscode/lunad.vsix (docs/editors.md).
vscode:
	cd editors/vscode && npm ci && npm run compile && npm run package

# Benchmarks: edit quality corpus, the reference graph's precision and recall
# on the labelled corpus (bench/testdata/refcorpus), commits vs the git CLI, the reference index
# vs universal-ctags (installed here if missing; needs root for apt-get), the
# workflow engine on the DSMO paper's workloads vs two baselines (BenchmarkRuns),
# token counting of long runs of one character class (linear, BenchmarkCountLongRun).
# Figures go to docs/benchmarks.md.
bench: quality
	command -v ctags >/dev/null && ctags --version | grep -q 'Universal Ctags' || (apt-get update -qq && apt-get install -y -qq universal-ctags)
	$(GO) test ./bench -run '^TestReferenceCorpus$$' -count=1 -v
	$(GO) test ./bench -run '^$$' -bench . -benchtime 1x -timeout 30m
	$(GO) test ./agents/window -run '^$$' -bench CountLongRun -benchtime 5x

quality:
	LUNAD_QUALITY_REPORT=1 $(GO) test -count=1 ./editor -run TestEditQuality -v

clean:
	rm -rf bin
