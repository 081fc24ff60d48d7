package refindex

import (
	"bufio"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/lunad/lunad/treesitter"
)

// parseCache maps (language, content) to its parsed File. The key is a
// hash of the content, so an entry can never describe other content: the
// cache cannot drift from the repository, only miss. Persisted with save
// and load under the store's cache directory; a file written by another
// schema (queries changed) or damaged is ignored and rebuilt.
type parseCache struct {
	mu    sync.Mutex
	files map[cacheKey]*treesitter.File
	dirty bool
}

type cacheKey [32]byte

// maxCacheEntries bounds memory: past it, the cache is emptied (cheap to
// refill: every entry is one parse).
const maxCacheEntries = 200_000

func newParseCache() *parseCache { return &parseCache{files: map[cacheKey]*treesitter.File{}} }

func keyOf(typ string, content []byte) cacheKey {
	h := sha256.New()
	h.Write([]byte(treesitter.LanguageFor(typ)))
	h.Write([]byte{0})
	h.Write(content)
	var k cacheKey
	h.Sum(k[:0])
	return k
}

// parse returns the cached File for content or parses it with p.
func (c *parseCache) parse(p *treesitter.Parser, typ string, content []byte) (*treesitter.File, error) {
	k := keyOf(typ, content)
	c.mu.Lock()
	f := c.files[k]
	c.mu.Unlock()
	if f != nil {
		return f, nil
	}
	f, err := p.Parse(typ, content)
	if err != nil {
		return nil, err
	}
	c.store(k, f)
	return f, nil
}

func (c *parseCache) put(typ string, content []byte, f *treesitter.File) {
	c.store(keyOf(typ, content), f)
}

func (c *parseCache) store(k cacheKey, f *treesitter.File) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.files) >= maxCacheEntries {
		c.files = map[cacheKey]*treesitter.File{}
	}
	c.files[k] = f
	c.dirty = true
}

// cacheFile is the on-disk form.
type cacheFile struct {
	Schema string
	Keys   []cacheKey
	Files  []*treesitter.File
}

// load reads a cache saved by save; a missing, damaged or outdated file
// leaves the cache empty (the error says which, for the log).
func (c *parseCache) load(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	var cf cacheFile
	if err := gob.NewDecoder(bufio.NewReader(f)).Decode(&cf); err != nil {
		return fmt.Errorf("parse cache %s is damaged, rebuilding: %w", path, err)
	}
	if cf.Schema != treesitter.Schema() || len(cf.Keys) != len(cf.Files) {
		return nil
	}
	in := interner{}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, k := range cf.Keys {
		if f := cf.Files[i]; f != nil {
			in.file(f)
			c.files[k] = f
		}
	}
	return nil
}

// interner shares one copy of each repeated string of decoded Files
// (kinds, names, containers): gob decodes every occurrence separately,
// which for a 10,000-file workspace is a million small strings.
type interner map[string]string

func (in interner) s(v string) string {
	if w, ok := in[v]; ok {
		return w
	}
	in[v] = v
	return v
}

func (in interner) file(f *treesitter.File) {
	for i := range f.Symbols {
		sym := &f.Symbols[i]
		sym.Kind, sym.Name, sym.Container = in.s(sym.Kind), in.s(sym.Name), in.s(sym.Container)
	}
	for i := range f.References {
		r := &f.References[i]
		r.Kind, r.Name = in.s(r.Kind), in.s(r.Name)
	}
}

// save writes the cache atomically (temp file, rename) if it changed. It
// is a cache: no fsync, a torn or lost file is rebuilt.
func (c *parseCache) save(path string) error {
	c.mu.Lock()
	if !c.dirty {
		c.mu.Unlock()
		return nil
	}
	cf := cacheFile{Schema: treesitter.Schema()}
	for k, f := range c.files {
		cf.Keys = append(cf.Keys, k)
		cf.Files = append(cf.Files, f)
	}
	c.dirty = false
	c.mu.Unlock()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".refs-*")
	if err != nil {
		return err
	}
	w := bufio.NewWriter(tmp)
	err = gob.NewEncoder(w).Encode(&cf)
	if err == nil {
		err = w.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
