package procagent

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// TestDecodeResponse covers the decoder's classification beyond what
// TestProcess runs for real.
func TestDecodeResponse(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		in        string
		want      lunad.StageResponse
		err       string
		permanent bool
	}{
		{name: "minimal", in: `{"status":"ok"}`, want: lunad.StageResponse{Status: "ok"}},
		{name: "nulls", in: `{"status":"fail","permanent":null,"output":null,"writes":null,"error":null}`, want: lunad.StageResponse{Status: "fail"}},
		{name: "unknown fields ignored", in: "\n {\"status\":\"ok\",\"extra\":[1,2]} \n", want: lunad.StageResponse{Status: "ok"}},
		{name: "output compacted", in: `{"status":"ok","output":{ "a" : [ 1, 2 ] }}`, want: lunad.StageResponse{Status: "ok", Output: json.RawMessage(`{"a":[1,2]}`)}},
		{name: "empty writes", in: `{"status":"ok","writes":[]}`, want: lunad.StageResponse{Status: "ok"}},
		{name: "agent, trailers and files", in: `{"status":"ok","agent":"writer","trailers":{"Model":"m1"},"files":{"llm/0001.json":"{}"}}`,
			want: lunad.StageResponse{Status: "ok", Agent: "writer", Trailers: map[string]string{"Model": "m1"}, Files: map[string]string{"llm/0001.json": "{}"}}},
		{name: "empty trailers and null files", in: `{"status":"ok","trailers":{},"files":null}`, want: lunad.StageResponse{Status: "ok"}},
		{name: "agent not a string", in: `{"status":"ok","agent":["w"]}`, err: `"agent" is an array, not a string`, permanent: true},
		{name: "trailers an array", in: `{"status":"ok","trailers":["Model"]}`, err: `"trailers" is an array, not an object`, permanent: true},
		{name: "a file not a string", in: `{"status":"ok","files":{"a.json":{"x":1}}}`, err: `files["a.json"] is an object, not a string`, permanent: true},
		{name: "null", in: `null`, err: "stdout is not a JSON object: it is null"},
		{name: "number", in: `42`, err: "stdout is not a JSON object: it is a number"},
		{name: "string", in: `"ok"`, err: "stdout is not a JSON object: it is a string"},
		{name: "status null", in: `{"status":null}`, err: `status "" is neither "ok" nor "fail"`, permanent: true},
		{name: "status a number", in: `{"status":1}`, err: `"status" is a number, not a string`, permanent: true},
		{name: "status in capitals", in: `{"status":"OK"}`, err: `status "OK" is neither`, permanent: true},
		{name: "error not a string", in: `{"status":"fail","error":{"code":1}}`, err: `"error" is an object, not a string`, permanent: true},
		{name: "output an array", in: `{"status":"ok","output":[1]}`, err: `"output" is an array, not an object`, permanent: true},
		{name: "writes an object", in: `{"status":"ok","writes":{"path":"a"}}`, err: `"writes" is an object, not an array`, permanent: true},
		{name: "write a string", in: `{"status":"ok","writes":["a"]}`, err: `writes[0] is a string, not an object`, permanent: true},
		{name: "write null", in: `{"status":"ok","writes":[null]}`, err: `writes[0] is null, not an object`, permanent: true},
		{name: "write base a number", in: `{"status":"ok","writes":[{"path":"a","content":"x","base":1}]}`, err: `writes[0]: "base" is a number, not a string`, permanent: true},
		{name: "write content a number", in: `{"status":"ok","writes":[{"path":"a","content":1}]}`, err: `writes[0]: "content" is a number, not a string`, permanent: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			resp, err := decodeResponse([]byte(c.in))
			if c.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(resp, c.want) {
					t.Errorf("response = %+v, want %+v", resp, c.want)
				}
				return
			}
			agentErr(t, err, c.permanent, c.err)
			if c.permanent && !errors.Is(err, errContract) {
				t.Errorf("err = %v does not wrap errContract", err)
			}
		})
	}
}

// FuzzDecodeResponse: the decoder never panics and classifies every
// input: a response that keeps the contract (and decodes again to
// itself), a transient error for what is not a JSON object, or a
// permanent contract error.
func FuzzDecodeResponse(f *testing.F) {
	for _, s := range []string{
		``, ` `, `x`, `null`, `[]`, `{}`, `{"status":"ok"}`, `{"status":"fail","permanent":true,"error":"e"}`,
		`{"status":"ok","output":{"a":1},"writes":[{"path":"p","content":"c"}]}`,
		`{"status":"ok","writes":[{"path":""}]}`, `{"status":"done"}`, `{"status":"ok","output":"s"}`,
		`{"status":"ok"} {}`, `{"status":"ok","status":"fail"}`, "{\"status\":\"ok\",\"writes\":[{\"path\":\"\\u00e9\",\"content\":\"\xff\"}]}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		resp, err := decodeResponse(in)
		if err != nil {
			var ae *lunad.AgentError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v (%T), not an AgentError", err, err)
			}
			msg := err.Error()
			switch {
			case ae.Permanent && errors.Is(err, errContract) && json.Valid(in):
			case !ae.Permanent && (msg == "printed nothing" || strings.HasPrefix(msg, "stdout is not a JSON object: ")):
			default:
				t.Fatalf("unclassified error (permanent %v): %v", ae.Permanent, err)
			}
			if !reflect.DeepEqual(resp, lunad.StageResponse{}) {
				t.Fatalf("a response with an error: %+v", resp)
			}
			return
		}
		if resp.Status != "ok" && resp.Status != "fail" {
			t.Fatalf("status %q accepted", resp.Status)
		}
		if resp.Output != nil && (!json.Valid(resp.Output) || resp.Output[0] != '{') {
			t.Fatalf("output %q is not an object", resp.Output)
		}
		for i, w := range resp.Writes {
			if w.Path == "" {
				t.Fatalf("writes[%d] has an empty path", i)
			}
		}
		again, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		resp2, err := decodeResponse(again)
		if err != nil || !reflect.DeepEqual(resp, resp2) {
			t.Fatalf("%s decodes to %+v, %v; want %+v", again, resp2, err, resp)
		}
	})
}

// TestRing: the ring keeps the last bytes written, whatever the writes'
// sizes.
func TestRing(t *testing.T) {
	t.Parallel()
	var all strings.Builder
	r := ring{keep: 10}
	for _, s := range []string{"abc", "defghij", "k", "lmnopqrstuvwxyz0123", "4", "56789", "", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"} {
		r.Write([]byte(s))
		all.WriteString(s)
		want := all.String()[max(0, all.Len()-10):]
		if got := string(r.bytes()); got != want {
			t.Fatalf("after %q: %q, want %q", s, got, want)
		}
	}
}

// TestMessages: sizes and the stderr tail are worded precisely.
func TestMessages(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{16 << 20: "16 MiB", 64 << 10: "64 KiB", 1000: "1000 bytes", 1<<20 + 1: "1048577 bytes"} {
		if got := size(n); got != want {
			t.Errorf("size(%d) = %q, want %q", n, got, want)
		}
	}
	// A tail cut inside a rune starts at the next rune.
	stderr := strings.Repeat("é", stderrTail) + "!" // 2 bytes each: the cut falls inside one
	got := withStderr("exit status 1", []byte(stderr)).Error()
	want := "exit status 1; stderr: …" + strings.Repeat("é", stderrTail/2-1) + "!"
	if got != want {
		t.Errorf("withStderr = %q…, want %q…", got[:40], want[:40])
	}
	if got := withStderr("printed nothing", []byte(" \n")).Error(); got != "printed nothing" {
		t.Errorf("withStderr with blank stderr = %q", got)
	}
}
