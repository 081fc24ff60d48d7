package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// space is one Check's view of the workspace.
type space struct {
	root string // as given, cleaned
	real string // with its symlinks resolved
	home string // the user's home ("" when unknown)
}

func newSpace(root, home string) space {
	root = filepath.Clean(root)
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		real = root
	}
	return space{root: root, real: real, home: home}
}

// within reports whether p is dir or inside it (both clean, absolute).
func within(dir, p string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// place is one path of an action, resolved in the workspace.
type place struct {
	written string
	abs     string // resolved: symlinks followed as the kernel would
	// rel is abs relative to the workspace root (slash-separated, "."
	// for the root), "" when abs is outside it.
	rel string
	// lexRel is the written path cleaned without following symlinks,
	// relative to the root, "" when it is outside.
	lexRel string
	// link and target: the first symlink on the way that pointed outside
	// the workspace.
	link, target string
}

// maxHops bounds the symlinks one path may follow (Linux's MAXSYMLINKS).
const maxHops = 40

var errLoop = errors.New("too many levels of symbolic links")

// resolve resolves p (relative to base, an absolute resolved directory,
// or absolute) component by component as the kernel does — a ".." after
// a symlink leaves the symlink's target — following a last component that
// is a symlink only if followLast. Components that do not exist are taken
// as written (they would be created as directories). It fails only on a
// loop of symlinks or a path it may not read.
func (s space) resolve(base, p string, followLast bool) (place, error) {
	pl := place{written: p}
	lex := p
	if !filepath.IsAbs(p) {
		lex = base + "/" + p
	}
	pl.lexRel = s.relative(filepath.Clean(lex))

	cur := base
	if filepath.IsAbs(p) {
		cur = "/"
	}
	comps := strings.Split(p, "/")
	hops := 0
	for len(comps) > 0 {
		c := comps[0]
		comps = comps[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		if len(comps) == 0 && !followLast {
			cur = next
			break
		}
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			cur = next
			continue
		case err != nil:
			return pl, err
		case fi.Mode()&fs.ModeSymlink == 0:
			cur = next
			continue
		}
		if hops++; hops > maxHops {
			return pl, errLoop
		}
		t, err := os.Readlink(next)
		if err != nil {
			return pl, err
		}
		to := t
		if !filepath.IsAbs(t) {
			to = filepath.Join(cur, t)
		}
		if pl.link == "" && !within(s.real, filepath.Clean(to)) && !within(s.root, filepath.Clean(to)) {
			pl.link, pl.target = s.show(next), t
		}
		if filepath.IsAbs(t) {
			cur = "/"
		}
		comps = append(strings.Split(t, "/"), comps...)
	}
	pl.abs = cur
	pl.rel = s.relative(cur)
	if pl.rel != "" {
		pl.link, pl.target = "", ""
	}
	return pl, nil
}

// relative is p (clean, absolute) relative to the workspace root,
// slash-separated; "" when p is outside it.
func (s space) relative(p string) string {
	for _, root := range []string{s.real, s.root} {
		if within(root, p) {
			rel, err := filepath.Rel(root, p)
			if err == nil {
				return filepath.ToSlash(rel)
			}
		}
	}
	return ""
}

// show is how a message names an absolute path: relative to the
// workspace root when it is inside.
func (s space) show(p string) string {
	if rel := s.relative(filepath.Clean(p)); rel != "" {
		return rel
	}
	return p
}

// checkPlace resolves a path of an action and decides the built-in path
// rules: bad-path and outside-workspace always, the protected paths when
// the action writes it.
func (c *checker) checkPlace(base, p string, writes, followLast bool) (place, *Decision) {
	switch {
	case p == "":
		return place{}, deny(RuleBadPath, "an empty path; name a file relative to the workspace root")
	case strings.ContainsRune(p, 0):
		return place{}, deny(RuleBadPath, fmt.Sprintf("%q holds a NUL byte; name a file relative to the workspace root", p))
	}
	pl, err := c.space.resolve(base, p, followLast)
	switch {
	case errors.Is(err, errLoop):
		return pl, deny(RuleBadPath, fmt.Sprintf("%s is a loop of symlinks; name a file inside the workspace", quoteWord(p)))
	case err != nil:
		return pl, deny(RuleBadPath, fmt.Sprintf("%s cannot be resolved (%v); name a file relative to the workspace root", quoteWord(p), errors.Unwrap(err)))
	case pl.rel == "" && pl.link != "":
		return pl, deny(RuleOutside, fmt.Sprintf(reasonOutsideLink, quoteWord(p), quoteWord(pl.link), quoteWord(pl.target)))
	case pl.rel == "":
		return pl, deny(RuleOutside, fmt.Sprintf(reasonOutside, quoteWord(p)))
	}
	if writes {
		if d := c.protected(pl); d != nil {
			return pl, d
		}
	}
	return pl, nil
}

// protected decides the built-in rules on writing pl.
func (c *checker) protected(pl place) *Decision {
	for _, rel := range []string{pl.rel, pl.lexRel} {
		if rel == "" {
			continue
		}
		if rule, format := protectedPath(rel); rule != "" {
			return deny(rule, fmt.Sprintf(format, quoteWord(pl.written)))
		}
		for _, ro := range c.policy.readOnly {
			if withinFold(ro, rel) {
				return deny(RuleReadOnly, fmt.Sprintf(reasonReadOnly, quoteWord(pl.written)))
			}
		}
	}
	return nil
}

// The files that shells, git, editors and tools run or trust: writing
// one is denied at any depth (names compared ignoring case, as the file
// systems of macOS and Windows do).
var (
	dotfiles = []string{
		".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases", ".profile",
		".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".kshrc", ".cshrc", ".tcshrc",
		".inputrc", ".gitconfig", ".git-credentials", ".netrc", ".npmrc", ".pypirc", ".envrc",
		".curlrc", ".wgetrc", ".devcontainer.json",
	}
	dotdirs = []string{".ssh", ".gnupg", ".aws", ".kube", ".docker"}
	// dotpairs are files trusted in one directory: a directory, a file.
	dotpairs = [][2]string{
		{".vscode", "settings.json"}, {".vscode", "tasks.json"}, {".vscode", "launch.json"},
		{".devcontainer", "devcontainer.json"},
	}
)

// protectedPath returns the built-in rule forbidding writes to rel and
// its reason's format, or "".
func protectedPath(rel string) (rule, format string) {
	segs := strings.Split(rel, "/")
	fold := func(names []string, s string) bool {
		for _, n := range names {
			if strings.EqualFold(n, s) {
				return true
			}
		}
		return false
	}
	for i, s := range segs {
		if strings.EqualFold(s, ".git") && i+1 < len(segs) && strings.EqualFold(segs[i+1], "hooks") {
			return RuleGitHooks, reasonGitHooks
		}
	}
	for _, s := range segs {
		if strings.EqualFold(s, ".git") {
			return RuleGitDir, reasonGitDir
		}
	}
	for _, s := range segs {
		if strings.EqualFold(s, ".luna") {
			return RuleLunaDir, reasonLunaDir
		}
	}
	for i, s := range segs {
		if fold(dotfiles, s) || fold(dotdirs, s) {
			return RuleDotfile, reasonDotfile
		}
		for _, pair := range dotpairs {
			if i+1 < len(segs) && strings.EqualFold(s, pair[0]) && strings.EqualFold(segs[i+1], pair[1]) {
				return RuleDotfile, reasonDotfile
			}
		}
	}
	return "", ""
}

// ciConfig are the paths of CI configuration (the default rule
// ci-config).
var ciConfig = []string{".github/workflows", ".gitlab-ci.yml", ".circleci", ".buildkite", "azure-pipelines.yml", ".travis.yml"}

func isCIConfig(rel string) bool {
	for _, pattern := range ciConfig {
		if matchPath(pattern+"/", rel) { // anchored at the root
			return true
		}
	}
	return false
}
