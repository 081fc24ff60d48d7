package lunad

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// Redacted is what stands in a URL for what RedactURL hides.
const Redacted = "REDACTED"

// publicQuery are the query parameters whose values RedactURL keeps:
// the ones a model gateway's base URL carries that are known to hold no
// secret (Azure OpenAI's api-version). Every other value may be a key
// (api-key, key, token, sig, code, ... and names no list can foresee), so
// it is hidden: a value hidden by mistake costs a detail in a message, one
// shown by mistake leaks a credential into history that cannot be
// rewritten.
var publicQuery = map[string]bool{"api-version": true}

// plainQuery is what a query parameter's name, or a public value, looks
// like; anything else is hidden whole. Compiled on first use (the root
// imports no sibling, so not through internal/lazyregexp).
var plainQuery = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.\-]{1,64}$`) })

// RedactURL is raw as a message, a log, an event or a configuration
// snapshot may show it: its user information (a password, or a token
// written as the user, as NATS takes one) and the value of every query
// parameter but api-version are REDACTED, a parameter without a value or
// with an odd name is REDACTED whole, the fragment is dropped. A URL that
// does not parse, or has no scheme or host, is shown up to its query and
// without anything before an @, at most 80 bytes. A secret in the URL's path is not recognised.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		// Not an absolute URL: what looks like user information or a
		// query in it is hidden all the same.
		return redactUnparsed(raw)
	}
	if u.User != nil {
		u.User = url.User(Redacted)
	}
	u.Fragment, u.RawFragment = "", ""
	if u.RawQuery != "" || u.ForceQuery {
		u.RawQuery = redactQuery(u.RawQuery)
	}
	return u.String()
}

func redactQuery(q string) string {
	parts := strings.Split(q, "&")
	for i, p := range parts {
		name, value, hasValue := strings.Cut(p, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		switch {
		case p == "":
		case !hasValue || !plainQuery().MatchString(name):
			parts[i] = Redacted
		case publicQuery[strings.ToLower(name)] && plainQuery().MatchString(value):
		default:
			parts[i] = url.QueryEscape(name) + "=" + Redacted
		}
	}
	return strings.Join(parts, "&")
}

func redactUnparsed(s string) string {
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i] + "?" + Redacted
	}
	if at := strings.LastIndex(s, "@"); at >= 0 {
		from := 0
		if i := strings.Index(s, "://"); i >= 0 && i < at {
			from = i + len("://")
		}
		s = s[:from] + Redacted + "@" + s[at+1:]
	}
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// URLSecrets are the parts of raw that RedactURL hides and that a server
// or a library may quote back in an error: the user information and the
// values of the query parameters that are not public, as written and
// unescaped. A message is cleaned of them with strings.ReplaceAll before
// it is shown. Values shorter than 4 bytes are left out: replacing them
// would garble a message and they are no credential.
func URLSecrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var out []string
	add := func(s string) {
		if len(s) >= 4 {
			out = append(out, s)
		}
	}
	if u.User != nil {
		add(u.User.Username())
		if p, ok := u.User.Password(); ok {
			add(p)
		}
	}
	for _, p := range strings.Split(u.RawQuery, "&") {
		name, value, hasValue := strings.Cut(p, "=")
		if !hasValue {
			value = name // a bare parameter may be the key itself
		} else if n, err := url.QueryUnescape(name); err == nil && publicQuery[strings.ToLower(n)] && plainQuery().MatchString(value) {
			continue
		}
		add(value)
		if v, err := url.QueryUnescape(value); err == nil && v != value {
			add(v)
		}
	}
	return out
}
