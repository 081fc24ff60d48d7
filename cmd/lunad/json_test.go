package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestJSONShapes pins the JSON keys scripts read.
func TestJSONShapes(t *testing.T) {
	w, id := newWSWith(t, "a.md", "x\n")
	keys := func(out string) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return strings.Join(ks, ",")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"init"}, "adopted,created,root,skipped"},
		{[]string{"edit", id, "--content-file", w.file("y", "y\n")}, "artifact,commit,id,matches,op,path,replayed,version"},
		{[]string{"undo", id}, "artifact,commit,id,op,path,replayed,version"},
		{[]string{"show", id}, "artifact,content"},
		{[]string{"diff", id}, "diff,from,id,to"},
		{[]string{"branch", "b1"}, "commit,current,name"},
	} {
		w.subtest(t, tc.args[0], func(t *testing.T) {
			if got := keys(w.ok(append(tc.args, "--json")...)); got != tc.want {
				t.Fatalf("keys %s, want %s", got, tc.want)
			}
		})
	}
}
