// Package wstest holds the helpers the tests of the workspace service, the
// watcher and the daemon share: a Service on a fresh workspace with a fixed
// clock and IDs, artifacts made and read in one line, and git run as a
// person would. Only tests import it.
package wstest
