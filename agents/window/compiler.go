package window

import (
	"context"
	"fmt"
	"sync"

	"github.com/lunad/lunad"
)

// Header is implemented by a Source that can say cheaply which commit it
// reads (the workspace service's Head): a Compiler then lists the
// artifacts again only when that commit moves.
type Header interface {
	Head() (branch, commit string, err error)
}

// Compiler compiles contexts over one Source and keeps the artifact list
// between calls while the Source's HEAD commit stays the same (when the
// Source is a Header; otherwise it lists on every call). Listing 10,000
// artifacts is the largest part of a compile: a worker's loop holds one
// Compiler. Safe for concurrent use.
type Compiler struct {
	src Source
	tok Tokenizer

	mu     sync.Mutex
	commit string
	list   []lunad.Artifact // never modified: Compile sorts a copy
}

// NewCompiler returns a Compiler reading src and counting with tok.
func NewCompiler(src Source, tok Tokenizer) *Compiler { return &Compiler{src: src, tok: tok} }

// Compile compiles the context of one model call (see the package
// function Compile for the errors).
func (c *Compiler) Compile(ctx context.Context, in Input) (Context, error) {
	mode, err := checkInput(in)
	if err != nil {
		return Context{}, err
	}
	list, err := c.artifacts(ctx)
	if err != nil {
		return Context{}, err
	}
	w := &compiler{ctx: ctx, src: c.src, tok: c.tok, in: in, mode: mode, list: list}
	return w.run()
}

// artifacts lists the Source's artifacts, from the cache while HEAD has
// not moved. A list is kept only if HEAD was the same before and after it.
func (c *Compiler) artifacts(ctx context.Context) ([]lunad.Artifact, error) {
	h, ok := c.src.(Header)
	if !ok {
		return c.listNow(ctx)
	}
	_, before, err := h.Head()
	if err != nil {
		return c.listNow(ctx)
	}
	c.mu.Lock()
	if c.list != nil && c.commit == before {
		list := c.list
		c.mu.Unlock()
		return list, nil
	}
	c.mu.Unlock()
	list, err := c.listNow(ctx)
	if err != nil {
		return nil, err
	}
	if _, after, err := h.Head(); err == nil && after == before {
		c.mu.Lock()
		c.commit, c.list = before, list
		c.mu.Unlock()
	}
	return list, nil
}

func (c *Compiler) listNow(ctx context.Context) ([]lunad.Artifact, error) {
	list, err := c.src.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list artifacts: %w", err)
	}
	return list, nil
}
