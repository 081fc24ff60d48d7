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

// parseCache maps (language, content) to its parsed File, packed (the
// graph shares the packed Files of the current versions). The key is a
// hash of the content, so an entry can never describe other content: the
// cache cannot drift from the repository, only miss. Persisted with save
// and load under the store's cache directory; a file written by another
// schema (queries changed) or damaged is ignored and rebuilt.
type parseCache struct {
	mu    sync.Mutex
	files map[cacheKey]*treesitter.PackedFile
	dirty bool
}

type cacheKey [32]byte

// maxCacheEntries bounds memory: past it, the cache is emptied (cheap to
// refill: every entry is one parse).
const maxCacheEntries = 200_000

func newParseCache() *parseCache { return &parseCache{files: map[cacheKey]*treesitter.PackedFile{}} }

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
func (c *parseCache) parse(p *treesitter.Parser, typ string, content []byte) (*treesitter.PackedFile, error) {
	k := keyOf(typ, content)
	c.mu.Lock()
	pf := c.files[k]
	c.mu.Unlock()
	if pf != nil {
		return pf, nil
	}
	f, err := p.Parse(typ, content)
	if err != nil {
		return nil, err
	}
	pf = treesitter.Pack(f)
	c.store(k, pf)
	return pf, nil
}

func (c *parseCache) put(typ string, content []byte, f *treesitter.PackedFile) {
	c.store(keyOf(typ, content), f)
}

func (c *parseCache) store(k cacheKey, f *treesitter.PackedFile) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.files) >= maxCacheEntries {
		c.files = map[cacheKey]*treesitter.PackedFile{}
	}
	c.files[k] = f
	c.dirty = true
}

// cacheHeader starts the on-disk form; Count entries follow, each a
// cacheKey then its File (gob values in one stream). Entries are written
// and read one at a time, so saving or loading holds one File unpacked,
// never the whole cache twice.
type cacheHeader struct {
	Schema string
	Count  int
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
	dec := gob.NewDecoder(bufio.NewReader(f))
	var h cacheHeader
	if err := dec.Decode(&h); err != nil {
		return fmt.Errorf("parse cache %s is damaged, rebuilding: %w", path, err)
	}
	if h.Schema != cacheSchema() {
		return nil
	}
	in := interner{}
	files := make(map[cacheKey]*treesitter.PackedFile, min(h.Count, maxCacheEntries))
	for range h.Count {
		var k cacheKey
		var file treesitter.File
		if err := dec.Decode(&k); err != nil {
			return fmt.Errorf("parse cache %s is damaged, rebuilding: %w", path, err)
		}
		if err := dec.Decode(&file); err != nil {
			return fmt.Errorf("parse cache %s is damaged, rebuilding: %w", path, err)
		}
		pf := treesitter.Pack(&file)
		pf.Intern(in.s)
		if len(files) < maxCacheEntries {
			files[k] = pf
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, pf := range files {
		c.files[k] = pf
	}
	return nil
}

// cacheSchema versions the file: the queries' schema and this layout.
func cacheSchema() string { return treesitter.Schema() + "+stream1" }

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

// save writes the cache atomically (temp file, rename) if it changed. It
// is a cache: no fsync, a torn or lost file is rebuilt.
func (c *parseCache) save(path string) error {
	c.mu.Lock()
	if !c.dirty {
		c.mu.Unlock()
		return nil
	}
	keys := make([]cacheKey, 0, len(c.files))
	files := make([]*treesitter.PackedFile, 0, len(c.files))
	for k, f := range c.files {
		keys = append(keys, k)
		files = append(files, f)
	}
	c.dirty = false
	c.mu.Unlock()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".refs-*")
	if err != nil {
		return err
	}
	w := bufio.NewWriter(tmp)
	enc := gob.NewEncoder(w)
	err = enc.Encode(cacheHeader{Schema: cacheSchema(), Count: len(keys)})
	for i := 0; i < len(keys) && err == nil; i++ {
		if err = enc.Encode(keys[i]); err == nil {
			err = enc.Encode(files[i].File())
		}
	}
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
