package gitstore

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/lunad/lunad"
)

// Provenance trailers carried by every lunad commit.
const (
	trArtifact = "Luna-Artifact"
	trOp       = "Luna-Op"
	trVersion  = "Luna-Version"
	trAgent    = "Luna-Agent"
	trKey      = "Luna-Idempotency-Key"
	trRequest  = "Luna-Request"        // with trKey: the digest of the request the key was used for (requestDigest)
	trTarget   = "Luna-Target-Version" // undo, redo, restore: the version whose state was restored
	trAlso     = "Luna-Also"           // the other artifacts of a commit that wrote several (see record.Also)
)

// Limits on what a caller may put into a commit.
const (
	maxMessage  = 16 << 10
	maxTrailer  = 256
	maxExtraKey = 64
)

// record is what lunad reads back from one commit: its provenance.
type record struct {
	Op       lunad.Op
	Artifact string
	Version  int
	Agent    string
	Key      string
	Request  string // digest of the keyed request; "" for commits of lunad versions before it
	Target   int
	// Also are the other artifacts of a commit that wrote several
	// (ApplyWrites), each with its own operation and version; Artifact,
	// Op and Version are the first one's.
	Also    []alsoVersion `json:",omitempty"`
	Extra   map[string]string
	Subject string
}

// upgrade fills in what a lunad version before Luna-Request left in Extra
// when it cached this record: that version kept every trailer it did not
// know there, so its cache lines for newer commits hold the digest as
// Extra["Request"].
func (r *record) upgrade() {
	name := strings.TrimPrefix(trRequest, "Luna-")
	if v, ok := r.Extra[name]; ok && r.Request == "" {
		r.Request = v
		delete(r.Extra, name)
		if len(r.Extra) == 0 {
			r.Extra = nil
		}
	}
	// Likewise Luna-Also (a commit of ApplyWrites).
	if v, ok := r.Extra["Also"]; ok && r.Also == nil {
		r.Also = parseAlso(v)
		if delete(r.Extra, "Also"); len(r.Extra) == 0 {
			r.Extra = nil
		}
	}
}

// checkTrailerValue rejects values that would break the trailer block.
func checkTrailerValue(what, v string) error {
	if len(v) > maxTrailer {
		return fmt.Errorf("%w: %s is longer than %d bytes", lunad.ErrInvalid, what, maxTrailer)
	}
	for _, r := range v {
		if unicode.IsControl(r) {
			return fmt.Errorf("%w: %s %q contains a control character or newline", lunad.ErrInvalid, what, v)
		}
	}
	if strings.TrimSpace(v) != v {
		return fmt.Errorf("%w: %s %q has leading or trailing spaces", lunad.ErrInvalid, what, v)
	}
	return nil
}

// checkMessage validates a caller's commit message.
func checkMessage(m string) error {
	if len(m) > maxMessage {
		return fmt.Errorf("%w: message is %d bytes; the limit is %d (put long text in an artifact)", lunad.ErrInvalid, len(m), maxMessage)
	}
	if strings.ContainsRune(m, 0) {
		return fmt.Errorf("%w: message contains a NUL byte", lunad.ErrInvalid)
	}
	for _, line := range strings.Split(m, "\n") {
		if k, _, ok := strings.Cut(line, ":"); ok && strings.HasPrefix(k, "Luna-") {
			return fmt.Errorf("%w: message line %q looks like a Luna- trailer; lunad writes those itself", lunad.ErrInvalid, line)
		}
	}
	return nil
}

// message renders a commit message: subject, optional body, trailers.
func (r record) message(body string) string {
	var b strings.Builder
	b.WriteString(r.Subject)
	b.WriteString("\n\n")
	if body = strings.TrimSpace(body); body != "" {
		b.WriteString(body)
		b.WriteString("\n\n")
	}
	if r.Artifact != "" {
		fmt.Fprintf(&b, "%s: %s\n", trArtifact, r.Artifact)
	}
	fmt.Fprintf(&b, "%s: %s\n", trOp, r.Op)
	if r.Version > 0 {
		fmt.Fprintf(&b, "%s: %d\n", trVersion, r.Version)
	}
	if r.Agent != "" {
		fmt.Fprintf(&b, "%s: %s\n", trAgent, r.Agent)
	}
	if r.Key != "" {
		fmt.Fprintf(&b, "%s: %s\n", trKey, r.Key)
	}
	if r.Key != "" && r.Request != "" {
		fmt.Fprintf(&b, "%s: %s\n", trRequest, r.Request)
	}
	if r.Target > 0 {
		fmt.Fprintf(&b, "%s: %d\n", trTarget, r.Target)
	}
	if len(r.Also) > 0 {
		fmt.Fprintf(&b, "%s: %s\n", trAlso, formatAlso(r.Also))
	}
	keys := make([]string, 0, len(r.Extra))
	for k := range r.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "Luna-%s: %s\n", k, r.Extra[k])
	}
	return b.String()
}

// parseRecord reads the provenance of a commit message. ok is false for a
// commit lunad did not write.
func parseRecord(msg string) (r record, ok bool) {
	r.Subject, _, _ = strings.Cut(msg, "\n")
	lines := strings.Split(strings.TrimRight(msg, "\n"), "\n")
	// Trailers are the last paragraph.
	i := len(lines)
	for i > 0 && lines[i-1] != "" {
		i--
	}
	for _, line := range lines[i:] {
		k, v, found := strings.Cut(line, ": ")
		if !found || !strings.HasPrefix(k, "Luna-") {
			continue
		}
		switch k {
		case trArtifact:
			r.Artifact = v
		case trOp:
			r.Op, ok = lunad.Op(v), true
		case trVersion:
			r.Version, _ = strconv.Atoi(v)
		case trAgent:
			r.Agent = v
		case trKey:
			r.Key = v
		case trRequest:
			r.Request = v
		case trTarget:
			r.Target, _ = strconv.Atoi(v)
		case trAlso:
			r.Also = parseAlso(v)
		default:
			if r.Extra == nil {
				r.Extra = map[string]string{}
			}
			r.Extra[strings.TrimPrefix(k, "Luna-")] = v
		}
	}
	return r, ok
}
