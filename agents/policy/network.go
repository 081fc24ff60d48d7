package policy

import (
	"path"
	"strings"

	"github.com/lunad/lunad/internal/lazyregexp"
)

// What the policy can tell from a command's argv about the network. It
// is a courtesy to the model (a clear denial before the command fails);
// the sandbox's network namespace is the guarantee.

// netPrograms reach the network with any arguments.
var netPrograms = []string{
	"curl", "wget", "fetch", "http", "https", "xh", "aria2c", "lynx", "w3m",
	"ssh", "scp", "sftp", "ftp", "telnet", "mosh", "nc", "ncat", "netcat", "socat",
	"ping", "ping6", "dig", "nslookup", "whois", "host", "traceroute",
}

// netSubcommands are the subcommands of package managers and version
// control tools that reach the network; "" is the program alone, and a
// final "@" an operand with a version (go install pkg@v1).
var netSubcommands = map[string][]string{
	"pip":        {"install", "download", "wheel", "search", "index"},
	"npm":        {"install", "i", "ci", "add", "update", "up", "upgrade", "publish", "exec", "x", "create", "audit", "outdated", "view", "info", "login"},
	"pnpm":       {"install", "i", "add", "update", "up", "dlx", "publish", "fetch", "create"},
	"yarn":       {"", "install", "add", "up", "upgrade", "dlx", "publish", "create"},
	"bun":        {"install", "i", "add", "update", "x", "create"},
	"go":         {"get", "mod download", "install @", "run @"},
	"cargo":      {"install", "fetch", "update", "search", "publish", "add", "login"},
	"gem":        {"install", "update", "fetch", "push", "search"},
	"bundle":     {"install", "update", "add"},
	"composer":   {"install", "update", "require", "create-project"},
	"apt":        {"install", "update", "upgrade", "full-upgrade", "download", "source"},
	"apt-get":    {"install", "update", "upgrade", "dist-upgrade", "download", "source"},
	"dnf":        {"install", "update", "upgrade", "download"},
	"yum":        {"install", "update", "upgrade", "download"},
	"apk":        {"add", "update", "upgrade", "fetch"},
	"brew":       {"install", "update", "upgrade", "fetch", "tap"},
	"conda":      {"install", "create", "update"},
	"mamba":      {"install", "create", "update"},
	"micromamba": {"install", "create", "update"},
	"pipx":       {"install", "run", "upgrade"},
	"poetry":     {"add", "install", "update", "lock", "publish", "search"},
	"uv":         {"add", "sync", "lock", "pip install", "tool install", "tool run"},
	"docker":     {"pull", "push", "login", "search"},
	"podman":     {"pull", "push", "login", "search"},
	"hg":         {"clone", "pull", "push", "incoming", "outgoing"},
	"svn":        {"checkout", "co", "update", "up", "export", "import", "commit", "ci"},
	"rustup":     {"install", "update", "toolchain install", "target add", "component add"},
	"dotnet":     {"restore", "add package"},
}

// offlineFlags make a package manager work offline.
var offlineFlags = map[string][]string{
	"pip": {"--no-index"}, "npm": {"--offline"}, "pnpm": {"--offline"}, "yarn": {"--offline"},
	"bun": {"--offline"}, "cargo": {"--offline", "--frozen"}, "uv": {"--offline"}, "poetry": {"--no-network"},
}

var pipName = lazyregexp.New(`^pip[0-9.]*$`)

// offline records a command that reaches the network, unless the
// policy allows the network.
func (a *analysis) offline(n *node, what string) {
	if !a.c.policy.network {
		a.add(n, RuleNetwork, reasonNetwork, what)
	}
}

// network records a program that reaches the network.
func (a *analysis) network(n *node) {
	prog := path.Base(n.argv[0])
	if pipName().MatchString(prog) {
		prog = "pip"
	}
	if contains(netPrograms, prog) {
		a.offline(n, prog)
		return
	}
	if prog == "rsync" {
		for _, x := range parseOpts(n.argv[1:], "e", "--rsh").operands {
			if strings.Contains(x, "::") || strings.HasPrefix(x, "rsync://") || remoteSpec().MatchString(x) {
				a.offline(n, "rsync")
				return
			}
		}
		return
	}
	subs, ok := netSubcommands[prog]
	if !ok {
		return
	}
	args := n.argv[1:]
	for _, f := range offlineFlags[prog] {
		if contains(args, f) {
			return
		}
	}
	// The words: the operands before the first option.
	var words []string
	for _, x := range args {
		if !strings.HasPrefix(x, "-") {
			words = append(words, x)
		}
	}
	for _, sub := range subs {
		if want := strings.Fields(sub); matchWords(want, words) {
			a.offline(n, strings.TrimSpace(strings.TrimSuffix(prog+" "+sub, "@")))
			return
		}
	}
}

// remoteSpec is rsync's HOST:PATH (not a local path with a colon after a
// slash).
var remoteSpec = lazyregexp.New(`^[^/:]+:`)

// matchWords reports whether words begin with want; a final "@" in want
// stands for a later word holding an @.
func matchWords(want, words []string) bool {
	if len(want) == 0 {
		return len(words) == 0
	}
	version := want[len(want)-1] == "@"
	if version {
		want = want[:len(want)-1]
	}
	if len(words) < len(want) {
		return false
	}
	for i, w := range want {
		if words[i] != w {
			return false
		}
	}
	if !version {
		return true
	}
	for _, w := range words[len(want):] {
		if strings.Contains(w, "@") {
			return true
		}
	}
	return false
}

// netCode are the words of inline code (python -c, node -e, perl -e,
// ruby -e) that reach the network.
var netCode = []string{
	"socket", "urllib", "http.client", "httplib", "import requests", "from requests", "requests.get", "requests.post",
	"httpx", "aiohttp", "urlopen", "ftplib", "smtplib", "telnetlib", "paramiko",
	"fetch(", "require('http", `require("http`, "require('net", `require("net`, "node:http", "node:net",
	"Net::HTTP", "LWP::", "IO::Socket", "HTTP::Tiny", "open-uri", "TCPSocket",
}

// inlineCode records inline code that reaches the network.
func (a *analysis) inlineCode(n *node) {
	prog := path.Base(n.argv[0])
	var code []string
	switch {
	case python().MatchString(prog):
		code = []string{"-c"}
	case interpreter().MatchString(prog):
		code = []string{"-e", "-E", "--eval", "-p", "--print", "-r"}
	default:
		return
	}
	args := n.argv[1:]
	for i, x := range args {
		if !contains(code, x) || i+1 >= len(args) {
			continue
		}
		for _, w := range netCode {
			if strings.Contains(args[i+1], w) {
				a.offline(n, prog+" "+x+" code using "+strings.TrimSuffix(w, "("))
				return
			}
		}
	}
}

// python reads python -m: pip runs as pip does, http.server serves the
// network.
func (a *analysis) python(n *node, depth int) {
	args := n.argv[1:]
	for i, x := range args {
		if x == "-c" {
			return
		}
		if x != "-m" || i+1 >= len(args) {
			continue
		}
		switch mod := args[i+1]; mod {
		case "pip", "pip3":
			n.wrapper = true
			a.command(append([]string{"pip"}, args[i+2:]...), n.dir, depth+1)
		case "http.server", "smtpd", "ftplib", "urllib.request":
			a.offline(n, path.Base(n.argv[0])+" -m "+mod)
		}
		return
	}
}
