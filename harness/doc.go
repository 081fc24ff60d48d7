// Package harness runs a goal's test commands in the sandbox and reads
// their verdict: go test's -json stream and pytest's JUnit XML are
// parsed into passed, failed, errored and skipped counts with the first
// failures' names and messages; any other runner is judged by its exit
// code. The summary is what the model is fed back after every mutating
// action, kept compact.
package harness
