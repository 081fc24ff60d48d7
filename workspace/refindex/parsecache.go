package refindex

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"

	"github.com/lunad/lunad/internal/atomicfile"
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

// The on-disk form: cacheMagic, the schema (uvarint length, bytes), the
// number of entries (uvarint), then each entry as the length of its
// file's binary form (uvarint), its key, that form
// (treesitter.PackedFile.AppendBinary) and a CRC-32C of key and form.
// Entries are written and read one at a time through one buffer, so
// saving or loading holds one entry's bytes besides the cache, and
// loading allocates only what it keeps: per file the PackedFile, its
// string table, its arena, and the strings not seen before.
const cacheMagic = "lunad parse cache\n"

// maxCacheEntry bounds one entry's length as read, so that a damaged
// length cannot make a huge allocation (a packed file is a fraction of
// its content, which is at most treesitter.MaxFileSize).
const maxCacheEntry = 1 << 30

// crcTable is made on first use: a one-shot command that never reads the
// parse cache does not pay for its tables at start.
var crcTable = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// load reads a cache saved by save; a missing, damaged or outdated file
// leaves the cache empty (the error says which, for the log). A file of
// another schema or format (an older lunad's) is ignored without one.
func (c *parseCache) load(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	damaged := func(err error) error { return fmt.Errorf("parse cache %s is damaged, rebuilding: %w", path, err) }
	magic := make([]byte, len(cacheMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != cacheMagic {
		return nil // another format
	}
	var buf []byte
	n, err := binary.ReadUvarint(r)
	if err != nil || n > 1<<12 {
		return damaged(fmt.Errorf("schema: %v", err))
	}
	if buf, err = readN(r, buf, int(n)); err != nil {
		return damaged(err)
	}
	if string(buf) != cacheSchema() {
		return nil
	}
	count, err := binary.ReadUvarint(r)
	if err != nil {
		return damaged(err)
	}
	in := interner{}
	files := make(map[cacheKey]*treesitter.PackedFile, min(count, maxCacheEntries))
	for range count {
		n, err := binary.ReadUvarint(r)
		if err != nil || n > maxCacheEntry {
			return damaged(fmt.Errorf("entry length %d: %v", n, err))
		}
		if buf, err = readN(r, buf, len(cacheKey{})+int(n)+4); err != nil {
			return damaged(err)
		}
		body, sum := buf[:len(buf)-4], binary.LittleEndian.Uint32(buf[len(buf)-4:])
		if crc32.Checksum(body, crcTable()) != sum {
			return damaged(errors.New("an entry's checksum does not match"))
		}
		k := cacheKey(body[:len(cacheKey{})])
		pf, err := treesitter.DecodePacked(body[len(cacheKey{}):], in.b)
		if err != nil {
			return damaged(err)
		}
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

// readN reads n bytes into buf (grown if need be) and returns them.
func readN(r io.Reader, buf []byte, n int) ([]byte, error) {
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	_, err := io.ReadFull(r, buf)
	return buf, err
}

// cacheSchema versions the file: the queries' schema and this layout.
func cacheSchema() string { return treesitter.Schema() + "+packed2" }

// interner shares one copy of each repeated string of decoded Files
// (kinds, names, containers): decoding makes every occurrence separately,
// which for a 10,000-file workspace is a million small strings.
type interner map[string]string

func (in interner) s(v string) string {
	if w, ok := in[v]; ok {
		return w
	}
	in[v] = v
	return v
}

// b is s for the bytes of a string (allocating only a string not seen
// before).
func (in interner) b(v []byte) string {
	if w, ok := in[string(v)]; ok {
		return w
	}
	w := string(v)
	in[w] = w
	return w
}

// save writes the cache atomically (atomicfile: temp file, rename) if it
// changed. It is a cache: no fsync, a torn or lost file is rebuilt.
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
	return atomicfile.WriteFrom(path, atomicfile.Options{}, func(w io.Writer) error { return encodeCache(w, keys, files) })
}

// encodeCache writes the cache file's content: the magic, the schema, the
// entry count, then each entry (its key and packed file) with its CRC.
func encodeCache(out io.Writer, keys []cacheKey, files []*treesitter.PackedFile) error {
	w := bufio.NewWriterSize(out, 1<<16)
	schema := cacheSchema()
	buf := append([]byte(cacheMagic), binary.AppendUvarint(nil, uint64(len(schema)))...)
	buf = append(buf, schema...)
	buf = binary.AppendUvarint(buf, uint64(len(keys)))
	_, err := w.Write(buf)
	var body []byte
	for i := 0; i < len(keys) && err == nil; i++ {
		body = append(body[:0], keys[i][:]...)
		if body, err = files[i].AppendBinary(body); err != nil {
			break
		}
		buf = binary.AppendUvarint(buf[:0], uint64(len(body)-len(cacheKey{})))
		buf = append(buf, body...)
		buf = binary.LittleEndian.AppendUint32(buf, crc32.Checksum(body, crcTable()))
		_, err = w.Write(buf)
	}
	if err != nil {
		return err
	}
	return w.Flush()
}
