package treesitter

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// Each case parses testdata/snippets/<file> and compares every symbol
// ("kind name startLine-endLine container") and every reference
// ("kind name line target"). Lines are 0-based.
var languageCases = []struct {
	name, file, typ string
	symbols, refs   []string
}{
	{name: "python", file: "a.py", typ: "code/python",
		symbols: []string{
			"constant MAX_SIZE 3-3 ",
			"function parse_config 5-8 ",
			"type Loader 10-16 ",
			"method load 12-13 Loader",
			"method close 15-16 Loader",
		},
		refs: []string{
			"import os 0 ",
			"import config 1 ",
			"import parse_config 1 ",
			"import load 1 config",
			"call open 7 ",
			"identifier path 7 ",
			"call load 8 ",
			"identifier f 8 ",
			"identifier Base 10 ",
			"identifier staticmethod 11 ",
			"call parse_config 13 ",
			"identifier data 13 ",
			"call remove 16 ",
		},
	},
	{name: "go", file: "a.go", typ: "code/go",
		symbols: []string{
			"constant MaxSize 7-7 ",
			"type Config 9-11 ",
			"type Alias 13-13 ",
			"function ParseConfig 15-17 ",
			"method String 19-21 Config",
		},
		refs: []string{
			"import fmt 3 ",
			"import strings 4 ",
			"identifier string 10 ",
			"identifier Config 13 ",
			"identifier string 15 ",
			"identifier Config 15 ",
			"identifier error 15 ",
			"identifier Config 16 ",
			"call strings.TrimSpace 16 ",
			"identifier Config 19 ",
			"identifier string 19 ",
			"call fmt.Sprintf 20 ",
		},
	},
	{name: "markdown", file: "a.md", typ: "text/markdown",
		symbols: []string{
			"heading Configuration 0-13 ",
			"heading Usage 4-13 Configuration",
			"heading Setext Title 9-11 Usage",
		},
		refs: []string{
			"code parse_config 2 ",
			"link parse_config 2 config.py#parse_config",
			"link L10 2 config.py#L10",
			"wiki Design Notes 6 Design Notes",
			"wiki abc123 6 abc123",
			"link usage 7 #usage",
			"link img/a.png 7 img/a.png",
			"link docs/ref.md 12 docs/ref.md",
		},
	},
	{name: "typescript", file: "a.ts", typ: "code/typescript",
		symbols: []string{
			"constant DEFAULT_NAME 3-3 ",
			"type Options 5-7 ",
			"field name 6-6 Options",
			"type Mode 9-9 ",
			"type Loader 11-19 ",
			"method constructor 12-14 Loader",
			"method load 16-18 Loader",
			"function parseConfig 21-23 ",
			"function helper 25-25 ",
		},
		refs: []string{
			"import readFile 0 ",
			"import fs 0 ",
			"import path 1 ",
			"identifier Options 12 ",
			"identifier Options 16 ",
			"call parseConfig 17 ",
			"call readFile 17 ",
			"identifier file 17 ",
			"identifier Options 21 ",
			"call Loader 22 ",
		},
	},
	{name: "javascript", file: "a.js", typ: "code/javascript",
		symbols: []string{
			"constant fs 0-0 ",
			"constant LIMIT 3-3 ",
			"function parseConfig 5-7 ",
			"type Store 9-13 ",
			"method get 10-12 Store",
			"function run 15-15 ",
		},
		refs: []string{
			"call require 0 ",
			"import fs 0 ",
			"import join 1 ",
			"import path 1 ",
			"call parse 6 ",
			"identifier text 6 ",
			"call find 11 ",
			"identifier key 11 ",
			"call parseConfig 15 ",
			"call readFileSync 15 ",
		},
	},
	{name: "rust", file: "a.rs", typ: "code/rust",
		symbols: []string{
			"constant MAX 2-2 ",
			"type Config 4-6 ",
			"type Load 8-10 ",
			"method load 9-9 Load",
			"method new 13-15 Config",
			"function parse_config 18-21 ",
		},
		refs: []string{
			"import std::collections::HashMap 0 ",
			"identifier String 5 ",
			"identifier Config 9 ",
			"identifier Config 12 ",
			"identifier Self 13 ",
			"identifier Config 14 ",
			"call to_string 14 ",
			"identifier Config 18 ",
			"call println 19 ",
			"call new 20 ",
		},
	},
	{name: "java", file: "A.java", typ: "code/java",
		symbols: []string{
			"type Config 4-14 ",
			"constant MAX 5-5 Config",
			"method Config 7-9 Config",
			"method parse 11-13 Config",
			"type Loader 16-18 ",
			"method load 17-17 Loader",
		},
		refs: []string{
			"import java.util.List 2 ",
			"identifier String 7 ",
			"identifier List 11 ",
			"identifier String 11 ",
			"identifier String 11 ",
			"call helper 12 ",
			"call split 12 ",
			"identifier Config 17 ",
		},
	},
	{name: "c", file: "a.c", typ: "code/c",
		symbols: []string{
			"constant MAX 3-4 ",
			"type config_t 5-7 ",
			"type config 5-7 config_t",
			"function parse_config 9-12 ",
			"function name 14-16 ",
		},
		refs: []string{
			"import stdio.h 0 ",
			"import config.h 1 ",
			"call printf 10 ",
			"identifier config_t 14 ",
			"call helper 15 ",
		},
	},
}

func TestLanguages(t *testing.T) {
	p := NewParser()
	defer p.Close()
	for _, tc := range languageCases {
		t.Run(tc.name, func(t *testing.T) {
			src, err := os.ReadFile("testdata/snippets/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			f, err := p.Parse(tc.typ, src)
			if err != nil {
				t.Fatal(err)
			}
			if f.Language != tc.name || f.Skipped != "" {
				t.Fatalf("Language %q Skipped %q", f.Language, f.Skipped)
			}
			if got := symLines(f); !slices.Equal(got, tc.symbols) {
				t.Errorf("symbols:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.symbols, "\n"))
			}
			if got := refLines(f); !slices.Equal(got, tc.refs) {
				t.Errorf("references:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.refs, "\n"))
			}
			for _, s := range f.Symbols {
				if len(s.Fingerprint) != 16 {
					t.Errorf("%s: fingerprint %q", s.Name, s.Fingerprint)
				}
			}
			// Parsing by file extension gives the same language.
			if got := LanguageFor(tc.file); got != tc.name {
				t.Errorf("LanguageFor(%q) = %q", tc.file, got)
			}
		})
	}
}
