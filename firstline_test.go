package lunad

import "testing"

func TestFirstLine(t *testing.T) {
	for in, want := range map[string]string{
		"":                "",
		"one":             "one",
		"one\ntwo":        "one",
		"one\r\ntwo":      "one\r",
		"\nafter a blank": "",
		"  indented\n":    "  indented",
	} {
		if got := FirstLine(in); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}
