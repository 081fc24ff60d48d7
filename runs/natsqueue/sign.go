package natsqueue

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"github.com/lunad/lunad"
)

// The headers that carry a message's signature: the signer's public key
// (an nkeys user key, "U…") and the ed25519 signature of the message's
// canonical encoding, base64url without padding.
const (
	hdrSigner    = "Luna-Signer"
	hdrSignature = "Luna-Signature"
)

// The kinds of signed messages: a stage message is the daemon's, a result
// a worker's. The kind is signed, so that one is never taken for the other.
const (
	kindStage  = "stage"
	kindResult = "result"
)

// identity names the attempt a message is about: a stage message asks for
// it, a result answers it. Both carry it in their body, and it is signed.
type identity struct {
	Run             string `json:"run"`
	Workflow        string `json:"workflow"`
	WorkflowVersion string `json:"workflow_version"`
	Stage           string `json:"stage"`
	Attempt         int    `json:"attempt"`
	Key             string `json:"idempotency_key"`
}

func identityOf(req lunad.StageRequest) identity {
	return identity{Run: req.RunID, Workflow: req.Workflow, WorkflowVersion: req.WorkflowVersion,
		Stage: req.Stage, Attempt: req.Attempt, Key: req.IdempotencyKey}
}

// canonical is what is signed: a version line, then the kind, the
// subject, the identity's fields and the SHA-256 of the body, each on a
// line of its own and quoted (so no value can forge a line). The body is
// the message's bytes as sent; its digest covers everything in it.
func canonical(kind, subject string, id identity, body []byte) []byte {
	sum := sha256.Sum256(body)
	var b strings.Builder
	b.WriteString("lunad-queue-signature/1\n")
	for _, v := range []string{kind, subject, id.Run, id.Workflow, id.WorkflowVersion, id.Stage,
		strconv.Itoa(id.Attempt), id.Key, hex.EncodeToString(sum[:])} {
		b.WriteString(strconv.Quote(v))
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// sign sets m's signature headers for a message of kind about id, signed
// with kp.
func sign(kp nkeys.KeyPair, m *nats.Msg, kind string, id identity) error {
	pub, err := kp.PublicKey()
	if err != nil {
		return err
	}
	sig, err := kp.Sign(canonical(kind, m.Subject, id, m.Data))
	if err != nil {
		return err
	}
	if m.Header == nil {
		m.Header = nats.Header{}
	}
	m.Header.Set(hdrSigner, pub)
	m.Header.Set(hdrSignature, base64.RawURLEncoding.EncodeToString(sig))
	return nil
}

// errUnsigned and errUntrusted are why verify refuses a message.
var (
	errUnsigned  = errors.New("it is not signed")
	errUntrusted = errors.New("its signer's key is not registered")
	errForged    = errors.New("its signature does not verify")
)

// verify checks that a message of kind about id, received on subject with
// header h and body, is signed by one of trusted's keys, and returns that
// key. Its errors are errUnsigned, errUntrusted and errForged, wrapped.
func verify(trusted map[string]bool, h nats.Header, kind, subject string, id identity, body []byte) (string, error) {
	signer, sig64 := h.Get(hdrSigner), h.Get(hdrSignature)
	if signer == "" || sig64 == "" {
		return "", errUnsigned
	}
	if !trusted[signer] {
		return signer, fmt.Errorf("%w (%s)", errUntrusted, signer)
	}
	sig, err := base64.RawURLEncoding.DecodeString(sig64)
	if err != nil {
		return signer, fmt.Errorf("%w: %v", errForged, err)
	}
	pub, err := nkeys.FromPublicKey(signer)
	if err != nil {
		return signer, fmt.Errorf("%w: %v", errForged, err)
	}
	if err := pub.Verify(canonical(kind, subject, id, body), sig); err != nil {
		return signer, fmt.Errorf("%w (%s)", errForged, signer)
	}
	return signer, nil
}
