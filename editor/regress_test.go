package editor_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lunad/lunad/editor/internal/casefile"
)

// TestEditQualityRegressions applies the cases of testdata/regress: cases
// of held-out corpora (made by ./internal/corpusgen with other seeds) that
// the matcher once got wrong, in the corpus's txtar format, with a "note:"
// header saying where each comes from. Every one must be plainly right.
func TestEditQualityRegressions(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "regress", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no cases in testdata/regress")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			hdr, sec, err := casefile.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			if hdr["note"] == "" {
				t.Error(`no "note:" header`)
			}
			c := qualityCase{kind: hdr["kind"], file: filepath.ToSlash(f), hdr: hdr, sec: sec}
			if v, tier, note := judge(c); v != right || note != "" {
				t.Errorf("%s (tier %s): %s", map[verdict]string{right: "right", refused: "refused", wrong: "WRONG"}[v], tier, note)
			}
		})
	}
}
