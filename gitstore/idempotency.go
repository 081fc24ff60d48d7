package gitstore

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"

	"github.com/lunad/lunad"
)

// Idempotency keys. A key identifies one request: the operation, the
// artifact (its ID, however the caller named it), the agent, the base
// version, the operation's input (an edit's Change.Input, a create's spec,
// a move's path, a link's target as given and its kind, a restore's
// version, an ack's symbol), the message and the extra trailers. The commit that used the
// key carries the digest of that request (Luna-Request, next to
// Luna-Idempotency-Key); a later write with the key replays that commit's
// result only when it is the same request, and is refused otherwise.
// Commits of lunad versions that wrote no digest replay for the same
// operation, artifact and agent.

// write is one keyed operation as replay and commitOp see it.
type write struct {
	op     lunad.Op
	ch     lunad.Change
	input  [][]byte // the operation's own arguments, in a fixed order
	digest string   // of the request, set by replay once the artifact is known
}

// newWrite describes an operation with its arguments.
func newWrite(op lunad.Op, ch lunad.Change, input ...[]byte) *write {
	return &write{op: op, ch: ch, input: input}
}

// requestDigest is the SHA-256 (hex) of a request's canonical encoding:
// every field length-prefixed, the extra trailers sorted by name.
func requestDigest(w *write, id, agent string) string {
	h := sha256.New()
	field := func(b []byte) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	for _, s := range []string{"luna-request/1", string(w.op), id, agent, strconv.Itoa(w.ch.BaseVersion), w.ch.Message} {
		field([]byte(s))
	}
	writeExtra(field, w.ch.Extra)
	field([]byte(strconv.Itoa(len(w.input))))
	for _, in := range w.input {
		field(in)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func writeExtra(field func([]byte), extra map[string]string) {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	field([]byte(strconv.Itoa(len(keys))))
	for _, k := range keys {
		field([]byte(k))
		field([]byte(extra[k]))
	}
}

// replay answers a write whose idempotency key was used already: the
// earlier write's result when this is the same request (ok = true), or
// ErrConflict naming what the key was used for. id is the resolved
// artifact, "" for a create. It records the request's digest in w for the
// commit.
func (t *txn) replay(w *write, id string) (lunad.Result, bool, error) {
	if w.ch.IdempotencyKey == "" {
		return lunad.Result{}, false, nil
	}
	_, agent := t.s.author(w.ch.Agent)
	w.digest = requestDigest(w, id, agent)
	e := t.s.hist.byKey[w.ch.IdempotencyKey]
	if e == nil {
		return lunad.Result{}, false, nil
	}
	if why := keyMismatch(e, w, id, agent); why != "" {
		used := e.Rec.Agent
		if used == "" {
			used = e.Author
		}
		return lunad.Result{}, true, &lunad.KeyReusedError{Key: w.ch.IdempotencyKey,
			Use: fmt.Sprintf("%s of %s by %s at %.12s", e.Rec.Op, e.Rec.Artifact, used, e.Commit), Why: why}
	}
	m, err := t.meta(e.Rec.Artifact)
	if err != nil {
		return lunad.Result{}, true, err
	}
	return lunad.Result{Artifact: t.s.withVersion(m.artifact()), Version: e.version(e.Rec.Artifact), Replayed: true}, true, nil
}

// keyMismatch says how w differs from the request recorded in e, or "".
func keyMismatch(e *entry, w *write, id, agent string) string {
	switch {
	case e.Rec.Op != w.op:
		return "this request is to " + string(w.op)
	case id != "" && e.Rec.Artifact != id:
		return "this request is for " + id
	case e.Rec.Agent != agent:
		return "this request is by " + agent
	case e.Rec.Request != "" && e.Rec.Request != w.digest:
		return "this request differs in its input, base version, message or trailers"
	}
	return ""
}
