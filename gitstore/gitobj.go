package gitstore

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// The two object formats lunad reads and writes besides blobs: trees and
// commits (git's "Documentation/gitformat-*"). Small enough to keep here,
// which keeps go-git's object package, and the OpenPGP code it drags in,
// out of the binary.

// treeEntry is one entry of a tree object.
type treeEntry struct {
	Name string
	Mode filemode.FileMode
	Hash plumbing.Hash
}

// decodeTree parses a tree object: entries of "<octal mode> <name>\0<20-byte hash>".
func decodeTree(b []byte) ([]treeEntry, error) {
	var out []treeEntry
	for len(b) > 0 {
		sp := bytes.IndexByte(b, ' ')
		nul := bytes.IndexByte(b, 0)
		if sp < 0 || nul < sp || len(b) < nul+21 {
			return nil, fmt.Errorf("malformed tree entry")
		}
		mode, err := strconv.ParseUint(string(b[:sp]), 8, 32)
		if err != nil {
			return nil, fmt.Errorf("malformed tree entry mode %q", b[:sp])
		}
		e := treeEntry{Name: string(b[sp+1 : nul]), Mode: filemode.FileMode(mode)}
		copy(e.Hash[:], b[nul+1:nul+21])
		out = append(out, e)
		b = b[nul+21:]
	}
	return out, nil
}

// commitObject is what lunad reads from and writes to a commit.
type commitObject struct {
	Tree      plumbing.Hash
	Parents   []plumbing.Hash
	Author    signature
	Committer signature
	Message   string
}

type signature struct {
	Name, Email string
	When        time.Time
}

func (s signature) encode() string {
	return fmt.Sprintf("%s <%s> %d %s", s.Name, s.Email, s.When.Unix(), s.When.Format("-0700"))
}

func (c *commitObject) encode() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "tree %s\n", c.Tree)
	for _, p := range c.Parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	fmt.Fprintf(&b, "author %s\ncommitter %s\n\n%s", c.Author.encode(), c.Committer.encode(), c.Message)
	return b.Bytes()
}

// decodeCommit parses the headers lunad needs and the message; other
// headers (gpgsig, encoding, mergetag …) are skipped.
func decodeCommit(b []byte) (*commitObject, error) {
	head, msg, _ := bytes.Cut(b, []byte("\n\n"))
	c := &commitObject{Message: string(msg)}
	for _, line := range strings.Split(string(head), "\n") {
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "tree":
			c.Tree = plumbing.NewHash(val)
		case "parent":
			c.Parents = append(c.Parents, plumbing.NewHash(val))
		case "author":
			c.Author = decodeSignature(val)
		case "committer":
			c.Committer = decodeSignature(val)
		}
	}
	if c.Tree.IsZero() {
		return nil, fmt.Errorf("malformed commit: no tree")
	}
	return c, nil
}

// decodeSignature parses "Name <email> <unix seconds> <+hhmm>".
func decodeSignature(s string) signature {
	var sig signature
	open, close := strings.IndexByte(s, '<'), strings.LastIndexByte(s, '>')
	if open < 0 || close < open {
		sig.Name = s
		return sig
	}
	sig.Name = strings.TrimSpace(s[:open])
	sig.Email = s[open+1 : close]
	fields := strings.Fields(s[close+1:])
	if len(fields) > 0 {
		sec, _ := strconv.ParseInt(fields[0], 10, 64)
		sig.When = time.Unix(sec, 0).UTC()
	}
	return sig
}
