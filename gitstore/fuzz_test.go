package gitstore

import (
	"reflect"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// FuzzRecordRoundTrip: whatever provenance passes validation is read back
// exactly from the commit message lunad writes.
func FuzzRecordRoundTrip(f *testing.F) {
	f.Add("edit a.md", "why\nbecause", "coder", "key-1", "a1b2c3d4", 3, "exact,fuzzy")
	f.Add("", "", "", "", "", 0, "")
	f.Add("x", "Luna-Op: create", "a b", "k", "zz", 1, "a\nb")
	f.Fuzz(func(t *testing.T, subj, body, agent, key, id string, version int, match string) {
		ch := lunad.Change{Agent: agent, IdempotencyKey: key, Message: body, Extra: map[string]string{"Match": match}}
		if validateChange(ch) != nil || strings.ContainsAny(subj, "\n\r") || checkTrailerValue("id", id) != nil || version < 0 {
			return
		}
		rec := record{Op: lunad.OpEdit, Artifact: id, Version: version, Agent: agent, Key: key, Extra: ch.Extra, Subject: subj}
		got, ok := parseRecord(rec.message(body))
		if !ok {
			t.Fatalf("not recognised as a lunad commit")
		}
		want := rec
		if match == "" {
			want.Extra = map[string]string{"Match": ""}
		}
		if got.Op != want.Op || got.Artifact != want.Artifact || got.Version != want.Version ||
			got.Agent != want.Agent || got.Key != want.Key || got.Subject != want.Subject {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
		}
		if match != "" && !reflect.DeepEqual(got.Extra, want.Extra) {
			t.Fatalf("extra: got %v want %v", got.Extra, want.Extra)
		}
	})
}

// FuzzCheckPath: an accepted path never reaches .git, .luna or outside
// the workspace, however it is spelled.
func FuzzCheckPath(f *testing.F) {
	for _, p := range []string{"a.md", "../x", ".git/config", ".GIT/x", ".git /x", "git~1/x", "a/./b", "a//b", ".luna/x", "é/ü.md", "git~", ".lunA 0", ".LUNA./x", ".git::$INDEX_ALLOCATION/x", ".g\u200cit/x"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if checkPath(p) != nil {
			return
		}
		for _, c := range strings.Split(p, "/") {
			if c == "" || c == "." || c == ".." || isDotGit(c) || strings.Contains(c, ":") {
				t.Fatalf("accepted %q (component %q)", p, c)
			}
		}
		if first, _, _ := strings.Cut(p, "/"); strings.EqualFold(strings.TrimRight(first, " ."), ".luna") {
			t.Fatalf("accepted %q inside .luna", p)
		}
		if strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\x00\\\n") {
			t.Fatalf("accepted %q", p)
		}
	})
}
