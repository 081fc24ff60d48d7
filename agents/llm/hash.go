package llm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Hash is the request's canonical hash: "sha256:" and the hex SHA-256 of
// its canonical JSON (CanonicalJSON). Equal requests — whatever the key
// order or spacing of their schemas and arguments — hash alike.
func Hash(req Request) string {
	sum := sha256.Sum256(CanonicalJSON(req))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// CanonicalJSON is req as JSON with object keys sorted, no insignificant
// space, numbers as written and no HTML escaping.
func CanonicalJSON(req Request) []byte {
	raw, err := json.Marshal(validSchemas(req))
	if err != nil { // cannot happen: ToolCall and validSchemas turn invalid JSON into text
		panic("llm: marshal request: " + err.Error())
	}
	return canonical(raw)
}

// validSchemas returns req with every invalid schema replaced by a JSON
// string of its text, so that it can be marshalled (and still hashes
// differently from any other schema).
func validSchemas(req Request) Request {
	valid := func(s json.RawMessage) bool { return len(s) == 0 || json.Valid(s) }
	text := func(s json.RawMessage) json.RawMessage {
		q, _ := json.Marshal(string(s))
		return q
	}
	tools := req.Tools
	for i, t := range req.Tools {
		if !valid(t.Schema) {
			if &tools[0] == &req.Tools[0] {
				tools = append([]Tool(nil), req.Tools...)
			}
			tools[i].Schema = text(t.Schema)
		}
	}
	req.Tools = tools
	if req.Format != nil && !valid(req.Format.Schema) {
		f := *req.Format
		f.Schema = text(f.Schema)
		req.Format = &f
	}
	return req
}

// CanonicalArgs is a tool call's arguments as canonical JSON (keys
// sorted, no insignificant space, numbers as written), so the same call
// reads the same however the model spaced it; arguments that are not
// JSON are returned as written.
func CanonicalArgs(raw json.RawMessage) string { return string(canonical(raw)) }

// canonical re-encodes valid JSON with sorted keys; it returns other
// input unchanged.
func canonical(raw []byte) []byte {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil || d.More() {
		return raw
	}
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return raw
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
