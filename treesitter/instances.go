package treesitter

import (
	"regexp"
	"strings"
	"sync"

	"github.com/lunad/lunad/internal/lazyregexp"
)

// Methods named through a variable. Documentation constructs a value in an
// example and then names its methods through the variable: "```python
// http = httpx.Client()```, then `http.get(url)`". Such a code span is
// recorded with Target set to the name through the type ("Client.get"),
// which resolution tries first (resolveProse), when the document's
// examples construct the variable visibly and one way only:
//
//	Python:  x = T(...), x = pkg.T(...), with T(...) as x (async too)
//	Rust:    let [mut] x = T::new(...) (new*, default, open, load, create,
//	         with_*, from*, T { ... })
//	Go:      x := pkg.NewT(...), x := &pkg.T{...} (also var x = and x =)
//	JS, TS, Java: x = new T(...)
//
// A type is a capitalised name; a function's result is no construction
// (its type is not written). A variable assigned any other way in the
// document, or constructed as two types, is left alone.

// constructions are, per example language, the patterns whose submatches
// "v" and "t" are the variable and the type constructed; made on first
// use, so that a command that reads no document pays nothing for them.
var constructions = sync.OnceValue(func() map[string][]func() *regexp.Regexp {
	return map[string][]func() *regexp.Regexp{
		LangPython: {
			lazyregexp.New(`(?m)^[ \t]*(?P<v>[A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=[ \t]*(?:await[ \t]+)?(?:\w+\.)*(?P<t>[A-Z]\w*)\(`),
			lazyregexp.New(`(?P<t2>[A-Z]\w*)\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\)[ \t]+as[ \t]+(?P<v2>[A-Za-z_]\w*)`),
		},
		LangRust: {
			lazyregexp.New(`\blet[ \t]+(?:mut[ \t]+)?(?P<v>[a-z_]\w*)[ \t]*(?::[^=\n]*)?=[ \t]*(?:\w+::)*(?P<t>[A-Z]\w*)(?:::(?:new\w*|default|open|load|create|with_\w+|from\w*)\(|[ \t]*\{)`),
		},
		LangGo: { // the first of several results: c, err := pkg.NewClient()
			lazyregexp.New(`(?m)^[ \t]*(?:var[ \t]+)?(?P<v>[A-Za-z_]\w*)(?:[ \t]*,[ \t]*\w+)*[ \t]*:?=[ \t]*(?:\w+\.)?New(?P<t>[A-Z]\w*)\(`),
			lazyregexp.New(`(?m)^[ \t]*(?:var[ \t]+)?(?P<v2>[A-Za-z_]\w*)[ \t]*:?=[ \t]*&?(?:\w+\.)?(?P<t2>[A-Z]\w*)\{`),
		},
		LangJavaScript: {newConstruction},
		LangJava:       {newConstruction},
	}
})

var newConstruction = lazyregexp.New(`(?P<v>[A-Za-z_$][\w$]*)(?:[ \t]*:[^=\n]*)?[ \t]*=[ \t]*(?:await[ \t]+)?new[ \t]+(?:[\w$]+\.)*(?P<t>[A-Z][\w$]*)[ \t]*[(<]`)

// instances reads the variables the examples construct: variable -> type,
// for those constructed as one type and assigned no other way.
func instances(examples map[string][]string) map[string]string {
	types := map[string]string{}
	count := map[string]int{}
	for lang, codes := range examples {
		if lang == LangTypeScript {
			lang = LangJavaScript
		}
		for _, code := range codes {
			for _, re := range constructions()[lang] {
				for _, at := range re().FindAllStringSubmatchIndex(code, -1) {
					if chained(code, at[1]) {
						continue // Path("a").read_text() is a string, not a Path
					}
					m := make([]string, len(at)/2)
					for i := range m {
						if at[2*i] >= 0 {
							m[i] = code[at[2*i]:at[2*i+1]]
						}
					}
					v, t := namedPair(re(), m)
					if old, ok := types[v]; ok && old != t {
						t = "" // two types: no instance
					}
					types[v] = t
					count[v]++
				}
			}
		}
	}
	if len(types) == 0 || len(types) > maxInstances {
		return nil
	}
	assigned := assignments(examples)
	for v, t := range types {
		if t == "" || assigned[v] > count[v] {
			delete(types, v)
		}
	}
	return types
}

// keepsType matches what may follow a construction's closing bracket on
// its line and keep its type: Rust's ?, .await, .unwrap(), .expect("..."),
// then a semicolon or a comment.
var keepsType = lazyregexp.New(`^(?:\?|\.await|\.unwrap\(\)|\.expect\([^()]*\))*[ \t]*;?[ \t]*(?:(?://|#).*)?$`)

// chained reports whether the construction whose opening bracket ends at
// end (a '(' or '{') is followed on its line by more than keepsType
// allows: a method call on the new value (T(...).f()), whose result is of
// another type. A construction whose bracket closes on a later line is
// not chained.
func chained(code string, end int) bool {
	if end == 0 || !strings.ContainsRune("({", rune(code[end-1])) {
		return false
	}
	line, _, _ := strings.Cut(code[end:], "\n")
	depth := 1
	for i, c := range line {
		switch c {
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			if depth--; depth == 0 {
				return !keepsType().MatchString(line[i+1:])
			}
		}
	}
	return false
}

// namedPair is the variable and type a construction pattern matched.
func namedPair(re *regexp.Regexp, m []string) (v, t string) {
	for i, n := range re.SubexpNames() {
		switch {
		case m[i] == "":
		case strings.HasPrefix(n, "v"):
			v = m[i]
		case strings.HasPrefix(n, "t"):
			t = m[i]
		}
	}
	return v, t
}

// assignment matches a place code assigns a name: v = , v := , v: T = ,
// let v = (submatch 1), or as v (submatch 2).
var assignment = lazyregexp.New(`(?:^|[^\w.$])([A-Za-z_$][\w$]*)[ \t]*(?::[^=\n]*)?:?=[^=>]|\bas[ \t]+([A-Za-z_]\w*)`)

// assignments counts, for each name, the places the examples assign it.
func assignments(examples map[string][]string) map[string]int {
	n := map[string]int{}
	for _, codes := range examples {
		for _, code := range codes {
			for _, m := range assignment().FindAllStringSubmatch(code, -1) {
				n[m[1]+m[2]]++
			}
		}
	}
	return n
}

// maxInstances bounds the variables read from one document: a document
// constructing more (generated code, a long listing) is read for none.
const maxInstances = 64

// instanceTargets sets Target on the code spans of col that name a member
// through a variable the document's examples construct ("http.get" ->
// "Client.get").
func instanceTargets(col *collector, src []byte, fences []fenceBlock) {
	examples := map[string][]string{}
	for _, b := range fences {
		if lang := readFence(b.info).example; lang != "" {
			examples[lang] = append(examples[lang], string(src[b.start:b.end]))
		}
	}
	if len(examples) == 0 {
		return
	}
	var vars map[string]string
	for _, r := range col.refs {
		if r.Kind != "code" || r.Role != "" {
			continue
		}
		v, rest, ok := strings.Cut(r.Name, ".")
		if !ok || rest == "" || strings.Contains(v, "::") {
			continue
		}
		if vars == nil {
			if vars = instances(examples); len(vars) == 0 {
				return
			}
		}
		if t := vars[v]; t != "" {
			r.Target = t + "." + rest
		}
	}
}
