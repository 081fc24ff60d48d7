package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// The test's model servers: two real HTTP servers on 127.0.0.1, one
// speaking OpenAI's chat-completions protocol and one Anthropic's Messages
// protocol, both answering through one model (testModel) that decides
// from what a model sees — the system prompt's role, the tools offered,
// the user's request, the artifacts in the context, the tool results — and
// returns tool calls, as a model would. Every request is kept (seen) for
// the test's assertions on what each role was sent.

// turn is one message of a conversation, either protocol's, normalised.
type turn struct {
	Role      string // user, assistant, tool
	Text      string
	Calls     []modelCall
	IsError   bool
	ToolUseID string
}

// modelCall is a tool call the model makes.
type modelCall struct {
	ID   string
	Name string
	Args string // JSON, as the model writes it (may be invalid)
}

// seen is one request a model server received.
type seen struct {
	Protocol string // openai or anthropic
	Model    string
	Role     string // the system prompt's first line's name: supervisor, coder, writer, reviewer
	System   string
	Turns    []turn
	Tools    []string
	Format   string // the structured output's name (route), if any
}

// reply is the model's answer: text, or tool calls.
type reply struct {
	Text  string
	Calls []modelCall
}

// testModel is the model behind both servers. Misbehave, when set, makes
// it answer as a broken model would ("invalid_json": the route is not
// JSON; "unknown_tool": the worker calls a tool it was not offered).
type testModel struct {
	mu        sync.Mutex
	Key       string // the API key a request must carry
	Misbehave string
	Seen      []seen
	Requests  int // every HTTP request, refused ones included
	n         int // tool call IDs
	// Hold, when set, is called with the count of a goal's model calls
	// before the call is answered (it may block).
	Hold func(call int)
	// Working, when set, is called before a worker's (coder, writer,
	// reviewer) call is answered, with what it was sent (it may block):
	// what happens in the workspace while a stage works.
	Working func(s seen)
}

// requests are the requests seen from role.
func (m *testModel) requests(role string) []seen {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []seen
	for _, s := range m.Seen {
		if s.Role == role {
			out = append(out, s)
		}
	}
	return out
}

func (m *testModel) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.Requests
}

// answer decides the reply to s.
func (m *testModel) answer(s seen) reply {
	m.mu.Lock()
	m.Seen = append(m.Seen, s)
	goals := 0
	for _, x := range m.Seen {
		if x.Role == "goal" {
			goals++
		}
	}
	hold, working := m.Hold, m.Working
	m.mu.Unlock()
	if s.Role == "goal" {
		if hold != nil {
			hold(goals)
		}
		if len(s.Tools) == 0 { // --plan: a plan in words
			return reply{Text: goalPlan}
		}
		return m.calls(goalStep(s))
	}
	if working != nil && s.Role != "supervisor" && s.Format != "route" {
		working(s)
	}
	if s.Format == "route" || s.Role == "supervisor" {
		if m.Misbehave == "invalid_json" {
			return reply{Text: `{"intent": "create", "worker": "coder", "target": nul`}
		}
		return reply{Text: route(s)}
	}
	last := s.Turns[len(s.Turns)-1]
	if last.Role == "tool" {
		if last.IsError {
			if m.Misbehave == "unknown_tool" {
				return m.calls(modelCall{Name: "delete_everything", Args: `{"really": true}`})
			}
			return reply{Text: "I could not do it: " + last.Text}
		}
		return m.calls(modelCall{Name: "finish", Args: mustJSON(map[string]string{"summary": summary(request(s))})})
	}
	if m.Misbehave == "unknown_tool" {
		return m.calls(modelCall{Name: "delete_everything", Args: `{"really": true}`})
	}
	return m.calls(work(s))
}

func (m *testModel) calls(cs ...modelCall) reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range cs {
		m.n++
		cs[i].ID = fmt.Sprintf("call_%d", m.n)
	}
	return reply{Calls: cs}
}

// request is the user's request, as the first user message states it.
func request(s seen) string {
	for _, t := range s.Turns {
		if t.Role == "user" {
			if m := regexp.MustCompile(`(?m)^Request: (.*)$`).FindStringSubmatch(t.Text); m != nil {
				return m[1]
			}
		}
	}
	return ""
}

// listed is one artifact of the supervisor's metadata lines.
type listed struct{ id, path, typ string }

// route is the supervisor's structured answer: it reads the request and
// the artifacts' metadata lines (id, path, type, "title", status, vN).
func route(s seen) string {
	var arts []listed
	for _, l := range strings.Split(s.Turns[0].Text, "\n") {
		f := strings.Split(l, "\t")
		if len(f) == 6 && strings.HasPrefix(f[5], "v") {
			arts = append(arts, listed{f[0], f[1], f[2]})
		}
	}
	find := func(typePrefix string) *string {
		for _, a := range arts {
			if strings.HasPrefix(a.typ, typePrefix) {
				return &a.id
			}
		}
		return nil
	}
	req := strings.ToLower(request(s))
	r := map[string]any{"target": nil, "new_artifact": nil, "read_deps": []string{}, "question": nil}
	switch {
	case strings.Contains(req, "python function"):
		r["intent"], r["worker"], r["reason"] = "create", "coder", "new code"
		r["new_artifact"] = map[string]string{"title": "TOML config parser", "type": "code/python", "path": "src/config.py"}
	case strings.Contains(req, "article"):
		r["intent"], r["worker"], r["reason"] = "create", "writer", "an article about the code"
		r["new_artifact"] = map[string]string{"title": "Reading a TOML config", "type": "text/markdown", "path": "docs/config.md"}
		if code := find("code/"); code != nil {
			r["read_deps"] = []string{*code}
		}
	case strings.Contains(req, "rename"):
		r["intent"], r["worker"], r["reason"], r["target"] = "edit", "coder", "a change to the code", find("code/")
	default: // the second paragraph; the stale docs
		r["intent"], r["worker"], r["reason"], r["target"] = "edit", "writer", "a change to the article", find("text/")
	}
	return mustJSON(r)
}

// block is an artifact block of a worker's context.
type block struct {
	id, mode string
	lines    []string
}

var blockRE = regexp.MustCompile(`(?s)<artifact id="([^"]*)"[^>]*mode="([^"]*)"[^>]*>\n(.*?)</artifact>`)

// blocks are the artifact blocks of the first user message, their lines
// without the line numbers the active one's have.
func blocks(s seen) []block {
	var out []block
	for _, m := range blockRE.FindAllStringSubmatch(s.Turns[0].Text, -1) {
		b := block{id: m[1], mode: m[2]}
		for _, l := range strings.Split(strings.TrimSuffix(m[3], "\n"), "\n") {
			if b.mode == "active_write" {
				_, l, _ = strings.Cut(l, "\t")
			}
			b.lines = append(b.lines, l)
		}
		out = append(out, b)
	}
	return out
}

const configCode = `import tomllib


def parse_config(path):
    """Read the TOML file at path into a dict."""
    with open(path, "rb") as f:
        return tomllib.load(f)
`

// work is a worker's first move: create or edit, from the request and
// the context.
func work(s seen) modelCall {
	req := strings.ToLower(request(s))
	var active, source *block
	for _, b := range blocks(s) {
		switch b.mode {
		case "active_write":
			active = &b
		case "read_only":
			if source == nil {
				source = &b
			}
		}
	}
	switch {
	case strings.Contains(req, "python function"):
		return modelCall{Name: "create_artifact", Args: mustJSON(map[string]string{"title": "TOML config parser", "type": "code/python", "path": "src/config.py", "content": configCode})}
	case strings.Contains(req, "article"):
		fn := "the function"
		if source != nil {
			for _, l := range source.lines {
				if m := regexp.MustCompile(`^def (\w+)`).FindStringSubmatch(l); m != nil {
					fn = m[1]
				}
			}
		}
		text := "# Reading a TOML config\n\n`" + fn + "` reads a configuration file written in TOML.\n\n" +
			"It opens the file in binary mode and hands it to the standard library's tomllib.\n\n" +
			"Call `" + fn + "` with the file's path to get a dictionary.\n"
		return modelCall{Name: "create_artifact", Args: mustJSON(map[string]string{"title": "Reading a TOML config", "type": "text/markdown", "path": "docs/config.md", "content": text})}
	case active == nil:
		return modelCall{Name: "finish", Args: `{"summary": "there was nothing to change"}`}
	case strings.Contains(req, "mark the second paragraph with "):
		p := paragraphs(active.lines)[1]
		fields := strings.Fields(request(s))
		return editCall(active.id, p, p+" "+fields[len(fields)-1])
	case strings.Contains(req, "second paragraph"):
		paras := paragraphs(active.lines)
		p := paras[1]
		return editCall(active.id, p, strings.TrimSuffix(p, ".")+", and a JSON file through the json module works the same way.")
	case strings.Contains(req, "rename"):
		return replaceAll(active, "parse_config", "load_config")
	default: // update the stale docs: the code's new name, from the read-only source
		return replaceAll(active, "parse_config", "load_config")
	}
}

// paragraphs are the prose paragraphs of lines (headings left out).
func paragraphs(lines []string) []string {
	var out []string
	cur := ""
	for _, l := range append(lines, "") {
		switch {
		case strings.TrimSpace(l) == "":
			if cur != "" {
				out = append(out, cur)
			}
			cur = ""
		case strings.HasPrefix(l, "#"):
		case cur == "":
			cur = l
		default:
			cur += "\n" + l
		}
	}
	return out
}

// replaceAll edits every line of b holding old.
func replaceAll(b *block, old, new string) modelCall {
	var edits []map[string]string
	for _, l := range b.lines {
		if strings.Contains(l, old) {
			edits = append(edits, map[string]string{"search": l, "replace": strings.ReplaceAll(l, old, new)})
		}
	}
	return modelCall{Name: "edit_artifact", Args: mustJSON(map[string]any{"id": b.id, "blocks": edits})}
}

func editCall(id, search, replace string) modelCall {
	return modelCall{Name: "edit_artifact", Args: mustJSON(map[string]any{"id": id, "blocks": []map[string]string{{"search": search, "replace": replace}}})}
}

func summary(req string) string { return "done: " + req }

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// roleOf is the role a system prompt gives the model: "You are the
// writer of …", or the router's "You route …".
func roleOf(system string) string {
	if m := regexp.MustCompile(`^You are the (\w+) of`).FindStringSubmatch(system); m != nil {
		return m[1]
	}
	if strings.HasPrefix(system, "You route ") {
		return "supervisor"
	}
	if strings.HasPrefix(system, goalPromptStart) {
		return "goal"
	}
	return ""
}

// usage is a token count of what the model read and wrote, in words.
func usage(s seen, r reply) (in, out int) {
	in = len(strings.Fields(s.System))
	for _, t := range s.Turns {
		in += len(strings.Fields(t.Text))
	}
	out = len(strings.Fields(r.Text))
	for _, c := range r.Calls {
		out += len(strings.Fields(c.Args))
	}
	return in, out
}

// refuse answers a request without the right key as the provider does.
func (m *testModel) authorized(w http.ResponseWriter, got string, body string) bool {
	m.mu.Lock()
	m.Requests++
	key := m.Key
	m.mu.Unlock()
	if got == key {
		return true
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	fmt.Fprint(w, body)
	return false
}

// openAIServer serves POST /v1/chat/completions.
func openAIServer(t *testing.T, m *testModel) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.Error(w, `{"error": {"message": "not found", "type": "invalid_request_error"}}`, http.StatusNotFound)
			return
		}
		if !m.authorized(w, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "),
			`{"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error", "code": "invalid_api_key"}}`) {
			return
		}
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role       string          `json:"role"`
				Content    json.RawMessage `json:"content"`
				ToolCallID string          `json:"tool_call_id"`
				ToolCalls  []struct {
					ID       string `json:"id"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"messages"`
			Tools []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tools"`
			ResponseFormat *struct {
				Type       string `json:"type"`
				JSONSchema struct {
					Name string `json:"name"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, `{"error": {"message": "bad JSON", "type": "invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		s := seen{Protocol: "openai", Model: req.Model}
		for _, msg := range req.Messages {
			text := openAIText(msg.Content)
			switch msg.Role {
			case "system", "developer":
				s.System = text
				continue
			}
			tu := turn{Role: msg.Role, Text: text, ToolUseID: msg.ToolCallID}
			for _, c := range msg.ToolCalls {
				tu.Calls = append(tu.Calls, modelCall{ID: c.ID, Name: c.Function.Name, Args: c.Function.Arguments})
			}
			if msg.Role == "tool" {
				tu.IsError = strings.HasPrefix(text, "error") || strings.HasPrefix(text, "Error")
			}
			s.Turns = append(s.Turns, tu)
		}
		for _, tl := range req.Tools {
			s.Tools = append(s.Tools, tl.Function.Name)
		}
		if f := req.ResponseFormat; f != nil && f.Type == "json_schema" {
			s.Format = f.JSONSchema.Name
		}
		s.Role = roleOf(s.System)
		rep := m.answer(s)
		in, out := usage(s, rep)
		msg := map[string]any{"role": "assistant", "content": rep.Text}
		finish := "stop"
		if len(rep.Calls) > 0 {
			var calls []map[string]any
			for _, c := range rep.Calls {
				calls = append(calls, map[string]any{"id": c.ID, "type": "function", "function": map[string]string{"name": c.Name, "arguments": c.Args}})
			}
			msg["tool_calls"], msg["content"], finish = calls, nil, "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-test", "object": "chat.completion", "created": 1767225600, "model": req.Model,
			"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
			"usage":   map[string]int{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// openAIText is a message's content: a string or an array of text parts.
func openAIText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct{ Type, Text string }
	json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// anthropicServer serves POST /v1/messages.
func anthropicServer(t *testing.T, m *testModel) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/messages") {
			http.Error(w, `{"type": "error", "error": {"type": "not_found_error", "message": "not found"}}`, http.StatusNotFound)
			return
		}
		if r.Header.Get("anthropic-version") == "" {
			http.Error(w, `{"type": "error", "error": {"type": "invalid_request_error", "message": "anthropic-version header is required"}}`, http.StatusBadRequest)
			return
		}
		// The key comes as x-api-key, or as a bearer token (how the
		// official Go SDK v2 sends WithAPIKey).
		key := r.Header.Get("X-Api-Key")
		if key == "" {
			key = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		}
		if !m.authorized(w, key, `{"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}`) {
			return
		}
		type content struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
			IsError   bool            `json:"is_error"`
		}
		var req struct {
			Model     string          `json:"model"`
			MaxTokens int             `json:"max_tokens"`
			System    json.RawMessage `json:"system"`
			Messages  []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
			ToolChoice *struct {
				Type string `json:"type"`
				Name string `json:"name"`
			} `json:"tool_choice"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.MaxTokens <= 0 {
			http.Error(w, `{"type": "error", "error": {"type": "invalid_request_error", "message": "bad request: max_tokens is required"}}`, http.StatusBadRequest)
			return
		}
		s := seen{Protocol: "anthropic", Model: req.Model, System: openAIText(req.System)}
		for _, msg := range req.Messages {
			var parts []content
			if json.Unmarshal(msg.Content, &parts) != nil {
				s.Turns = append(s.Turns, turn{Role: msg.Role, Text: openAIText(msg.Content)})
				continue
			}
			tu := turn{Role: msg.Role}
			for _, p := range parts {
				switch p.Type {
				case "text":
					tu.Text += p.Text
				case "tool_use":
					tu.Calls = append(tu.Calls, modelCall{ID: p.ID, Name: p.Name, Args: string(p.Input)})
				case "tool_result":
					// Each result is a turn of its own, as OpenAI's are.
					s.Turns = append(s.Turns, turn{Role: "tool", Text: openAIText(p.Content), IsError: p.IsError, ToolUseID: p.ToolUseID})
				}
			}
			if tu.Text != "" || len(tu.Calls) > 0 {
				s.Turns = append(s.Turns, tu)
			}
		}
		for _, tl := range req.Tools {
			s.Tools = append(s.Tools, tl.Name)
		}
		if tc := req.ToolChoice; tc != nil && tc.Type == "tool" {
			s.Format = tc.Name // structured output as a forced tool call
		}
		s.Role = roleOf(s.System)
		rep := m.answer(s)
		in, out := usage(s, rep)
		var parts []map[string]any
		stop := "end_turn"
		if s.Format != "" && rep.Text != "" && len(rep.Calls) == 0 {
			// The forced tool's input is the answer; an answer that is not
			// JSON is sent as the model's text, as a model that ignores the
			// forced tool does.
			if json.Valid([]byte(rep.Text)) {
				parts = append(parts, map[string]any{"type": "tool_use", "id": "toolu_route", "name": s.Format, "input": json.RawMessage(rep.Text)})
				stop = "tool_use"
			} else {
				parts = append(parts, map[string]any{"type": "text", "text": rep.Text})
			}
		} else if rep.Text != "" {
			parts = append(parts, map[string]any{"type": "text", "text": rep.Text})
		}
		for _, c := range rep.Calls {
			input := json.RawMessage(c.Args)
			if !json.Valid(input) {
				input = json.RawMessage(`{}`)
			}
			parts = append(parts, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": input})
			stop = "tool_use"
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "msg_test", "type": "message", "role": "assistant", "model": req.Model, "content": parts,
			"stop_reason": stop, "stop_sequence": nil, "usage": map[string]int{"input_tokens": in, "output_tokens": out},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestModelServers: the test's model servers speak their protocols — a
// supervisor's request gets a route (OpenAI: the message's content;
// Anthropic: the forced tool's input), a worker's first turn a tool call,
// a tool result the call to finish; a wrong key is a 401 in the
// provider's error format.
func TestModelServers(t *testing.T) {
	m := &testModel{Key: "k-test"}
	oa, an := openAIServer(t, m), anthropicServer(t, m)
	post := func(url string, header map[string]string, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, out
	}
	supervisor := "Request: write an article explaining it\\nActive artifact: none\\nArtifacts (id, path, type, title, status, version):\\nc1\\tsrc/config.py\\tcode/python\\t\\\"TOML config parser\\\"\\tactive\\tv1\\n"
	code, out := post(oa.URL+"/v1/chat/completions", map[string]string{"Authorization": "Bearer k-test"},
		`{"model": "gpt-test", "messages": [{"role": "system", "content": "You route a request."}, {"role": "user", "content": "`+supervisor+`"}],
		  "response_format": {"type": "json_schema", "json_schema": {"name": "route", "schema": {}, "strict": true}}}`)
	content := out["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"].(string)
	if code != 200 || !strings.Contains(content, `"read_deps":["c1"]`) || !strings.Contains(content, `"worker":"writer"`) {
		t.Fatalf("openai route: %d %v", code, out)
	}
	code, out = post(an.URL+"/v1/messages", map[string]string{"X-Api-Key": "k-test", "anthropic-version": "2023-06-01"},
		`{"model": "claude-test", "max_tokens": 100, "system": "You route a request.", "messages": [{"role": "user", "content": "`+supervisor+`"}],
		  "tools": [{"name": "route", "input_schema": {"type": "object"}}], "tool_choice": {"type": "tool", "name": "route"}}`)
	part := out["content"].([]any)[0].(map[string]any)
	if code != 200 || part["type"] != "tool_use" || part["name"] != "route" || part["input"].(map[string]any)["worker"] != "writer" || out["stop_reason"] != "tool_use" {
		t.Fatalf("anthropic route: %d %v", code, out)
	}
	worker := "Request: rename parse_config to load_config\\n\\n<artifact id=\\\"c1\\\" type=\\\"code/python\\\" version=\\\"1\\\" path=\\\"src/config.py\\\" title=\\\"t\\\" mode=\\\"active_write\\\" form=\\\"full\\\" lines=\\\"1\\\">\\n1\\tdef parse_config(path):\\n</artifact>\\n"
	code, out = post(an.URL+"/v1/messages", map[string]string{"X-Api-Key": "k-test", "anthropic-version": "2023-06-01"},
		`{"model": "claude-test", "max_tokens": 100, "system": "You are the coder of a workspace.", "messages": [{"role": "user", "content": "`+worker+`"}],
		  "tools": [{"name": "edit_artifact", "input_schema": {"type": "object"}}, {"name": "finish", "input_schema": {"type": "object"}}]}`)
	part = out["content"].([]any)[0].(map[string]any)
	if b, _ := json.Marshal(part["input"]); code != 200 || part["name"] != "edit_artifact" || string(b) != `{"blocks":[{"replace":"def load_config(path):","search":"def parse_config(path):"}],"id":"c1"}` {
		t.Fatalf("anthropic edit: %d %v", code, out)
	}
	code, out = post(oa.URL+"/v1/chat/completions", map[string]string{"Authorization": "Bearer k-test"},
		`{"model": "gpt-test", "messages": [{"role": "system", "content": "You are the coder of a workspace."}, {"role": "user", "content": "`+worker+`"},
		  {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "edit_artifact", "arguments": "{}"}}]},
		  {"role": "tool", "tool_call_id": "call_1", "content": "edited c1: v2"}], "tools": [{"type": "function", "function": {"name": "finish"}}]}`)
	call := out["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)
	if code != 200 || call["name"] != "finish" || !strings.Contains(call["arguments"].(string), "done: rename parse_config to load_config") {
		t.Fatalf("openai finish: %d %v", code, out)
	}
	if got := m.requests("coder"); len(got) != 2 || got[0].Protocol != "anthropic" || got[1].Protocol != "openai" || strings.Join(got[1].Tools, ",") != "finish" {
		t.Fatalf("coder requests %+v", got)
	}
	code, out = post(oa.URL+"/v1/chat/completions", map[string]string{"Authorization": "Bearer wrong"}, `{}`)
	if code != 401 || out["error"].(map[string]any)["code"] != "invalid_api_key" {
		t.Fatalf("openai wrong key: %d %v", code, out)
	}
	code, out = post(an.URL+"/v1/messages", map[string]string{"X-Api-Key": "wrong", "anthropic-version": "2023-06-01"}, `{}`)
	if code != 401 || out["error"].(map[string]any)["type"] != "authentication_error" {
		t.Fatalf("anthropic wrong key: %d %v", code, out)
	}
}
