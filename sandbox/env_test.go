package sandbox

import (
	"strings"
	"testing"
)

func TestScrubbedEnv(t *testing.T) {
	parent := map[string]string{
		"PATH":           "/usr/local/go/bin:/root/.pyenv/shims:relative:/usr/bin:/usr/bin/:/opt/tool/bin",
		"LANG":           "en_US.UTF-8",
		"OPENAI_API_KEY": "sk-parent",
		"GITHUB_TOKEN":   "ghp_parent",
		"SSH_AUTH_SOCK":  "/tmp/ssh-agent",
	}
	visible := func(d string) bool { return within("/usr", d) || within("/opt", d) }
	tests := []struct {
		name   string
		parent map[string]string
		extra  map[string]string
		want   string
	}{
		{"only the base passes", parent, nil,
			"HOME=/home/u LANG=en_US.UTF-8 PATH=/usr/local/go/bin:/usr/bin:/opt/tool/bin TERM=dumb TMPDIR=/tmp"},
		{"extra on top", parent, map[string]string{"PYTHONDONTWRITEBYTECODE": "1", "TERM": "xterm"},
			"HOME=/home/u LANG=en_US.UTF-8 PATH=/usr/local/go/bin:/usr/bin:/opt/tool/bin PYTHONDONTWRITEBYTECODE=1 TERM=xterm TMPDIR=/tmp"},
		{"no visible PATH, an odd LANG", map[string]string{"PATH": "/root/bin", "LANG": "$(rm -rf /)"}, nil,
			"HOME=/home/u LANG=C.UTF-8 PATH=" + defaultPath + " TERM=dumb TMPDIR=/tmp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(scrubbedEnv(func(k string) string { return tt.parent[k] }, visible, "/home/u", "/tmp", tt.extra), " ")
			if got != tt.want {
				t.Errorf("env\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestOnPath(t *testing.T) {
	exists := func(p string) bool { return p == "/usr/bin/go" || p == "/opt/x/tool" }
	for prog, want := range map[string]bool{"go": true, "tool": true, "./script.sh": true, "curl": false} {
		if got := onPath(prog, "/usr/local/bin:/usr/bin:/opt/x", exists); got != want {
			t.Errorf("onPath(%q) = %v, want %v", prog, got, want)
		}
	}
}
