// Package casefile reads and writes the edit-quality corpus's case files
// (editor/testdata/corpus): txtar archives whose header of "key: value"
// lines says how to restore what txtar cannot hold. Sections are stored
// LF-terminated; "noeol:" lists the sections whose final newline is to be
// dropped, then "crlf:" those whose LFs become CRLFs. The generator
// (editor/internal/corpusgen) and the scorer (editor's quality tests) share it.
package casefile
