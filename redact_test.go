package lunad_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// TestRedactURL attacks the redaction with the ways a credential rides in
// a URL: the secret must not survive, what is needed to tell URLs apart
// must.
func TestRedactURL(t *testing.T) {
	for _, c := range []struct {
		name, raw, want, secret string
	}{
		{"azure api-key", "https://gw.example/openai/v1?api-version=2024-02-01&api-key=SECRETKEY1", "https://gw.example/openai/v1?api-version=2024-02-01&api-key=REDACTED", "SECRETKEY1"},
		{"key", "https://gw.example/v1?key=SECRETKEY2", "https://gw.example/v1?key=REDACTED", "SECRETKEY2"},
		{"signature", "https://gw.example/v1?sig=abc%2Fdef%3D&se=2030", "https://gw.example/v1?sig=REDACTED&se=REDACTED", "abc%2Fdef"},
		{"unforeseen name", "http://127.0.0.1:8080/v1?x-custom-auth=SECRETKEY3", "http://127.0.0.1:8080/v1?x-custom-auth=REDACTED", "SECRETKEY3"},
		{"bare token", "https://gw.example/v1?sk-SECRETKEY4", "https://gw.example/v1?REDACTED", "SECRETKEY4"},
		{"odd name", "https://gw.example/v1?a%20b%3Dc%26SECRETKEY5=1", "https://gw.example/v1?REDACTED", "SECRETKEY5"},
		{"public value that is not plain", "https://gw.example/v1?api-version=SECRET%20KEY6", "https://gw.example/v1?api-version=REDACTED", "KEY6"},
		{"password", "nats://user:SECRETKEY7@127.0.0.1:4222", "nats://REDACTED@127.0.0.1:4222", "SECRETKEY7"},
		{"nats token as user", "nats://SECRETKEY8@127.0.0.1:4222", "nats://REDACTED@127.0.0.1:4222", "SECRETKEY8"},
		{"fragment", "https://gw.example/v1#SECRETKEY9", "https://gw.example/v1", "SECRETKEY9"},
		{"does not parse", "http://u:SECRETKEY10@[::1/v1?key=SECRETKEY11", "http://REDACTED@[::1/v1?REDACTED", "SECRETKEY1"},
		{"does not parse, query first", "%zz?key=SECRETKEY12@host", "%zz?REDACTED", "SECRETKEY12"},
		{"relative, user", "htp//user:SECRETKEY13@host:port:x", "REDACTED@host:port:x", "SECRETKEY13"},
		{"plain", "http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1", ""},
		{"empty", "", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := lunad.RedactURL(c.raw)
			if got != c.want {
				t.Errorf("RedactURL(%q) = %q, want %q", c.raw, got, c.want)
			}
			if c.secret != "" && strings.Contains(got, c.secret) {
				t.Errorf("RedactURL(%q) = %q still holds %q", c.raw, got, c.secret)
			}
		})
	}
}

func TestURLSecrets(t *testing.T) {
	for _, c := range []struct {
		name, raw string
		want      []string
	}{
		{"query", "https://gw.example/v1?api-version=2024-02-01&api-key=SECRET%2FKEY&x=1", []string{"SECRET%2FKEY", "SECRET/KEY"}},
		{"bare", "https://gw.example/v1?sk-abcdef", []string{"sk-abcdef"}},
		{"user", "nats://tok123@h:4222", []string{"tok123"}},
		{"none", "http://127.0.0.1:11434/v1", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := lunad.URLSecrets(c.raw); !slices.Equal(got, c.want) {
				t.Errorf("URLSecrets(%q) = %q, want %q", c.raw, got, c.want)
			}
		})
	}
}

func FuzzRedactURL(f *testing.F) {
	for _, s := range []string{"https://gw/v1?api-key=SECRETKEY", "nats://SECRETKEY@h", "%zz?SECRETKEY", "http://[::1?x=SECRETKEY#SECRETKEY"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := lunad.RedactURL(raw)
		// Read back as a URL, the redacted form shows no user and no
		// query value but REDACTED and a public api-version.
		if u, err := url.Parse(got); err == nil && u.Host != "" {
			if u.User != nil && u.User.String() != lunad.Redacted {
				t.Fatalf("RedactURL(%q) = %q shows the user %q", raw, got, u.User)
			}
			for name, values := range u.Query() {
				for _, v := range values {
					if v != lunad.Redacted && v != "" && !strings.EqualFold(name, "api-version") {
						t.Fatalf("RedactURL(%q) = %q shows %s=%q", raw, got, name, v)
					}
				}
			}
		}
		for _, s := range lunad.URLSecrets(raw) {
			if len(s) < 4 {
				t.Fatalf("URLSecrets(%q) holds %q", raw, s)
			}
		}
	})
}
