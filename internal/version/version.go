package version

import "runtime/debug"

// String is the running binary's version (FromBuildInfo of its build
// information).
func String() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return FromBuildInfo(nil)
	}
	return FromBuildInfo(bi)
}

// FromBuildInfo is the version that bi describes: its main module's version
// when the build had one (not "(devel)"), else the VCS revision stamped
// into it (its first 12 characters, "+dirty" when the tree was modified),
// else "dev". A nil bi is "dev".
func FromBuildInfo(bi *debug.BuildInfo) string {
	if bi == nil {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return rev
}
