// Command corpusgen regenerates the editor's edit-quality corpus
// (editor/testdata/corpus) from a fixed list of real Go, Python and Markdown
// files and a fixed seed:
//
//	go run ./editor/internal/corpusgen -out editor/testdata/corpus
//
// Each case is an excerpt of a real file, an intended edit of a few of its
// lines, and the SEARCH text damaged the way language models damage it. The
// output is deterministic for a given machine (the source files are the ones
// shipped with the installed toolchains); the corpus is committed, and
// editor/quality_test.go reads only the corpus.
package main
