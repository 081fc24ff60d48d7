package runs

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/lazyregexp"
)

// What a stage's response may carry besides its output and writes: the
// commit's author (Agent), extra trailers (Trailers), files stored
// beside the event (Files) and acknowledgements (Acks). A response that breaks these rules is a
// permanent failure of its attempt: the same code would answer the same.

// filesDir is where a stage's Files are stored beside its STAGE_SUCCEEDED.
const filesDir = "files/"

// Limits on a response's extras.
const (
	maxFilesBytes = 16 << 20 // all of a response's Files together, as a process agent's stdout
	maxFiles      = 10000
	maxFileName   = 200
	maxTrailer    = 256
	maxAcks       = 1000
	maxAckSymbol  = 200 // gitstore's limit on an acknowledged symbol
)

var (
	agentName   = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	trailerName = lazyregexp.New(`^[A-Z][A-Za-z0-9-]{0,62}$`)
	fileSegment = lazyregexp.New(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`)
)

// engineTrailers are the trailers the engine writes on a stage's commit,
// in lower case as git compares them; a response may set none of them, nor
// those lunad writes on every commit (lunad.ReservedTrailer).
var engineTrailers = map[string]bool{"run": true, "stage": true, "attempt": true}

// checkResponse checks a successful response's Agent, Trailers, Files
// and Acks.
func checkResponse(resp lunad.StageResponse) error {
	if err := checkAcks(resp.Acks); err != nil {
		return err
	}
	if resp.Agent != "" && !agentName().MatchString(resp.Agent) {
		return fmt.Errorf("%w: the response's agent %q is not an agent name: use letters, digits, '.', '_' and '-' (at most 64, a letter or digit first)", lunad.ErrInvalid, resp.Agent)
	}
	for _, k := range slices.Sorted(maps.Keys(resp.Trailers)) {
		v := resp.Trailers[k]
		if engineTrailers[strings.ToLower(k)] {
			return fmt.Errorf("%w: the response's trailer %q is the engine's own (Luna-%s: the run, its stage and attempt); choose another name", lunad.ErrInvalid, k, k)
		}
		if name, what, ok := lunad.ReservedTrailer(k); ok {
			hint := "choose another name"
			if name == "Agent" {
				hint = "set the response's agent instead"
			}
			return fmt.Errorf("%w: the response's trailer %q is lunad's own (Luna-%s: %s); %s", lunad.ErrInvalid, k, name, what, hint)
		}
		if !trailerName().MatchString(k) {
			return fmt.Errorf("%w: the response's trailer name %q: use a capital letter, then letters, digits and '-' (at most 63), like \"Model\"", lunad.ErrInvalid, k)
		}
		if len(v) > maxTrailer || strings.TrimSpace(v) != v || strings.ContainsFunc(v, unicode.IsControl) {
			return fmt.Errorf("%w: the response's trailer %s: its value must be one line of at most %d bytes, without leading or trailing spaces", lunad.ErrInvalid, k, maxTrailer)
		}
	}
	if len(resp.Files) > maxFiles {
		return fmt.Errorf("%w: the response has %d files; at most %d", lunad.ErrInvalid, len(resp.Files), maxFiles)
	}
	total := 0
	for _, name := range slices.Sorted(maps.Keys(resp.Files)) {
		if err := checkFileName(name); err != nil {
			return err
		}
		content := resp.Files[name]
		if !utf8.ValidString(content) || strings.IndexByte(content, 0) >= 0 {
			return fmt.Errorf("%w: the response's file %s is not text (invalid UTF-8 or a NUL byte)", lunad.ErrInvalid, name)
		}
		if total += len(content); total > maxFilesBytes {
			return fmt.Errorf("%w: the response's files hold more than %d MiB together", lunad.ErrInvalid, maxFilesBytes>>20)
		}
	}
	return nil
}

// checkAcks checks a response's acknowledgements: each names an
// artifact, and a symbol (if any) on one line; the workspace checks that
// they exist when the engine records them.
func checkAcks(acks []lunad.StageAck) error {
	if len(acks) > maxAcks {
		return fmt.Errorf("%w: the response has %d acks; at most %d", lunad.ErrInvalid, len(acks), maxAcks)
	}
	for i, a := range acks {
		switch {
		case a.Ref == "" || len(a.Ref) > maxTrailer || strings.ContainsFunc(a.Ref, unicode.IsControl):
			return fmt.Errorf("%w: the response's ack %d: ref %q must name an artifact (an ID or a path) on one line", lunad.ErrInvalid, i+1, a.Ref)
		case len(a.Symbol) > maxAckSymbol || strings.ContainsFunc(a.Symbol, unicode.IsControl) || !utf8.ValidString(a.Symbol):
			return fmt.Errorf("%w: the response's ack %d: symbol must be a name on one line of at most %d bytes (or none, for all of the artifact's references)", lunad.ErrInvalid, i+1, maxAckSymbol)
		}
	}
	return nil
}

// checkFileName checks the name of a response's file: a relative path of
// plain names ("llm/0001.json").
func checkFileName(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w: the response's file name %q %s", lunad.ErrInvalid, name, why)
	}
	if name == "" || len(name) > maxFileName {
		return bad(fmt.Sprintf("must have 1 to %d bytes", maxFileName))
	}
	for _, seg := range strings.Split(name, "/") {
		if !fileSegment().MatchString(seg) {
			return bad("is not a relative path of plain names (letters, digits, '.', '_', '-'; no leading '.', no empty part), like \"llm/0001.json\"")
		}
	}
	return nil
}

// storedResponse is what response.json holds: the response without its
// Files, which are stored beside it (their names listed here).
type storedResponse struct {
	lunad.StageResponse
	FileNames []string `json:"stored_files,omitempty"`
}

// responseFiles are the files stored beside an attempt's outcome event:
// the request, the response and, for a success, the response's Files.
func responseFiles(req lunad.StageRequest, o outcome, succeeded bool) map[string][]byte {
	files := map[string][]byte{fileRequest: mustJSON(req)}
	if o.err != nil {
		return files
	}
	sr := storedResponse{StageResponse: o.resp}
	sr.Files = nil
	if succeeded {
		sr.FileNames = slices.Sorted(maps.Keys(o.resp.Files))
		for name, content := range o.resp.Files {
			files[filesDir+name] = []byte(content)
		}
	}
	files[fileResponse] = mustJSON(sr)
	return files
}
