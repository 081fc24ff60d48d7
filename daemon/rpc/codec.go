package rpc

import (
	"bytes"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
)

// codec is the payload codec of both ends: encoding/json, without HTML
// escaping. (jsonrpc2's default, encoding/json/v2, turns nil slices into
// [] and would change what the CLI prints through a daemon.)
type codec struct{}

func (codec) Marshal(v any) ([]byte, error) {
	switch raw := v.(type) { // already encoded: verbatim, as jsonrpc2.Codec requires
	case jsonrpc2.RawMessage:
		if raw == nil {
			return []byte("null"), nil
		}
		return raw, nil
	case json.RawMessage:
		if raw == nil {
			return []byte("null"), nil
		}
		return raw, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func (codec) Unmarshal(data []byte, v any) error {
	switch p := v.(type) {
	case *jsonrpc2.RawMessage:
		*p = append((*p)[:0:0], data...)
		return nil
	case *json.RawMessage:
		*p = append((*p)[:0:0], data...)
		return nil
	}
	return json.Unmarshal(data, v)
}
