package treesitter

import (
	"slices"
	"strings"
	"testing"
)

// TestPythonReexports: a name qualified by a package (`httpx.get`,
// `pkg.URL`) binds, along the from-imports of the package's __init__.py,
// to the definition in the module that defines it.
func TestPythonReexports(t *testing.T) {
	httpx := func(init string) map[string]string {
		return map[string]string{
			"httpx/__init__.py": init,
			"httpx/_api.py":     "def get(url):\n    pass\n",
			"httpx/_client.py":  "class Client:\n    def get(self, url):\n        pass\n",
			"httpx/_models.py":  "class URL:\n    pass\n\nclass Headers:\n    def get(self, key):\n        pass\n",
			"httpx/_urls.py":    "from ._models import URL\n\n__all__ = [\"URL\"]\n",
		}
	}
	tests := []struct {
		name  string
		files map[string]string
		doc   string
		want  string
	}{
		{"a function re-exported by the package", httpx("from ._api import get\nfrom ._client import Client\n"),
			"Call `httpx.get(url)`.\n", "httpx/_api.py#get"},
		{"without the re-export a package-qualified method name stays ambiguous", httpx("from ._client import Client\n"),
			"Call `httpx.get(url)`.\n", "ambiguous"},
		{"re-exported as itself", httpx("from ._models import URL as URL\n"),
			"See `httpx.URL`.\n", "httpx/_models.py#URL"},
		{"re-exported under another name is not the original's", httpx("from ._api import get as fetch\n"),
			"Call `httpx.get(url)`.\n", "ambiguous"},
		{"along a chain of re-exports", map[string]string{
			"pkg/__init__.py":     "from .sub import Session\n",
			"pkg/sub/__init__.py": "from .core import Session\n",
			"pkg/sub/core.py":     "class Session:\n    pass\n",
			"other/sessions.py":   "class Session:\n    pass\n",
		}, "Open a `pkg.Session`.\n", "pkg/sub/core.py#Session"},
		{"an absolute from-import of the package", map[string]string{
			"src/pkg/__init__.py": "from pkg.models import Model\n",
			"src/pkg/models.py":   "class Model:\n    pass\n",
			"src/pkg/legacy.py":   "class Model:\n    pass\n",
		}, "Subclass `pkg.Model`.\n", "src/pkg/models.py#Model"},
		{"an import of a module the workspace lacks binds nothing", map[string]string{
			"pkg/__init__.py": "from ._vendor import Model\n",
			"pkg/a.py":        "class Model:\n    pass\n",
			"pkg/b.py":        "class Model:\n    pass\n",
		}, "Subclass `pkg.Model`.\n", "ambiguous"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := proseResolve(t, tt.files, tt.doc, pkgsFor(tt.files)); got != tt.want {
				t.Errorf("%q resolves to %s, want %s", strings.TrimSpace(tt.doc), got, tt.want)
			}
		})
	}
}

// TestFromImportModule: the names of a Python from-import carry the module
// they come from (Target), unless imported under another name.
func TestFromImportModule(t *testing.T) {
	p := NewParser()
	defer p.Close()
	f, err := p.Parse("pkg/__init__.py", []byte("import os\nfrom ._api import get, post as send\nfrom .models import URL as URL\nfrom . import utils\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range f.References {
		if r.Kind == "import" {
			got = append(got, r.Name+"<"+r.Target)
		}
	}
	want := []string{"os<", "._api<", "get<._api", "post<", ".models<", "URL<.models", ".<", "utils<."}
	if !slices.Equal(got, want) {
		t.Errorf("imports %q, want %q", got, want)
	}
}
