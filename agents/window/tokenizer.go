package window

import (
	"hash/maphash"
	"strings"
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

// Tokenizer counts the tokens of a text for one model family. Count must be
// safe for concurrent use and deterministic.
type Tokenizer interface {
	// Name names the encoding: "o200k_base", "cl100k_base" or
	// "claude-estimate(cl100k_base*1.2)".
	Name() string
	Count(s string) int
}

// Encoding names.
const (
	O200k  = "o200k_base"
	CL100k = "cl100k_base"
	// ClaudeEstimate is the estimate used for Claude models: cl100k_base
	// counts times ClaudeFactor, rounded up.
	ClaudeEstimate = "claude-estimate(cl100k_base*1.2)"
)

// ClaudeFactor scales cl100k_base counts to estimate a Claude model's:
// Anthropic publishes no tokenizer, and its tokenizers give more tokens than
// cl100k_base for the same text (more so for code and non-English text);
// 1.2 errs on the side of a budget that is not exceeded.
const ClaudeFactor = 1.2

// TokenizerFor returns the tokenizer for a model name (any "provider/"
// prefix is ignored): o200k_base for gpt-4o, gpt-4.1, gpt-4.5, gpt-5, the
// o-series (o1, o3, o4...) and gpt-oss; an estimate from cl100k_base for
// Claude models; cl100k_base for gpt-4, gpt-3.5 and every other model
// (OpenAI-compatible local models). The vocabularies are embedded; the
// first use of an encoding loads it (about 0.1–0.3 s), later ones share it.
func TokenizerFor(model string) Tokenizer {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	switch {
	case strings.Contains(m, "claude"):
		return claude()
	case usesO200k(m):
		return encoding(O200k)
	default:
		return encoding(CL100k)
	}
}

func usesO200k(m string) bool {
	for _, p := range []string{"gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "gpt-oss", "o1", "o3", "o4"} {
		if strings.HasPrefix(m, p) {
			// "o1", "o3", "o4" are whole names or followed by "-".
			if len(p) == 2 && len(m) > 2 && m[2] != '-' {
				continue
			}
			return true
		}
	}
	return false
}

var (
	tokMu   sync.Mutex
	tokByNm = map[string]*cached{}
)

// encoding returns the shared, cached tokenizer of a tiktoken encoding.
func encoding(name string) *cached {
	tokMu.Lock()
	defer tokMu.Unlock()
	if t, ok := tokByNm[name]; ok {
		return t
	}
	t := newCached(name, &tiktokenCounter{name: name})
	tokByNm[name] = t
	return t
}

// claude returns the shared Claude estimate.
func claude() *cached {
	base := encoding(CL100k)
	tokMu.Lock()
	defer tokMu.Unlock()
	if t, ok := tokByNm[ClaudeEstimate]; ok {
		return t
	}
	t := newCached(ClaudeEstimate, scaled{base})
	tokByNm[ClaudeEstimate] = t
	return t
}

// scaled estimates a count as the base count times ClaudeFactor, rounded up.
type scaled struct{ base Tokenizer }

func (s scaled) count(text string) int {
	n := s.base.Count(text)
	return (n*12 + 9) / 10 // ceil(n * 1.2) in integers
}

// tiktokenCounter counts with a tiktoken encoding loaded from the embedded
// vocabularies on first use.
type tiktokenCounter struct {
	name string
	once sync.Once
	enc  *tiktoken.Tiktoken
}

var setLoader sync.Once

func (c *tiktokenCounter) count(text string) int {
	c.once.Do(func() {
		setLoader.Do(func() { tiktoken.SetBpeLoader(loader.NewOfflineLoader()) })
		enc, err := tiktoken.GetEncoding(c.name)
		if err != nil {
			// The vocabularies are embedded in the binary: failing to load
			// one is a build defect, not an input error.
			panic("window: embedded tiktoken vocabulary " + c.name + ": " + err.Error())
		}
		c.enc = enc
	})
	// Special tokens (<|endoftext|>...) in content are ordinary text to a
	// chat API, so they are counted as such.
	return countBounded(text, func(part string) int { return len(c.enc.EncodeOrdinary(part)) })
}

// countBounded sums encode's counts of text's parts, none of which holds
// a run of one class of characters longer than maxRun bytes (boundedRuns).
func countBounded(text string, encode func(string) int) int {
	n := 0
	for part := range boundedRuns(text, maxRun) {
		n += encode(part)
	}
	return n
}

type counter interface{ count(string) int }

// cached memoizes a counter's counts by a 128-bit hash of the text (two
// maphash seeds), so unchanged artifacts are not tokenized again. The cache
// is cleared when it holds maxCached entries.
type cached struct {
	name   string
	c      counter
	s1, s2 maphash.Seed
	mu     sync.RWMutex
	m      map[[2]uint64]int32
}

const maxCached = 1 << 18

func newCached(name string, c counter) *cached {
	return &cached{name: name, c: c, s1: maphash.MakeSeed(), s2: maphash.MakeSeed(), m: map[[2]uint64]int32{}}
}

func (t *cached) Name() string { return t.name }

func (t *cached) Count(s string) int {
	if s == "" {
		return 0
	}
	k := [2]uint64{maphash.String(t.s1, s), maphash.String(t.s2, s)}
	t.mu.RLock()
	n, ok := t.m[k]
	t.mu.RUnlock()
	if ok {
		return int(n)
	}
	v := t.c.count(s)
	t.mu.Lock()
	if len(t.m) >= maxCached {
		clear(t.m)
	}
	t.m[k] = int32(v)
	t.mu.Unlock()
	return v
}
