package textpos

import "testing"

func TestPositions(t *testing.T) {
	// "a😀b\r\n𝄞x\nü" : 😀 and 𝄞 are 4 bytes / 2 UTF-16 units; ü is 2 bytes / 1 unit.
	text := []byte("a😀b\r\n𝄞x\nü")
	l := New(text)
	if l.Count() != 3 {
		t.Fatalf("Count = %d, want 3", l.Count())
	}
	tests := []struct {
		name             string
		off              int
		line, col, col16 int
	}{
		{"start", 0, 0, 0, 0},
		{"after a", 1, 0, 1, 1},
		{"after emoji", 5, 0, 5, 3},
		{"at CR", 6, 0, 6, 4},
		{"line2 start", 8, 1, 0, 0},
		{"after G clef", 12, 1, 4, 2},
		{"after x", 13, 1, 5, 3},
		{"line3 start", 14, 2, 0, 0},
		{"end", 16, 2, 2, 1},
		{"past end clamps", 99, 2, 2, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := l.Position(tc.off)
			if p.Line != tc.line || p.Column != tc.col {
				t.Errorf("Position(%d) = %+v, want line %d col %d", tc.off, p, tc.line, tc.col)
			}
			line, c16 := l.UTF16Column(tc.off)
			if line != tc.line || c16 != tc.col16 {
				t.Errorf("UTF16Column(%d) = %d:%d, want %d:%d", tc.off, line, c16, tc.line, tc.col16)
			}
			want := min(tc.off, len(text))
			if got := l.Offset(tc.line, tc.col); got != want {
				t.Errorf("Offset(%d,%d) = %d, want %d", tc.line, tc.col, got, want)
			}
			if got := l.OffsetUTF16(tc.line, tc.col16); got != want {
				t.Errorf("OffsetUTF16(%d,%d) = %d, want %d", tc.line, tc.col16, got, want)
			}
		})
	}
	t.Run("inside surrogate pair snaps forward", func(t *testing.T) {
		if got := l.OffsetUTF16(0, 2); got != 5 {
			t.Errorf("OffsetUTF16(0,2) = %d, want 5", got)
		}
	})
	t.Run("column past CRLF line end clamps before CR", func(t *testing.T) {
		if got := l.Offset(0, 50); got != 6 {
			t.Errorf("Offset(0,50) = %d, want 6", got)
		}
		if got := l.OffsetUTF16(0, 50); got != 6 {
			t.Errorf("OffsetUTF16(0,50) = %d, want 6", got)
		}
	})
	t.Run("line past end", func(t *testing.T) {
		if got := l.Offset(10, 0); got != len(text) {
			t.Errorf("Offset(10,0) = %d", got)
		}
	})
}
