package version

import (
	"runtime/debug"
	"testing"
)

// TestFromBuildInfo: the module version wins; a build from a checkout
// names its revision, +dirty when modified; anything else is dev.
func TestFromBuildInfo(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "1e6bef7a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e"}}
	for _, c := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build information", nil, "dev"},
		{"module version", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}, Settings: rev}, "v1.4.0"},
		{"pseudo-version", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261202075030-1e6bef7a0b1c"}}, "v0.0.0-20261202075030-1e6bef7a0b1c"},
		{"checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: append(rev, debug.BuildSetting{Key: "vcs.modified", Value: "false"})}, "1e6bef7a0b1c"},
		{"modified checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: append(rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"})}, "1e6bef7a0b1c+dirty"},
		{"short revision", &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}}, "abc"},
		{"no stamp", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := FromBuildInfo(c.bi); got != c.want {
				t.Errorf("FromBuildInfo = %q, want %q", got, c.want)
			}
		})
	}
}
