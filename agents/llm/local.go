package llm

import (
	"net"
	"net/url"
	"strings"
)

// LocalServer says whether c's base URL is a server on this machine or
// this network: a host named localhost (or under .localhost), a loopback
// address (127.0.0.0/8, ::1) or a private one (10.0.0.0/8, 172.16.0.0/12,
// 192.168.0.0/16, fc00::/7). Such a server — Ollama, llama.cpp, vLLM,
// LM Studio — needs no API key; a key, when set, is still sent. A host
// name other than localhost is not resolved: it is not taken as local.
func (c Config) LocalServer() bool {
	if c.BaseURL == "" {
		return false
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil {
		return false
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsPrivate())
}

// KeyNeeded says whether c's provider needs an API key: its key variable
// is named and its server is not local (LocalServer).
func (c Config) KeyNeeded() bool {
	return c.KeyEnv() != "" && !c.LocalServer()
}
