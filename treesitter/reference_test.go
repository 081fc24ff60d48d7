package treesitter

import "testing"

func TestReferenceText(t *testing.T) {
	tests := []struct {
		name string
		ref  Reference
		want string
	}{
		{"a link reads as its destination", Reference{Name: "parse_config", Kind: "link", Target: "config.py#parse_config"}, "config.py#parse_config"},
		{"a wiki link", Reference{Name: "Guide", Kind: "wiki", Target: "Guide"}, "Guide"},
		{"an include with lines", Reference{Name: "L1-L20", Kind: "include", Target: "src/a.rs#L1-L20"}, "src/a.rs#L1-L20"},
		{"an example reads as its name, not its language", Reference{Name: "parse", Kind: "example", Target: LangRust}, "parse"},
		{"a from-imported name, not its module", Reference{Name: "get", Kind: "import", Target: "._api"}, "get"},
		{"a code span, not the type it goes through", Reference{Name: "http.get", Kind: "code", Target: "Client.get"}, "http.get"},
		{"a link without a target", Reference{Name: "x", Kind: "link"}, "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.ref.Text(); got != tt.want {
				t.Errorf("Text() = %q, want %q", got, tt.want)
			}
		})
	}
}
