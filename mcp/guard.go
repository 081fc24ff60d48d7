package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// codeRateLimited is the JSON-RPC error code (in the range the spec leaves
// to servers) of a request refused by the rate limit; a tools/call refused
// so is an isError result instead, which a model reads.
const codeRateLimited = -32029

// guard is a receiving middleware that checks a request before any
// handler runs: the client's rate limit, tool names, and tool arguments
// that are not valid UTF-8. It also completes the SDK's schema errors
// (unknown argument, wrong type, missing argument) with the arguments the
// tool takes. Refused requests change nothing.
func (s *Server) guard(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if handshake(method) {
			return next(ctx, method, req)
		}
		ss, _ := req.GetSession().(*sdk.ServerSession)
		if wait, ok := s.limit.allow(ss); !ok {
			msg := fmt.Sprintf("rate limit: this client may make %g requests per second, %d at once; nothing was done. Retry in %s.",
				s.opts.Rate, s.opts.Burst, wait.Round(time.Millisecond))
			if method == "tools/call" {
				return errorResult(msg), nil
			}
			return nil, &jsonrpc.Error{Code: codeRateLimited, Message: msg}
		}
		call, ok := req.(*sdk.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		args, known := s.tools[call.Params.Name]
		if !known {
			names := make([]string, 0, len(s.tools))
			for name := range s.tools {
				names = append(names, name)
			}
			slices.Sort(names)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: fmt.Sprintf("unknown tool %q; lunad's tools are %s", call.Params.Name, strings.Join(names, ", "))}
		}
		if problem := badText(call.Params.Arguments); problem != "" {
			return errorResult(fmt.Sprintf("nothing was written: invalid input: %s; send text as UTF-8 (JSON strings escape only valid characters).", problem)), nil
		}
		call.Params.Arguments = completeArgs(call.Params.Arguments, s.optional[call.Params.Name])
		res, err := next(ctx, method, req)
		if r, ok := res.(*sdk.CallToolResult); ok && err == nil && r.IsError && schemaError(r) {
			tc := r.Content[0].(*sdk.TextContent)
			// The schema validator prints a JSON null as the reflect.Value
			// it decodes to.
			tc.Text = strings.ReplaceAll(tc.Text, "<invalid reflect.Value>", "null")
			tc.Text += fmt.Sprintf("\nNothing was done. %s takes: %s. Call it again with only these arguments, of these types.", call.Params.Name, args)
		}
		return res, err
	}
}

// handshake tells the methods no limit applies to: connecting, keeping
// alive, and notifications (which have no answer to refuse with).
func handshake(method string) bool {
	switch method {
	case "initialize", "server/discover", "ping":
		return true
	}
	return strings.HasPrefix(method, "notifications/")
}

func errorResult(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}

// schemaError tells whether a tool error is the SDK's rejection of the
// arguments by the tool's input schema (before the handler ran).
func schemaError(r *sdk.CallToolResult) bool {
	if len(r.Content) == 0 {
		return false
	}
	tc, ok := r.Content[0].(*sdk.TextContent)
	return ok && (strings.HasPrefix(tc.Text, `validating "arguments"`) || strings.HasPrefix(tc.Text, "unmarshaling arguments"))
}

// badText says what in raw JSON would not survive decoding as it was sent:
// bytes that are not UTF-8, or a \u escape of half a surrogate pair (both
// would silently become U+FFFD). It returns "" when the text is sound.
func badText(raw []byte) string {
	if !utf8.Valid(raw) {
		i := 0
		for i < len(raw) {
			r, n := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			i += n
		}
		return fmt.Sprintf("the arguments are not valid UTF-8 (byte 0x%02x at offset %d)", raw[i], i)
	}
	for i := 0; i+1 < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if raw[i+1] != 'u' || i+6 > len(raw) {
			i++ // an escaped character: skip it
			continue
		}
		r := hex4(raw[i+2 : i+6])
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return fmt.Sprintf("the arguments hold a lone low surrogate \\u%04x at offset %d", r, i)
		case r >= 0xD800 && r <= 0xDBFF:
			if i+12 > len(raw) || raw[i+6] != '\\' || raw[i+7] != 'u' {
				return fmt.Sprintf("the arguments hold a lone high surrogate \\u%04x at offset %d", r, i)
			}
			if lo := hex4(raw[i+8 : i+12]); lo < 0xDC00 || lo > 0xDFFF {
				return fmt.Sprintf("the arguments hold a lone high surrogate \\u%04x at offset %d", r, i)
			}
			i += 6
		}
		i += 5
	}
	return ""
}

// hex4 decodes four hex digits, -1 if they are not.
func hex4(b []byte) int {
	v := 0
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return -1
		}
	}
	return v
}
