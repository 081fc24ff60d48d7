package harness

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

func TestRewrite(t *testing.T) {
	const j = "/scratch/junit-1.xml"
	pyEnv := map[string]string{"PYTHONDONTWRITEBYTECODE": "1"}
	cases := []struct {
		name    string
		argv    []string
		want    invocation
		wantErr string
	}{
		{"go test gets -json", []string{"go", "test", "./..."}, invocation{kind: goTest, argv: []string{"go", "test", "-json", "./..."}}, ""},
		{"go test with -json keeps it", []string{"go", "test", "-v", "-json", "./..."}, invocation{kind: goTest, argv: []string{"go", "test", "-v", "-json", "./..."}}, ""},
		{"go test with -json=false is left as asked", []string{"go", "test", "-json=false", "."}, invocation{kind: goTest, argv: []string{"go", "test", "-json=false", "."}}, ""},
		{"a -json after -args is the test binary's", []string{"go", "test", ".", "-args", "-json"}, invocation{kind: goTest, argv: []string{"go", "test", "-json", ".", "-args", "-json"}}, ""},
		{"go -C dir test", []string{"/usr/local/go/bin/go", "-C", "sub", "test", "./..."}, invocation{kind: goTest, argv: []string{"/usr/local/go/bin/go", "-C", "sub", "test", "-json", "./..."}}, ""},
		{"go -C=dir test", []string{"go", "-C=sub", "test"}, invocation{kind: goTest, argv: []string{"go", "-C=sub", "test", "-json"}}, ""},
		{"go vet is judged by its exit code", []string{"go", "vet", "./..."}, invocation{kind: byExit, argv: []string{"go", "vet", "./..."}}, ""},
		{"pytest", []string{"pytest", "-q", "tests"}, invocation{kind: pytest, argv: []string{"pytest", "--junitxml=" + j, "-p", "no:cacheprovider", "-q", "tests"}, env: pyEnv}, ""},
		{"Debian's pytest-3 by its path", []string{"/usr/bin/pytest-3"}, invocation{kind: pytest, argv: []string{"/usr/bin/pytest-3", "--junitxml=" + j, "-p", "no:cacheprovider"}, env: pyEnv}, ""},
		{"py.test with arguments after --", []string{"py.test", "--", "-weird-file.py"}, invocation{kind: pytest, argv: []string{"py.test", "--junitxml=" + j, "-p", "no:cacheprovider", "--", "-weird-file.py"}, env: pyEnv}, ""},
		{"pytest already without its cache", []string{"pytest", "-p", "no:cacheprovider"}, invocation{kind: pytest, argv: []string{"pytest", "--junitxml=" + j, "-p", "no:cacheprovider"}, env: pyEnv}, ""},
		{"pytest already without its cache, joined", []string{"pytest", "-pno:cacheprovider"}, invocation{kind: pytest, argv: []string{"pytest", "--junitxml=" + j, "-pno:cacheprovider"}, env: pyEnv}, ""},
		{"python3 -m pytest", []string{"python3", "-m", "pytest", "-x"}, invocation{kind: pytest, argv: []string{"python3", "-m", "pytest", "--junitxml=" + j, "-p", "no:cacheprovider", "-x"}, env: pyEnv}, ""},
		{"python3.11 -X dev -B -mpytest", []string{"/usr/bin/python3.11", "-X", "dev", "-B", "-mpytest"}, invocation{kind: pytest, argv: []string{"/usr/bin/python3.11", "-X", "dev", "-B", "-mpytest", "--junitxml=" + j, "-p", "no:cacheprovider"}, env: pyEnv}, ""},
		{"python -m unittest is judged by its exit code", []string{"python", "-m", "unittest"}, invocation{kind: byExit, argv: []string{"python", "-m", "unittest"}}, ""},
		{"a python script named pytest is not pytest", []string{"python3", "run.py", "-m", "pytest"}, invocation{kind: byExit, argv: []string{"python3", "run.py", "-m", "pytest"}}, ""},
		{"python -c is not pytest", []string{"python3", "-c", "import pytest; pytest.main()"}, invocation{kind: byExit, argv: []string{"python3", "-c", "import pytest; pytest.main()"}}, ""},
		{"make test", []string{"make", "test"}, invocation{kind: byExit, argv: []string{"make", "test"}}, ""},
		{"pytest with its own --junitxml", []string{"pytest", "--junitxml=out.xml"}, invocation{}, "test command pytest --junitxml=out.xml sets --junitxml itself; remove it"},
		{"pytest with its own --junit-xml", []string{"python3", "-m", "pytest", "--junit-xml", "out.xml"}, invocation{}, "sets --junit-xml itself"},
		{"an empty command", []string{}, invocation{}, "a test command is empty"},
		{"an empty program", []string{"", "test"}, invocation{}, "a test command is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := rewrite(c.argv, j)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !errors.Is(err, lunad.ErrInvalid) {
					t.Fatalf("error %v, want one wrapping ErrInvalid with %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("rewrite(%q):\ngot  %#v\nwant %#v", c.argv, got, c.want)
			}
		})
	}
}
