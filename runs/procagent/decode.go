package procagent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/lunad/lunad"
)

// decodeResponse reads what an agent printed on stdout (having exited 0).
// It returns the response, or a *lunad.AgentError: transient when stdout
// is empty or not one JSON object, permanent when the object breaks the
// contract.
func decodeResponse(stdout []byte) (lunad.StageResponse, error) {
	if len(bytes.TrimSpace(stdout)) == 0 {
		return lunad.StageResponse{}, transient(errors.New("printed nothing"))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(stdout, &fields); err != nil {
		return lunad.StageResponse{}, transient(fmt.Errorf("stdout is not a JSON object: %s", describeJSONError(stdout, err)))
	}
	if fields == nil { // null
		return lunad.StageResponse{}, transient(errors.New("stdout is not a JSON object: it is null"))
	}
	var resp lunad.StageResponse
	if err := decodeField(fields, "status", &resp.Status); err != nil {
		return lunad.StageResponse{}, brokeContract("%v", err)
	}
	if err := decodeField(fields, "permanent", &resp.Permanent); err != nil {
		return lunad.StageResponse{}, brokeContract("%v", err)
	}
	if err := decodeField(fields, "error", &resp.Error); err != nil {
		return lunad.StageResponse{}, brokeContract("%v", err)
	}
	if err := decodeField(fields, "agent", &resp.Agent); err != nil {
		return lunad.StageResponse{}, brokeContract("%v", err)
	}
	var err error
	if resp.Trailers, err = stringMap(fields, "trailers"); err != nil {
		return lunad.StageResponse{}, err
	}
	if resp.Files, err = stringMap(fields, "files"); err != nil {
		return lunad.StageResponse{}, err
	}
	switch resp.Status {
	case "ok", "fail":
	case "":
		if _, ok := fields["status"]; !ok {
			return lunad.StageResponse{}, brokeContract(`no "status"`)
		}
		fallthrough
	default:
		return lunad.StageResponse{}, brokeContract(`status %q is neither "ok" nor "fail"`, resp.Status)
	}
	if raw := fields["output"]; raw != nil && !isNull(raw) {
		if k := kind(raw); k != "an object" {
			return lunad.StageResponse{}, brokeContract(`"output" is %s, not an object`, k)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil { // valid: Unmarshal checked it
			return lunad.StageResponse{}, brokeContract(`"output": %v`, err)
		}
		resp.Output = buf.Bytes()
	}
	if raw := fields["writes"]; raw != nil && !isNull(raw) {
		var writes []json.RawMessage
		if err := json.Unmarshal(raw, &writes); err != nil {
			return lunad.StageResponse{}, brokeContract(`"writes" is %s, not an array`, kind(raw))
		}
		for i, w := range writes {
			var wf map[string]json.RawMessage
			if err := json.Unmarshal(w, &wf); err != nil || wf == nil {
				return lunad.StageResponse{}, brokeContract(`writes[%d] is %s, not an object`, i, kind(w))
			}
			var sw lunad.StageWrite
			if err := decodeField(wf, "path", &sw.Path); err != nil {
				return lunad.StageResponse{}, brokeContract("writes[%d]: %v", i, err)
			}
			if err := decodeField(wf, "content", &sw.Content); err != nil {
				return lunad.StageResponse{}, brokeContract("writes[%d]: %v", i, err)
			}
			if err := decodeField(wf, "base", &sw.Base); err != nil {
				return lunad.StageResponse{}, brokeContract("writes[%d]: %v", i, err)
			}
			if sw.Path == "" {
				return lunad.StageResponse{}, brokeContract(`writes[%d] has an empty path`, i)
			}
			resp.Writes = append(resp.Writes, sw)
		}
	}
	return resp, nil
}

// stringMap decodes fields[name], when present and not null, as an object
// of strings (the response's trailers and files).
func stringMap(fields map[string]json.RawMessage, name string) (map[string]string, error) {
	raw, ok := fields[name]
	if !ok || isNull(raw) {
		return nil, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, brokeContract(`%q is %s, not an object`, name, kind(raw))
	}
	var out map[string]string
	for k, v := range obj {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, brokeContract(`%s[%q] is %s, not a string`, name, k, kind(v))
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = s
	}
	return out, nil
}

// decodeField decodes fields[name], when present and not null, into dst
// (a *string or a *bool); a value of another type is an error.
func decodeField(fields map[string]json.RawMessage, name string, dst any) error {
	raw, ok := fields[name]
	if !ok || isNull(raw) {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		want := "a string"
		if _, isBool := dst.(*bool); isBool {
			want = "a boolean"
		}
		return fmt.Errorf(`%q is %s, not %s`, name, kind(raw), want)
	}
	return nil
}

var errContract = errors.New("broke the agent contract")

// brokeContract is the permanent error of an agent whose response is
// structured but wrong: retrying the same code will not fix it.
func brokeContract(format string, args ...any) error {
	return &lunad.AgentError{Permanent: true, Err: fmt.Errorf("%w: %w", errContract, fmt.Errorf(format, args...))}
}

func transient(err error) error { return &lunad.AgentError{Err: err} }

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// kind names the type of a valid JSON value, for messages.
func kind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// describeJSONError words why stdout is not one JSON object: a syntax
// error with the offset of the offending byte, or the type of the value.
func describeJSONError(stdout []byte, err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		// Offset counts the bytes read, an offending character included.
		off := syn.Offset
		if strings.HasPrefix(syn.Error(), "invalid character") && off > 0 {
			off--
		}
		return fmt.Sprintf("%v at offset %d", syn, off)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return "it is " + kind(stdout)
	}
	return err.Error()
}
