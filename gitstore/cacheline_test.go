package gitstore

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// cacheEntries are entries of every shape the commit cache holds: a
// person's commit, lunad's commits with and without Extra, Also and
// parents, a merge.
func cacheEntries() []*entry {
	c := strings.Repeat("ab", 20)
	return []*entry{
		{Commit: c, Parents: []string{strings.Repeat("01", 20)}, Unix: 1700004999, Author: "Person", Rec: record{Subject: "person commit 4999"}},
		{Commit: c, Unix: -5, Author: "", Rec: record{Op: lunad.OpAdopt, Agent: "lunad user", Subject: "adopt 10001 files as artifacts"}, Lunad: true},
		{Commit: c, Parents: []string{c, strings.Repeat("cd", 20)}, Unix: 1795664606, Author: "bench", Lunad: true,
			Rec: record{Op: "edit", Artifact: "037h3mbd", Version: 3, Agent: "bench", Key: "k-1", Request: "sha256:00ff", Target: 2,
				Extra: map[string]string{"Match": "exact", "Tier": "fuzzy"}, Subject: "edit lib/auth/split_05040.md — ünïcode"}},
		{Commit: c, Parents: []string{}, Rec: record{Op: "apply", Also: []alsoVersion{{ID: "a", Op: "edit", Version: 2}, {ID: "b", Op: "create", Version: 1}}, Extra: map[string]string{}}},
		{Commit: c, Rec: record{Also: []alsoVersion{}}},
	}
}

// TestDecodeEntry: lines as json.Marshal writes them are read by the fast
// parser; every other line by encoding/json; either way the entry is the
// one json.Unmarshal gives.
func TestDecodeEntry(t *testing.T) {
	type row struct {
		name string
		line string
		fast bool // read by the fast parser
	}
	var rows []row
	for i, e := range cacheEntries() {
		b, _ := json.Marshal(e)
		rows = append(rows, row{name: "as marshalled " + string(rune('a'+i)), line: string(b), fast: true})
	}
	plain := `{"c":"` + strings.Repeat("ab", 20) + `","t":1,"a":"A","r":{"Op":"edit","Artifact":"x","Version":1,"Agent":"A","Key":"","Request":"","Target":0,"Extra":null,"Subject":"S"},"l":true}`
	rows = append(rows,
		row{"keys in another order", `{"l":true,"r":{"Subject":"S","Op":"edit"},"a":"A","t":1,"c":"` + strings.Repeat("ab", 20) + `"}`, true},
		row{"a quote in the subject", strings.Replace(plain, `"Subject":"S"`, `"Subject":"say \"hi\""`, 1), false},
		row{"an escaped <", strings.Replace(plain, `"Subject":"S"`, `"Subject":"a \u003c b"`, 1), false},
		row{"whitespace", strings.Replace(plain, `"t":1,`, `"t": 1,`, 1), false},
		row{"a field of a later lunad", strings.Replace(plain, `"l":true}`, `"l":true,"z":[1,{"y":2}]}`, 1), false},
		row{"a key in another case", strings.Replace(plain, `"Op":"edit"`, `"op":"edit"`, 1), false},
		row{"a key given twice", strings.Replace(plain, `"Extra":null`, `"Extra":{"a":"1"},"Extra":{"b":"2"}`, 1), false},
		row{"invalid UTF-8", strings.Replace(plain, `"Subject":"S"`, "\"Subject\":\"\xff\"", 1), false},
		row{"a float", strings.Replace(plain, `"t":1,`, `"t":1.0,`, 1), false},
		row{"a leading zero", strings.Replace(plain, `"t":1,`, `"t":01,`, 1), false},
		row{"null for a number", strings.Replace(plain, `"t":1,`, `"t":null,`, 1), false},
		row{"a torn line", plain[:len(plain)/2], false},
		row{"trailing bytes", plain + "x", false},
		row{"no comma after an empty object", strings.Replace(plain, `"r":{"Op":"edit","Artifact":"x","Version":1,"Agent":"A","Key":"","Request":"","Target":0,"Extra":null,"Subject":"S"},`, `"r":{}`, 1), false},
	)
	for _, tt := range rows {
		t.Run(tt.name, func(t *testing.T) {
			_, fast := decodeEntryFast([]byte(tt.line), interner{})
			if fast != tt.fast {
				t.Errorf("fast parser took it: %v, want %v", fast, tt.fast)
			}
			got, err := decodeEntry([]byte(tt.line), interner{})
			var want entry
			wantErr := json.Unmarshal([]byte(tt.line), &want)
			if (err != nil) != (wantErr != nil) || err == nil && !reflect.DeepEqual(*got, want) {
				t.Fatalf("decodeEntry = %+v, %v\njson.Unmarshal = %+v, %v", got, err, want, wantErr)
			}
		})
	}
}

// FuzzDecodeEntry: whatever the fast parser reads, encoding/json reads the
// same.
func FuzzDecodeEntry(f *testing.F) {
	for _, e := range cacheEntries() {
		b, _ := json.Marshal(e)
		f.Add(b)
	}
	f.Add([]byte(`{"c":"x","r":{"Extra":{"a":"1","b":""},"Also":[{"ID":"i"}]},"p":null,"l":false}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		got, ok := decodeEntryFast(line, interner{})
		if !ok {
			return
		}
		var want entry
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatalf("fast parser read %q, which json.Unmarshal refuses: %v", line, err)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Fatalf("%q:\nfast %+v\njson %+v", line, *got, want)
		}
	})
}
