package refindex

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/atomicfile"
	"github.com/lunad/lunad/treesitter"
)

// A saved Stale answer lets a process that did not evaluate it — a
// one-shot `lunad stale` without a daemon, a daemon just started — answer
// at once when nothing was committed since it was saved, without building
// the index or reading history. The answer depends only on the state it
// was evaluated at (the HEAD commit, the slug rule) and on the code that
// evaluated it, so that is its key: StaleKey, which the file carries and
// which must equal the current state's for the answer to be used.
//
// The file is input like any other: read bounded (maxAnswerFile), checked
// by a SHA-256 of its content, decoded strictly (no unknown field, only
// stale or broken references, each with its artifact), and used only for
// its exact key. A file that fails any check is an error for a log line,
// never a panic and never an answer.

// StaleKey is the state a Stale answer was evaluated at.
type StaleKey struct {
	// Version names the code that evaluated it (AnswerVersion): another
	// lunad, with other resolution rules or queries, never reads it.
	Version string `json:"version"`
	Head    string `json:"head"`  // the HEAD commit
	Loose   bool   `json:"loose"` // the slug rule ([refs] slugs = "loose")
}

// answerMagic starts the file; a SHA-256 of the JSON body ends it.
const answerMagic = "lunad stale answer\n"

// maxAnswerFile bounds the file as read and written: far above a real
// answer (a stale reference is a few hundred bytes), far below what a
// corrupt or planted file could make the process allocate.
const maxAnswerFile = 64 << 20

// answerFormat versions the layout of the file itself.
const answerFormat = "1"

// AnswerVersion is the version key of answers this executable evaluates:
// the file's format, the queries' schema and the executable's Go build ID,
// which changes with any change of the code that built it (the resolution
// rules above all). It is "" when the build ID cannot be read (not an ELF
// executable): answers are then neither saved nor read.
var AnswerVersion = sync.OnceValue(func() string {
	id := executableBuildID()
	if id == "" {
		return ""
	}
	return answerFormat + "/" + treesitter.Schema() + "/" + id
})

// executableBuildID is the running executable's Go build ID, read from
// its ELF note (section .note.go.buildid); "" if there is none. It reads
// /proc/self/exe, the file this process runs even once an upgrade has
// replaced it at its path (a daemon started before the upgrade must not
// save its answers under the new lunad's ID), else os.Executable.
func executableBuildID() string {
	f, err := elf.Open("/proc/self/exe")
	if err != nil {
		exe, xerr := os.Executable()
		if xerr != nil {
			return ""
		}
		if f, err = elf.Open(exe); err != nil {
			return ""
		}
	}
	defer f.Close()
	sec := f.Section(".note.go.buildid")
	if sec == nil || sec.Size > 4096 {
		return ""
	}
	note, err := sec.Data()
	if err != nil || len(note) < 16 {
		return ""
	}
	// An ELF note: name size, description size, type, then the name
	// ("Go\x00\x00") and the description (the build ID), each 4-aligned.
	namesz, descsz := binary.LittleEndian.Uint32(note), binary.LittleEndian.Uint32(note[4:])
	start := 12 + (uint64(namesz)+3)&^3
	if namesz != 4 || start+uint64(descsz) > uint64(len(note)) {
		return ""
	}
	return string(note[start : start+uint64(descsz)])
}

// savedAnswer is the file's JSON body.
type savedAnswer struct {
	Key  StaleKey          `json:"key"`
	Refs []lunad.Reference `json:"refs"`
}

// SaveStale writes refs, evaluated at key, to path atomically (a temp
// file renamed into place; no fsync: a lost file is evaluated again). It
// does nothing when key has no version, and refuses an answer larger than
// the reader accepts.
func SaveStale(path string, key StaleKey, refs []lunad.Reference) error {
	if key.Version == "" {
		return nil
	}
	data, err := encodeAnswer(key, refs)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, data, atomicfile.Options{})
}

// encodeAnswer is the file's content: the magic, the JSON body, its SHA-256.
func encodeAnswer(key StaleKey, refs []lunad.Reference) ([]byte, error) {
	if refs == nil {
		refs = []lunad.Reference{}
	}
	body, err := json.Marshal(savedAnswer{Key: key, Refs: refs})
	if err != nil {
		return nil, err
	}
	if len(answerMagic)+len(body)+sha256.Size > maxAnswerFile {
		return nil, fmt.Errorf("the stale answer is %d bytes, over the %d a saved one may have: not saved", len(body), maxAnswerFile)
	}
	sum := sha256.Sum256(body)
	return append(append([]byte(answerMagic), body...), sum[:]...), nil
}

// LoadStale returns the answer saved at path if it was evaluated at want.
// ok is false, with a nil error, when there is no file, want has no
// version, or the file holds another state's answer (an older HEAD, the
// other slug rule, another lunad); err says why a file that is there
// cannot be used (damaged, foreign, too large, unreadable), for a log line.
func LoadStale(path string, want StaleKey) (refs []lunad.Reference, ok bool, err error) {
	if want.Version == "" {
		return nil, false, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxAnswerFile+1))
	if err != nil {
		return nil, false, err
	}
	a, err := decodeAnswer(data)
	if err != nil {
		return nil, false, fmt.Errorf("saved stale answer %s ignored: %w", path, err)
	}
	if a.Key != want {
		return nil, false, nil
	}
	return a.Refs, true, nil
}

// decodeAnswer checks and decodes a file's content.
func decodeAnswer(data []byte) (savedAnswer, error) {
	var a savedAnswer
	switch {
	case len(data) > maxAnswerFile:
		return a, fmt.Errorf("over %d bytes", maxAnswerFile)
	case !bytes.HasPrefix(data, []byte(answerMagic)) || len(data) < len(answerMagic)+sha256.Size:
		return a, errors.New("not a saved stale answer")
	}
	body, sum := data[len(answerMagic):len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return a, errors.New("its checksum does not match: damaged")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return savedAnswer{}, fmt.Errorf("damaged: %w", err)
	}
	if dec.More() {
		return savedAnswer{}, errors.New("damaged: data after the answer")
	}
	if a.Refs == nil {
		return savedAnswer{}, errors.New("damaged: no list of references")
	}
	for i, r := range a.Refs {
		if r.State != lunad.RefStale && r.State != lunad.RefBroken || r.From.ID == "" {
			return savedAnswer{}, fmt.Errorf("damaged: reference %d is %q from %q, not a stale or broken reference of an artifact", i, r.State, r.From.ID)
		}
	}
	return a, nil
}
