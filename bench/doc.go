// Package bench holds lunad's end-to-end benchmarks. It has no library
// code: everything is in its _test.go files, run with
//
//	go test ./bench -run '^$' -bench . -benchtime 1x -timeout 30m
//
// BenchmarkEdits generates a 10,000-file workspace (Go, Python and Markdown
// files of 1–4 KB in about 100 nested directories, deterministically),
// commits it with the git CLI, adopts it with gitstore.Init, and then times
// the same sequence of one-line edits, each on its own copy of the
// workspace, made four ways: gitstore's in-process Edit (a durable commit),
// writing the file and running `git commit -q -am` (git's defaults, and
// with core.fsync=committed for a durable git), the `lunad edit` command as
// a whole process, and gitstore's Edit from 8 goroutines at once (group
// commit). It prints a table and reports p50/p95/edits-per-second and the
// ratios as benchmark metrics. The figures are recorded in
// docs/benchmarks.md.
package bench
