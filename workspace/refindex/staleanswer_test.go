package refindex

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

var answerKey = StaleKey{Version: "v/test", Head: strings.Repeat("ab", 20), Loose: false}

func answerRefs() []lunad.Reference {
	span := lunad.Span{Start: lunad.Position{Line: 3, Column: 5, Byte: 12}, End: lunad.Position{Line: 3, Column: 17, Byte: 24}}
	return []lunad.Reference{{
		From: lunad.Location{ID: "d0000002", Path: "guide.md", Span: &span}, Kind: "code", Text: "parse_config",
		To:    &lunad.Location{ID: "d0000001", Path: "config.py", Symbol: "parse_config", Kind: "function", Span: &span},
		State: lunad.RefStale, Reason: "parse_config in config.py changed", Baseline: strings.Repeat("01", 20),
		Since: &lunad.Version{Artifact: "d0000001", Number: 2, Commit: strings.Repeat("02", 20), Op: lunad.OpEdit,
			Agent: "writer", Time: time.Date(2026, 1, 1, 0, 0, 3, 0, time.UTC), Extra: map[string]string{"Match": "exact"}},
	}, {
		From: lunad.Location{ID: "d0000003", Path: "notes.md"}, Kind: "link", Text: "gone.py", State: lunad.RefBroken,
		Reason: "no artifact at gone.py",
	}}
}

func mustEncode(t testing.TB, key StaleKey, refs []lunad.Reference) []byte {
	t.Helper()
	data, err := encodeAnswer(key, refs)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestStaleAnswerRoundTrip saves an answer and loads it for its key, and
// not for any other: another HEAD, slug rule or version.
func TestStaleAnswerRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stale.answer")
	if err := SaveStale(path, answerKey, answerRefs()); err != nil {
		t.Fatal(err)
	}
	got, ok, err := LoadStale(path, answerKey)
	if err != nil || !ok {
		t.Fatalf("LoadStale = %v, %v", ok, err)
	}
	if !reflect.DeepEqual(got, answerRefs()) {
		t.Errorf("loaded %+v, saved %+v", got, answerRefs())
	}
	for name, key := range map[string]StaleKey{
		"another HEAD":       {Version: answerKey.Version, Head: strings.Repeat("cd", 20)},
		"the loose slugs":    {Version: answerKey.Version, Head: answerKey.Head, Loose: true},
		"another lunad":      {Version: "v/other", Head: answerKey.Head},
		"no version (no ID)": {Head: answerKey.Head},
	} {
		t.Run(name, func(t *testing.T) {
			if got, ok, err := LoadStale(path, key); ok || err != nil || got != nil {
				t.Errorf("LoadStale(%+v) = %v, %v, %v; want nothing and no error", key, got, ok, err)
			}
		})
	}
	t.Run("no file", func(t *testing.T) {
		if _, ok, err := LoadStale(filepath.Join(t.TempDir(), "none"), answerKey); ok || err != nil {
			t.Errorf("LoadStale of no file = %v, %v", ok, err)
		}
	})
	t.Run("not saved without a version", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "stale.answer")
		if err := SaveStale(p, StaleKey{Head: answerKey.Head}, answerRefs()); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("a file was written: %v", err)
		}
	})
}

// resum replaces the checksum of a file's content by its body's, as a
// forger (or a bug) that knows the format would.
func resum(data []byte) []byte {
	body := data[len(answerMagic) : len(data)-sha256.Size]
	sum := sha256.Sum256(body)
	return append(data[:len(data)-sha256.Size:len(data)-sha256.Size], sum[:]...)
}

// withBody is a file whose JSON body is body, with a right checksum.
func withBody(body string) []byte {
	sum := sha256.Sum256([]byte(body))
	return append(append([]byte(answerMagic), body...), sum[:]...)
}

// TestStaleAnswerRejected feeds LoadStale damaged, foreign and planted
// files: each is an error naming why, never an answer.
func TestStaleAnswerRejected(t *testing.T) {
	good := mustEncode(t, answerKey, answerRefs())
	key := `"key":{"version":"v/test","head":"` + answerKey.Head + `","loose":false}`
	for _, tc := range []struct {
		name, want string
		data       []byte
	}{
		{"empty", "not a saved stale answer", nil},
		{"another file", "not a saved stale answer", []byte("lunad parse cache\n...")},
		{"truncated", "checksum does not match", good[:len(good)-1]},
		{"a byte flipped", "checksum does not match", func() []byte {
			d := bytes.Clone(good)
			d[len(answerMagic)+10] ^= 1
			return d
		}()},
		{"not JSON", "damaged", withBody("{{{")},
		{"an unknown field", "damaged", withBody("{" + key + `,"refs":[],"extra":1}`)},
		{"data after the answer", "data after", withBody("{" + key + `,"refs":[]} {}`)},
		{"no list", "no list of references", withBody("{" + key + "}")},
		{"an ok reference", "not a stale or broken reference", withBody("{" + key + `,"refs":[{"from":{"id":"d1","path":"a.md"},"kind":"code","text":"x","state":"ok"}]}`)},
		{"no artifact", "not a stale or broken reference", withBody("{" + key + `,"refs":[{"from":{"id":"","path":"a.md"},"kind":"code","text":"x","state":"stale"}]}`)},
		{"too large", "over", append(bytes.Clone(good), make([]byte, maxAnswerFile)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "stale.answer")
			if err := os.WriteFile(path, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			got, ok, err := LoadStale(path, answerKey)
			if ok || got != nil || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LoadStale = %v, %v, %v; want an error saying %q", got, ok, err, tc.want)
			}
		})
	}
	// resum is right: the same file with its checksum redone loads.
	if _, err := decodeAnswer(resum(bytes.Clone(good))); err != nil {
		t.Fatal(err)
	}
}

// FuzzDecodeAnswer: any content is an answer that encodes back to itself
// or an error, never a panic.
func FuzzDecodeAnswer(f *testing.F) {
	f.Add(mustEncode(f, answerKey, answerRefs()))
	f.Add(mustEncode(f, answerKey, nil))
	f.Add(withBody(`{"key":{},"refs":[]}`))
	f.Add([]byte(answerMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := decodeAnswer(data)
		if err != nil {
			return
		}
		again, err := decodeAnswer(mustEncode(t, a.Key, a.Refs))
		if err != nil {
			t.Fatalf("an answer decoded from the fuzzer's file does not decode once re-encoded: %v", err)
		}
		if !reflect.DeepEqual(again, a) {
			t.Fatalf("re-encoded answer differs:\n%+v\n%+v", again, a)
		}
	})
}

// TestAnswerVersion: this test binary has a Go build ID, so answers are
// versioned by it, with the queries' schema.
func TestAnswerVersion(t *testing.T) {
	id := executableBuildID()
	if id == "" || !strings.HasSuffix(AnswerVersion(), "/"+id) || !strings.HasPrefix(AnswerVersion(), answerFormat+"/") {
		t.Fatalf("AnswerVersion() = %q, build ID %q", AnswerVersion(), id)
	}
}

// TestAnswerVersionOfTheRunningFile: a process whose executable is
// replaced at its path (an upgrade while a daemon runs) still versions its
// answers by the code it runs. A copy of this test binary, run as a
// child, replaces its own file by one that is not an executable, then
// prints the build ID it reads: its own.
func TestAnswerVersionOfTheRunningFile(t *testing.T) {
	if os.Getenv("LUNAD_TEST_REPLACE_SELF") != "" {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		tmp := exe + ".new"
		if err := os.WriteFile(tmp, []byte("replaced by an upgrade\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, exe); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("build ID %q\n", executableBuildID())
		return
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(t.TempDir(), "refindex.test")
	if err := os.WriteFile(copyPath, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(copyPath, "-test.run", "^TestAnswerVersionOfTheRunningFile$", "-test.v")
	cmd.Env = append(os.Environ(), "LUNAD_TEST_REPLACE_SELF=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if want := fmt.Sprintf("build ID %q", executableBuildID()); !strings.Contains(string(out), want) {
		t.Fatalf("the child read another build ID than the code it runs; want %s:\n%s", want, out)
	}
}
