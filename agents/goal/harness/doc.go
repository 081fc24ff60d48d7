// Package harness runs a goal's test commands in the sandbox and reads
// their verdict: go test's -json stream and pytest's JUnit XML are
// parsed into passed, failed, errored and skipped counts with the first
// failures' names and messages; any other runner is judged by its exit
// code. The summary is what the model is fed back after every mutating
// action, kept compact.
//
// Run takes the commands as configured ([tests] commands of
// .luna/config.toml, or --test) and runs each through a Runner — in
// lunad a *sandbox.Runner — adding what makes its verdict readable and
// keeps the workspace clean: -json for go test; --junitxml=FILE,
// -p no:cacheprovider and PYTHONDONTWRITEBYTECODE=1 for pytest, FILE in
// a temporary directory of the harness's own that the spec binds
// writable (sandbox.Spec.Binds, at its own path), read back without
// following a symlink. The summary records each command as configured.
//
// ParseGoTest and ParseJUnit read outside input: they never panic, keep
// at most MaxFailures failures with messages of at most MaxMessageLines
// lines and MaxMessageBytes bytes, and hold bounded memory whatever they
// read (ParseGoTest streams; an event line over 1 MiB is skipped).
// Compact writes the few lines the model sees: the verdict and counts,
// each command and how it ended, the first failures' heads.
//
// The package imports the module root and the sandbox's types only
// (TestArchitecture).
package harness
