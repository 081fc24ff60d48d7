package llmtest

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"testing"
)

// Fixture reads a recorded answer from path: "#" comment lines saying
// where its shape comes from, then an HTTP response as it was on the wire
// (status line, header, blank line, body to the end of the file). The
// Reply serves its status, header and body byte for byte.
func Fixture(t *testing.T, path string) Reply {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for bytes.HasPrefix(raw, []byte("#")) {
		_, raw, _ = bytes.Cut(raw, []byte("\n"))
	}
	res, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	rep := Reply{Status: res.StatusCode, Header: map[string]string{}, Body: string(body)}
	for k := range res.Header {
		rep.Header[k] = res.Header.Get(k)
	}
	return rep
}
