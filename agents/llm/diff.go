package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// FirstDiff returns the path of the first field, in the order of the
// Request's fields, where b differs from a ("" if none), with both values
// quoted and shortened. Schemas and arguments compare by canonical JSON.
func FirstDiff(a, b Request) (field, aval, bval string) {
	d := differ{}
	d.str("model", a.Model, b.Model)
	d.str("system", a.System, b.System)
	d.messages(a.Messages, b.Messages)
	d.tools(a.Tools, b.Tools)
	d.format(a.Format, b.Format)
	d.ptr("temperature", fmtFloat(a.Temperature), fmtFloat(b.Temperature))
	d.ptr("seed", fmtInt(a.Seed), fmtInt(b.Seed))
	d.str("max_tokens", strconv.Itoa(a.MaxTokens), strconv.Itoa(b.MaxTokens))
	return d.field, d.a, d.b
}

type differ struct{ field, a, b string }

func (d *differ) set(field, a, b string) {
	if d.field == "" {
		d.field, d.a, d.b = field, a, b
	}
}

func (d *differ) str(field, a, b string) {
	if d.field == "" && a != b {
		d.set(field, short(a), short(b))
	}
}

func (d *differ) ptr(field, a, b string) {
	if d.field == "" && a != b {
		d.set(field, a, b)
	}
}

func (d *differ) raw(field string, a, b json.RawMessage) {
	if d.field == "" && !bytes.Equal(canonical(a), canonical(b)) {
		d.set(field, short(string(a)), short(string(b)))
	}
}

func (d *differ) length(field string, a, b int, what string) bool {
	if a == b {
		return false
	}
	i := min(a, b)
	d.set(fmt.Sprintf("%s[%d]", field, i), present(i < a, what), present(i < b, what))
	return true
}

func (d *differ) messages(a, b []Message) {
	for i := 0; i < min(len(a), len(b)) && d.field == ""; i++ {
		p := fmt.Sprintf("messages[%d].", i)
		d.str(p+"role", string(a[i].Role), string(b[i].Role))
		d.str(p+"content", a[i].Content, b[i].Content)
		for j := 0; j < min(len(a[i].ToolCalls), len(b[i].ToolCalls)); j++ {
			q := fmt.Sprintf("%stool_calls[%d].", p, j)
			x, y := a[i].ToolCalls[j], b[i].ToolCalls[j]
			d.str(q+"id", x.ID, y.ID)
			d.str(q+"name", x.Name, y.Name)
			d.raw(q+"arguments", x.Arguments, y.Arguments)
		}
		if d.field == "" {
			d.length(p+"tool_calls", len(a[i].ToolCalls), len(b[i].ToolCalls), "a tool call")
		}
		d.str(p+"tool_call_id", a[i].ToolCallID, b[i].ToolCallID)
		d.ptr(p+"is_error", strconv.FormatBool(a[i].IsError), strconv.FormatBool(b[i].IsError))
	}
	if d.field == "" {
		d.length("messages", len(a), len(b), "a message")
	}
}

func (d *differ) tools(a, b []Tool) {
	for i := 0; i < min(len(a), len(b)) && d.field == ""; i++ {
		p := fmt.Sprintf("tools[%d].", i)
		d.str(p+"name", a[i].Name, b[i].Name)
		d.str(p+"description", a[i].Description, b[i].Description)
		d.raw(p+"schema", a[i].Schema, b[i].Schema)
	}
	if d.field == "" {
		d.length("tools", len(a), len(b), "a tool")
	}
}

func (d *differ) format(a, b *ResponseFormat) {
	if d.field != "" {
		return
	}
	if (a == nil) != (b == nil) {
		d.set("format", present(a != nil, "a response format"), present(b != nil, "a response format"))
		return
	}
	if a != nil {
		d.str("format.name", a.Name, b.Name)
		d.raw("format.schema", a.Schema, b.Schema)
	}
}

func present(ok bool, what string) string {
	if ok {
		return what
	}
	return "none"
}

func fmtFloat(p *float64) string {
	if p == nil {
		return "unset"
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

func fmtInt(p *int64) string {
	if p == nil {
		return "unset"
	}
	return strconv.FormatInt(*p, 10)
}

// short quotes s, cut to 60 bytes.
func short(s string) string {
	if len(s) > 60 {
		return strconv.Quote(s[:60]) + "…"
	}
	return strconv.Quote(s)
}
