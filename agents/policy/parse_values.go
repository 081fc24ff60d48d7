package policy

// The readers of a policy file's values: each reports what is wrong
// with a value at its key.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// unknown reports the keys of m not in known, with the known ones.
func (ps parser) unknown(m map[string]any, at keyPath, what string, known []string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if slices.Contains(known, k) {
			continue
		}
		hint := ""
		if near := nearest(k, known); near != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", near)
		}
		ps.at(at.child(k), "unknown key %q in %s%s; the known keys are %s", k, what, hint, strings.Join(known, ", "))
	}
}

// nearest is the known key closest to k, if it is a typo away.
func nearest(k string, known []string) string {
	best, bestD := "", 3
	for _, c := range known {
		if d := distance(strings.ToLower(k), c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the Levenshtein distance of two short strings.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func (ps parser) boolean(m map[string]any, at keyPath, key string) (bool, bool) {
	v, ok := m[key]
	if !ok {
		return false, false
	}
	b, isBool := v.(bool)
	if !isBool {
		ps.at(at.child(key), "%s must be true or false, not %s", key, describe(v))
	}
	return b, isBool
}

func (ps parser) str(m map[string]any, at keyPath, key string) (string, bool) {
	v, ok := m[key]
	if !ok {
		return "", false
	}
	s, isStr := v.(string)
	if !isStr {
		ps.at(at.child(key), "%s must be a string, not %s", key, describe(v))
	}
	return s, isStr
}

func (ps parser) choice(m map[string]any, at keyPath, key string, choices ...string) (string, bool) {
	s, ok := ps.str(m, at, key)
	if ok && !slices.Contains(choices, s) {
		ps.at(at.child(key), "%s is %q; use %s", key, s, quoteList(choices))
		return "", false
	}
	return s, ok
}

// item is one string of an array, at its index.
type item struct {
	i int
	s string
}

func texts(items []item) []string {
	out := make([]string, len(items))
	for k, it := range items {
		out[k] = it.s
	}
	return out
}

// strings reads an array of strings: the strings in it, and whether the
// key holds an array; an element that is not a string is reported and
// left out.
func (ps parser) strings(m map[string]any, at keyPath, key string) ([]item, bool) {
	v, ok := m[key]
	if !ok {
		return nil, false
	}
	list, isList := v.([]any)
	if !isList {
		ps.at(at.child(key), "%s must be an array of strings, not %s", key, describe(v))
		return nil, false
	}
	out := make([]item, 0, len(list))
	for i, x := range list {
		if s, isStr := x.(string); isStr {
			out = append(out, item{i, s})
		} else {
			ps.at(at.child(key, strconv.Itoa(i)), "%s[%d] must be a string, not %s", key, i, describe(x))
		}
	}
	return out, true
}

// tomlValue is a scalar as TOML writes it (other values described).
func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(cut(v, 40))
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return describe(v)
}

// describe names a TOML value's type for a message.
func describe(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", cut(v, 40))
	case int64:
		return fmt.Sprintf("the integer %d", v)
	case float64:
		return fmt.Sprintf("the number %v", v)
	case bool:
		return fmt.Sprintf("%v", v)
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return "a date"
}

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	if len(q) == 2 {
		return q[0] + " or " + q[1]
	}
	return strings.Join(q, ", ")
}
