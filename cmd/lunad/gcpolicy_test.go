package main

import (
	"runtime/debug"
	"testing"
)

func TestTuneGC(t *testing.T) {
	const base = 150 // a setting no one uses, to see it restored
	prev := debug.SetGCPercent(base)
	defer debug.SetGCPercent(prev)
	tests := []struct {
		name, cmd, gogc string
		want            int
	}{
		{"an edit runs at shortGOGC", "edit", "", shortGOGC},
		{"so does a create", "create", "", shortGOGC},
		{"GOGC in the environment is the user's", "edit", "50", base},
		{"refs may build the index: default", "refs", "", base},
		{"the daemon keeps its setting", "serve", "", base},
		{"the language server too", "lsp", "", base},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			restore := tuneGC(tt.cmd, func(k string) string {
				if k == "GOGC" {
					return tt.gogc
				}
				return ""
			})
			got := debug.SetGCPercent(base) // reads the setting (and puts base back)
			debug.SetGCPercent(got)
			restore()
			if got != tt.want {
				t.Errorf("GOGC while %q runs = %d, want %d", tt.cmd, got, tt.want)
			}
			if after := debug.SetGCPercent(base); after != base {
				t.Errorf("GOGC after %q = %d, want %d restored", tt.cmd, after, base)
			}
		})
	}
}
