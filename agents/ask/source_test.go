package ask

import (
	"context"
	"testing"

	"github.com/lunad/lunad"
)

// TestReplayFileAt: a live replay answers create_artifact's check from the
// recording; a stage recorded before creations were checked has no such
// read, and its recorded create stands (no file there).
func TestReplayFileAt(t *testing.T) {
	tests := []struct {
		name     string
		recorded string
		want     bool
	}{
		{"recorded before creations were checked", `{}`, false},
		{"recorded no file", `{"FileAt\u0000notes.md": {"value": false}}`, false},
		{"recorded a file", `{"FileAt\u0000notes.md": {"value": true}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := newSource(nil, lunad.StageRequest{Replay: true, Recorded: map[string]string{readsFile: tt.recorded}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.FileAt(context.Background(), "notes.md")
			if err != nil || got != tt.want {
				t.Errorf("FileAt = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
