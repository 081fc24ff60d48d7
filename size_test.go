package lunad

import "testing"

// TestParseSize: whole numbers with or without a binary unit; anything
// else, negatives and overflows are refused; FormatSize reads back.
func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"4096", 4096, true},
		{"100B", 100, true},
		{"512KiB", 512 << 10, true},
		{" 1 GiB ", 1 << 30, true},
		{"2TiB", 2 << 40, true},
		{"", 0, false},
		{"off", 0, false},
		{"4GB", 0, false},
		{"-1MiB", 0, false},
		{"1.5GiB", 0, false},
		{"9999999TiB", 0, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got, ok := ParseSize(tc.in); got != tc.want || ok != tc.ok {
				t.Fatalf("ParseSize(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
	for n, want := range map[int64]string{0: "0", 1000: "1000B", 1536: "1536B", 3 << 10: "3KiB", 96 << 20: "96MiB", 1 << 40: "1TiB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
		if back, ok := ParseSize(FormatSize(n)); !ok || back != n {
			t.Errorf("FormatSize(%d) = %q reads back %d, %v", n, FormatSize(n), back, ok)
		}
	}
}
