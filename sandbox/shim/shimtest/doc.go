// Package shimtest is for tests that run sandboxed commands: it builds
// the Landlock shim (cmd/lunad-shim, CGO_ENABLED=0, as `make build` does)
// where sandbox.New looks for it, so the tests run commands through the
// very shim lunad ships.
package shimtest
