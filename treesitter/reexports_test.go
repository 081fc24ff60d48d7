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
	runProseCases(t, []proseCase{
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
		{"a bare name: the definition its package re-exports", map[string]string{
			"httpx/__init__.py":         "from ._models import Request\n",
			"httpx/_models.py":          "class Request:\n    pass\n",
			"httpx/_transports/mock.py": "class Request:\n    pass\n",
		}, "Build a `Request`.\n", "httpx/_models.py#Request"},
		{"a bare name two packages re-export stays ambiguous", map[string]string{
			"httpx/__init__.py":             "from ._models import Request\n",
			"httpx/_models.py":              "class Request:\n    pass\n",
			"httpx/_transports/__init__.py": "from .mock import Request\n",
			"httpx/_transports/mock.py":     "class Request:\n    pass\n",
		}, "Build a `Request`.\n", "ambiguous"},
		{"a bare name no package re-exports stays ambiguous", map[string]string{
			"httpx/__init__.py":         "from ._client import Client\n",
			"httpx/_models.py":          "class Request:\n    pass\n",
			"httpx/_transports/mock.py": "class Request:\n    pass\n",
		}, "Build a `Request`.\n", "ambiguous"},
		{"an import of a module the workspace lacks binds nothing", map[string]string{
			"pkg/__init__.py": "from ._vendor import Model\n",
			"pkg/a.py":        "class Model:\n    pass\n",
			"pkg/b.py":        "class Model:\n    pass\n",
		}, "Subclass `pkg.Model`.\n", "ambiguous"},
	})
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

// TestRustReexports: a path through a crate's pub use facade
// (`mdbook::load_book`, `mdbook::book::load_book`) binds to the definition
// in the module that defines it, along the pub use declarations only.
func TestRustReexports(t *testing.T) {
	crate := func(lib string) map[string]string {
		return map[string]string{
			"Cargo.toml":          "[package]\nname = \"mdbook\"\n",
			"src/lib.rs":          lib,
			"src/book/mod.rs":     "mod init;\nmod summary;\n\npub use self::init::load_book;\npub use self::summary::{Summary, SummaryItem as Item};\n",
			"src/book/init.rs":    "pub fn load_book() {}\n",
			"src/book/summary.rs": "pub struct Summary {}\npub struct SummaryItem {}\n",
			"src/config.rs":       "pub struct Config {}\n",
			"src/legacy/book.rs":  "pub fn load_book() {}\npub struct Summary {}\n",
			"src/theme/config.rs": "pub struct Config {}\n",
		}
	}
	facade := "pub mod book;\nmod config;\n\npub use crate::book::load_book;\npub use self::config::{Config};\n"
	runProseCases(t, []proseCase{
		{"through the crate root and a module's pub use", crate(facade), "Call `mdbook::load_book`.\n", "src/book/init.rs#load_book"},
		{"through a module's pub use", crate(facade), "Call `mdbook::book::load_book()`.\n", "src/book/init.rs#load_book"},
		{"a use list", crate(facade), "Read the `mdbook::Config`.\n", "src/config.rs#Config"},
		{"a use list in a module", crate(facade), "See `mdbook::book::Summary`.\n", "src/book/summary.rs#Summary"},
		{"a dashed crate name", func() map[string]string {
			c := crate(facade)
			c["Cargo.toml"] = "[package]\nname = \"md-book\"\n"
			return c
		}(), "Call `md_book::load_book`.\n", "src/book/init.rs#load_book"},
		{"a glob re-export", crate("pub mod book;\npub use book::*;\n"), "Call `mdbook::load_book`.\n", "src/book/init.rs#load_book"},
		{"a use that is not pub re-exports nothing", crate("pub mod book;\nuse crate::book::load_book;\n"), "Call `mdbook::load_book`.\n", "unresolved"},
		{"pub(crate) re-exports nothing outside", crate("pub mod book;\npub(crate) use crate::book::load_book;\n"), "Call `mdbook::load_book`.\n", "unresolved"},
		{"a bare name: the one the crate root re-exports", crate(facade), "Read the `Config`.\n", "src/config.rs#Config"},
		{"a bare name the crate root does not re-export stays ambiguous", crate("pub mod book;\nmod config;\n"), "Read the `Config`.\n", "ambiguous"},
		{"a name re-exported under another name is not the original", crate(facade), "See `mdbook::book::SummaryItem`.\n", "src/book/summary.rs#SummaryItem"},
	})
}

func TestRustUseNames(t *testing.T) {
	tests := []struct {
		use, module string
		names       []string
		glob        bool
	}{
		{"self::init::load_book", "self::init", []string{"load_book"}, false},
		{"config::{Config, BuildConfig as Build, Other as Other}", "config", []string{"Config", "Other"}, false},
		{"book::*", "book", nil, true},
		{"a::{b::{c, d}, e}", "a", nil, false},
		{"a::{self, B}", "a", []string{"B"}, false},
		{"serde", "", []string{"serde"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.use, func(t *testing.T) {
			names, glob := rustUseNames(tt.use)
			if m := rustUseModule(tt.use); m != tt.module || !slices.Equal(names, tt.names) || glob != tt.glob {
				t.Errorf("module %q names %q glob %v, want %q %q %v", m, names, glob, tt.module, tt.names, tt.glob)
			}
		})
	}
}

// FuzzRustUseNames: any use path reads without a panic into a module
// that prefixes it and names that are single identifiers written in it.
func FuzzRustUseNames(f *testing.F) {
	for _, s := range []string{"self::init::load_book", "config::{Config, B as C}", "book::*", "a::{b::{c}, *}", "::{", "a as b", "{x}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, use string) {
		if m := rustUseModule(use); !strings.HasPrefix(use, m) {
			t.Fatalf("module %q of %q", m, use)
		}
		names, _ := rustUseNames(use)
		for _, n := range names {
			if n == "" || strings.ContainsAny(n, ":*{}, ") || !strings.Contains(use, n) {
				t.Fatalf("name %q of %q", n, use)
			}
		}
	})
}
