package mcp

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/lunad/lunad"
)

// TestTokenRequired: a request to Serve without the server's token, with
// another token or another scheme is refused with 401, a WWW-Authenticate
// header and a one-line hint, before anything else is looked at; the
// token, in a scheme named in any case, is let through.
func TestTokenRequired(t *testing.T) {
	url, _ := httpServe(t, Options{})
	for _, tc := range []struct {
		name, auth string
		want       int
	}{
		{"no header", "", http.StatusUnauthorized},
		{"another token", "Bearer " + strings.Repeat("0", len(testToken)), http.StatusUnauthorized},
		{"a prefix of the token", "Bearer " + testToken[:len(testToken)-1], http.StatusUnauthorized},
		{"the token and more", "Bearer " + testToken + "0", http.StatusUnauthorized},
		{"the token in another scheme", "Basic " + testToken, http.StatusUnauthorized},
		{"the scheme alone", "Bearer", http.StatusUnauthorized},
		{"the token without a scheme", testToken, http.StatusUnauthorized},
		{"the token", "Bearer " + testToken, http.StatusOK},
		{"the token, scheme in lower case", "bearer " + testToken, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", url, strings.NewReader(initialize))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var body bytes.Buffer
			body.ReadFrom(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("%s: %s %q", tc.auth, resp.Status, body.String())
			}
			if tc.want == http.StatusUnauthorized {
				if h := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(h, "Bearer ") {
					t.Errorf("WWW-Authenticate: %q, want the Bearer scheme", h)
				}
				if hint := body.String(); strings.Count(hint, "\n") != 1 || !strings.Contains(hint, "Authorization: Bearer TOKEN") {
					t.Errorf("body %q, want one line saying to send Authorization: Bearer TOKEN", hint)
				}
			}
		})
	}
}

// TestServeWithoutToken: Serve refuses to serve without a token.
func TestServeWithoutToken(t *testing.T) {
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	svc, _ := newService(t, nil)
	srv, err := New(t.Context(), svc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Serve(t.Context(), ln, ""); !errors.Is(err, lunad.ErrInvalid) {
		t.Fatalf("Serve with no token = %v, want ErrInvalid", err)
	}
}

// nobody is the unprivileged account the cross-user tests act as.
const nobody = 65534

// worldDir makes a directory every account can enter (as a workspace
// usually is), removed at the end of the test.
func worldDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "lunad-mcp-auth-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// curl runs a real curl as uid (with the current process's credentials if
// uid is the current one) that posts an initialize request to url with the
// token read by cat from tokenFile (so a token the account cannot read is
// sent empty), extra arguments first. It returns curl's exit code, the
// HTTP status it printed and its stderr (and cat's).
func curl(t *testing.T, uid int, tokenFile, url string, extra ...string) (int, string, string) {
	t.Helper()
	const script = `f=$1; d=$2; shift 2
curl -sS -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -H "Authorization: Bearer $(cat "$f")" -d "$d" "$@"`
	args := append([]string{"-c", script, "sh", tokenFile, initialize}, append(extra, url)...)
	cmd := exec.Command("sh", args...)
	if uid != os.Getuid() {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	}
	cmd.Dir = "/"
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// TestOtherUserRefused attacks the server from another local account, as
// root runs a real curl as nobody: over the loopback port, nobody cannot
// read the token file WriteToken made (mode 0600 in a 0700 directory, in
// a workspace everyone can enter) and is refused with 401, while the owner
// with the token is served; the unix socket from ListenUnix (made under a
// umask that would leave it open to all) does not even let nobody connect.
func TestOtherUserRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("acting as another user needs root (CI runs as root)")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatalf("curl is not on PATH: %v", err)
	}
	ws := worldDir(t)
	state := filepath.Join(ws, ".git", "luna")
	if err := os.MkdirAll(state, 0o755); err != nil {
		t.Fatal(err)
	}
	tok, err := WriteToken(filepath.Join(state, "mcp"))
	if err != nil {
		t.Fatal(err)
	}
	defer tok.Remove()
	if fi, err := os.Stat(tok.File); err != nil {
		t.Fatal(err)
	} else if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file %s: mode %v, want 0600", tok.File, fi.Mode())
	}

	t.Run("loopback port", func(t *testing.T) {
		ln, err := Listen("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		serveOn(t, Options{}, ln, tok.Secret)
		url := "http://" + ln.Addr().String() + HTTPPath
		if code, status, stderr := curl(t, nobody, tok.File, url); code != 0 || status != "401" || !strings.Contains(stderr, "Permission denied") {
			t.Errorf("nobody: curl exit %d, HTTP %s, stderr %q; want the token file unreadable and 401", code, status, stderr)
		}
		if code, status, stderr := curl(t, os.Getuid(), tok.File, url); code != 0 || status != "200" {
			t.Errorf("owner with the token: curl exit %d, HTTP %s, %s; want 200", code, status, stderr)
		}
	})

	t.Run("unix socket", func(t *testing.T) {
		sock := filepath.Join(ws, "mcp.sock")
		old := syscall.Umask(0)
		ln, err := ListenUnix(sock)
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		serveOn(t, Options{}, ln, tok.Secret)
		url := "http://localhost" + HTTPPath
		if code, status, stderr := curl(t, nobody, "/dev/null", url, "--unix-socket", sock); code != 7 {
			t.Errorf("nobody: curl exit %d, HTTP %s, stderr %q; want it unable to connect (exit 7)", code, status, stderr)
		}
		if fi, err := os.Stat(sock); err != nil {
			t.Error(err)
		} else if fi.Mode().Perm() != 0o600 {
			t.Errorf("socket %s: mode %v, want 0600", sock, fi.Mode())
		}
		if code, status, stderr := curl(t, os.Getuid(), tok.File, url, "--unix-socket", sock); code != 0 || status != "200" {
			t.Errorf("owner with the token: curl exit %d, HTTP %s, %s; want 200", code, status, stderr)
		}
		if code, status, _ := curl(t, os.Getuid(), "/dev/null", url, "--unix-socket", sock); code != 0 || status != "401" {
			t.Errorf("owner without the token: curl exit %d, HTTP %s; want 401", code, status)
		}
	})
}
