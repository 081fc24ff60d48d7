package config

import (
	"encoding"
	"reflect"
	"strings"
	"sync"
)

// knownKeys lists the keys .luna/config.toml may hold, for the error
// that refuses an unknown one. It is read from Config's toml tags, so a
// field added to the configuration is listed without being written down.
var knownKeys = sync.OnceValue(func() string { return keyList(reflect.TypeFor[Config]()) })

// keyList is the dotted keys of struct type t's toml tags, in field
// order. A section of the type of an earlier one (each role's override
// of [llm]) is not listed again: "the same under" it follows the earlier
// one's keys.
func keyList(t reflect.Type) string {
	w := keyWalker{first: map[reflect.Type]string{}, same: map[string][]string{}}
	w.walk("", t)
	var b strings.Builder
	for i, k := range w.keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		for p, under := range w.same {
			if strings.HasPrefix(k, p+".") && (i+1 == len(w.keys) || !strings.HasPrefix(w.keys[i+1], p+".")) {
				b.WriteString(", the same under " + andList(under))
			}
		}
	}
	return b.String()
}

// keyWalker collects the keys of a configuration type.
type keyWalker struct {
	keys  []string
	first map[reflect.Type]string // a section's type: where it is first
	same  map[string][]string     // a section: the later ones of its type
}

func (w *keyWalker) walk(prefix string, t reflect.Type) {
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		key := prefix // an embedded struct's keys are its parent's
		if !f.Anonymous || name != "" {
			if name == "" {
				name = f.Name
			}
			key = join(prefix, name)
		}
		if !isSection(f.Type) {
			w.keys = append(w.keys, key)
			continue
		}
		if p, ok := w.first[f.Type]; ok {
			w.same[p] = append(w.same[p], key)
			continue
		}
		w.first[f.Type] = key
		w.walk(key, f.Type)
	}
}

// isSection is whether a field of type t is a table of keys rather than
// a value: a struct that does not decode itself from text.
func isSection(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && !reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextUnmarshaler]())
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// andList is "a, b and c".
func andList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
