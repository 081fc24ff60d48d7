package shim_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lunad/lunad/sandbox/shim"
	"github.com/lunad/lunad/sandbox/shim/shimtest"
)

// shimBin is cmd/lunad-shim, built by TestMain as `make build` builds it.
var shimBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "lunad-shim-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if shimBin, err = shimtest.Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestRefusesWithoutItsSpec runs lunad-shim outside any sandbox as
// something other than lunad would: with no spec at all, with no spec
// descriptor, and with specs it must refuse. Each time it exits 126
// without running the command, and says why — on its status pipe when
// it has one, else on stderr.
func TestRefusesWithoutItsSpec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, spec, want string
		noSpecFD         bool
	}{
		{name: "no spec descriptor", noSpecFD: true, want: "no spec on descriptor 5"},
		{name: "an empty spec", spec: "", want: "the spec from lunad does not decode"},
		{name: "a field this shim does not know", spec: `{"abi":7,"fs":1,"paths":[],"deny_exec":true}`, want: `unknown field "deny_exec"`},
		{name: "an unknown ABI", spec: `{"abi":99,"fs":1,"paths":[]}`, want: "Landlock ABI 99"},
		{name: "a relative path", spec: `{"abi":7,"fs":1,"paths":[{"path":"usr","access":1}]}`, want: `the path "usr"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), "ran")
			statusR, statusW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd := exec.Command(shimBin, "/bin/sh", "-c", "touch "+marker)
			cmd.Stderr = &stderr
			var specW *os.File
			if tt.noSpecFD {
				// Descriptors 3 to 5 closed, 6 the status pipe.
				cmd.ExtraFiles = []*os.File{nil, nil, nil, statusW}
			} else {
				var specR *os.File
				if specR, specW, err = os.Pipe(); err != nil {
					t.Fatal(err)
				}
				cmd.ExtraFiles = []*os.File{nil, nil, specR, statusW} // 5: the spec, 6: the status
				defer specR.Close()
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			statusW.Close()
			if specW != nil {
				specW.WriteString(tt.spec)
				specW.Close()
			}
			status, _ := io.ReadAll(statusR)
			statusR.Close()
			err = cmd.Wait()
			if cmd.ProcessState.ExitCode() != 126 || !strings.HasPrefix(string(status), "126 ") || !strings.Contains(string(status), tt.want) {
				t.Errorf("exit %v, status %q, stderr %q; want 126 saying %q", err, status, stderr.String(), tt.want)
			}
			if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the command ran: %v", err)
			}
		})
	}
	t.Run("no status pipe either", func(t *testing.T) {
		t.Parallel()
		marker := filepath.Join(t.TempDir(), "ran")
		var stderr strings.Builder
		cmd := exec.Command(shimBin, "/bin/sh", "-c", "touch "+marker)
		cmd.Stderr = &stderr
		err := cmd.Run()
		if cmd.ProcessState.ExitCode() != 126 || !strings.Contains(stderr.String(), "lunad-shim: the Landlock shim: no spec on descriptor 5") {
			t.Errorf("exit %v, stderr %q; want 126 saying there is no spec", err, stderr.String())
		}
		if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the command ran: %v", err)
		}
	})
	if shim.SpecFD != 5 || shim.StatusFD != 6 {
		t.Fatalf("the test's descriptors are 5 and 6; the shim's are %d and %d", shim.SpecFD, shim.StatusFD)
	}
}
