package main

import (
	"strings"
	"testing"
)

func TestPrintable(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "go test ./...", "go test ./..."},
		{"tab", "a\tb", "a\tb"},
		{"unicode", "héllo, 世界 🙂", "héllo, 世界 🙂"},
		{"escape sequence", "gpt\x1b]0;PWNED\a", `"gpt\x1b]0;PWNED\a"`},
		{"carriage return", "ok\rgoals: can run", `"ok\rgoals: can run"`},
		{"newline", "a\nsandbox: usable", `"a\nsandbox: usable"`},
		{"C1 control", "a\u009b31mb", `"a\u009b31mb"`},
		{"bidi override", "safe\u202eetalpmet", `"safe\u202eetalpmet"`},
		{"not UTF-8", "a\x9b31mb", `"a\x9b31mb"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := printable(tt.in); got != tt.want {
				t.Errorf("printable(%q) = %s; want %s", tt.in, got, tt.want)
			}
		})
	}
	if got := strings.Join(printableAll([]string{"go", "te\x1bst"}), " "); got != `go "te\x1bst"` {
		t.Errorf("printableAll = %s", got)
	}
}
