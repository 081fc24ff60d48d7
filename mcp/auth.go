package mcp

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// requireToken answers 401 Unauthorized, with a WWW-Authenticate header
// and a one-line hint, to every request that does not carry secret as its
// bearer token (RFC 6750: "Authorization: Bearer TOKEN", the header MCP's
// HTTP transport authenticates with), and passes the others to next.
// Tokens are compared in constant time, as SHA-256 sums so that not even
// their length shows.
func requireToken(secret string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(secret))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := bearerToken(r.Header.Get("Authorization"))
		sum := sha256.Sum256([]byte(got))
		if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 || !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="lunad mcp"`)
			http.Error(w, "lunad mcp: missing or wrong token: send the token `lunad mcp --http` printed (also in its http-PID.token file under .git/luna/mcp) as the header \"Authorization: Bearer TOKEN\"", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bearerToken returns the token of an Authorization header value of the
// Bearer scheme (named in any case, RFC 7235), and false for any other
// value or an empty token.
func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	token = strings.TrimLeft(token, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}

// WithToken returns an http.RoundTripper for Go clients of Serve: next
// (http.DefaultTransport if nil), sending token as the bearer token of
// every request.
func WithToken(next http.RoundTripper, token string) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return bearerTransport{token: token, next: next}
}

type bearerTransport struct {
	token string
	next  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
