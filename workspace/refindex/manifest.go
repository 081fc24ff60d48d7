package refindex

import (
	"path"
	"regexp"
	"sync"
)

// manifestName matches the name a package manifest at the root of the
// workspace gives the package: package.json "name", Cargo.toml and
// pyproject.toml name = "...", go.mod's module path. The graph uses it as
// a package-root qualifier ("ky.post", "mdbook::book") and a tool name
// ("cargo generate").
var manifestName = sync.OnceValue(func() map[string]*regexp.Regexp {
	return map[string]*regexp.Regexp{
		"package.json":   regexp.MustCompile(`(?m)^\s*"name"\s*:\s*"(?:@[^/"]+/)?([^"]+)"`),
		"Cargo.toml":     regexp.MustCompile(`(?m)^name\s*=\s*"([^"]+)"`),
		"pyproject.toml": regexp.MustCompile(`(?m)^name\s*=\s*"([^"]+)"`),
		"go.mod":         regexp.MustCompile(`(?m)^module\s+(\S+)`),
	}
})

// packageName is the package name the manifest at p declares, or "" when
// p is not a root-level manifest or declares none.
func packageName(p string, content []byte) string {
	re := manifestName()[p]
	if re == nil {
		return ""
	}
	m := re.FindSubmatch(content)
	if m == nil {
		return ""
	}
	name := string(m[1])
	if p == "go.mod" {
		name = path.Base(name)
	}
	return name
}
