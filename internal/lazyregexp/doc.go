// Package lazyregexp compiles a package's regular expressions on their
// first use rather than at start-up: every lunad process links every
// package, and compiling all their expressions in package initialisation
// cost a one-shot `lunad edit` a tenth of its CPU. It is the standard
// library's own concern only, so that any package, the parser's included,
// may import it.
package lazyregexp
