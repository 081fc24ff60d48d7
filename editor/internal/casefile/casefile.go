package casefile

import (
	"fmt"
	"strings"
)

// IsMarker reports whether line starts a section ("-- name --").
func IsMarker(line string) bool {
	line = strings.TrimSuffix(line, "\n")
	return strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") && len(line) > 6
}

// Decode reads one case file into its header fields and its sections,
// with every text exactly as the editor sees it.
func Decode(data []byte) (map[string]string, map[string]string, error) {
	hdr, sec := map[string]string{}, map[string]string{}
	cur, inHeader := "", true
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if line == "" {
			continue
		}
		if IsMarker(line) {
			m := strings.TrimSuffix(line, "\n")
			cur, inHeader = m[3:len(m)-3], false
			if _, dup := sec[cur]; dup {
				return nil, nil, fmt.Errorf("duplicate section %q", cur)
			}
			sec[cur] = ""
			continue
		}
		if inHeader {
			k, v, ok := strings.Cut(strings.TrimSuffix(line, "\n"), ": ")
			if !ok {
				return nil, nil, fmt.Errorf("bad header line %q", line)
			}
			hdr[k] = v
			continue
		}
		sec[cur] += line
	}
	for _, name := range strings.Fields(hdr["noeol"]) {
		s, ok := sec[name]
		if !ok || !strings.HasSuffix(s, "\n") {
			return nil, nil, fmt.Errorf("noeol names section %q, which is missing or empty", name)
		}
		sec[name] = strings.TrimSuffix(s, "\n")
	}
	for _, name := range strings.Fields(hdr["crlf"]) {
		if _, ok := sec[name]; !ok {
			return nil, nil, fmt.Errorf("crlf names missing section %q", name)
		}
		sec[name] = strings.ReplaceAll(sec[name], "\n", "\r\n")
	}
	need := []string{"original", "search", "replace"}
	switch hdr["expect"] {
	case "apply":
		need = append(need, "expected")
	case "refuse", "already-applied":
	default:
		return nil, nil, fmt.Errorf("bad expect: %q", hdr["expect"])
	}
	for _, n := range need {
		if _, ok := sec[n]; !ok {
			return nil, nil, fmt.Errorf("missing section %q", n)
		}
	}
	return hdr, sec, nil
}
