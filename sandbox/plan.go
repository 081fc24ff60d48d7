package sandbox

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lunad/lunad"
)

// Defaults for what a Spec leaves zero.
const (
	DefaultTimeout = 10 * time.Minute
	DefaultGrace   = 2 * time.Second
)

// DefaultLimits are the limits of a Spec whose Limits fields are zero.
var DefaultLimits = Limits{
	CPU:       10 * time.Minute,
	Memory:    8 << 30,
	Processes: 512,
	FileSize:  1 << 30,
	Output:    64 << 10,
}

// plan is a Spec checked and resolved for one run.
type plan struct {
	argv     []string
	root     string // Root as given (cleaned): where the command sees it
	rootSrc  string // Root with symlinks resolved: what is bound there
	dir      string
	readOnly []string // existing read-only paths under Root
	missing  []string // read-only paths that do not exist yet
	created  []string // directories bwrap makes for missing (to remove after), deepest first
	// hiddenFiles and hiddenDirs are Spec.Hidden where the command sees
	// them (under root), symlinks resolved.
	hiddenFiles []string
	hiddenDirs  []string
	home        string
	userHome    string // the user's home, covered by a tmpfs ("" when not needed)
	binds       []Bind
	network     bool
	env         map[string]string
	timeout     time.Duration
	grace       time.Duration
	limits      Limits
	stdin       []byte
}

func invalid(format string, a ...any) error {
	return fmt.Errorf("sandbox: "+format+": %w", append(a, lunad.ErrInvalid)...)
}

// absClean checks that p is absolute and returns it cleaned.
func absClean(field, p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", invalid("%s %q is not an absolute path", field, p)
	}
	return filepath.Clean(p), nil
}

// newPlan checks s and resolves it for a run whose user's home is
// userHome ("" when unknown).
func newPlan(s Spec, userHome string) (*plan, error) {
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return nil, invalid("Spec.Argv is empty: give the program to run and its arguments")
	}
	for _, a := range s.Argv {
		if strings.ContainsRune(a, 0) {
			return nil, invalid("an argument of Spec.Argv contains a NUL byte, which no argument can hold")
		}
	}
	p := &plan{argv: s.Argv, network: s.Network, env: s.Env, stdin: s.Stdin}
	if err := checkEnv(s.Env); err != nil {
		return nil, err
	}
	if err := p.setRoot(s.Root, userHome); err != nil {
		return nil, err
	}
	if err := p.setDir(s.Dir); err != nil {
		return nil, err
	}
	if err := p.setReadOnly(s.ReadOnly); err != nil {
		return nil, err
	}
	if err := p.setHidden(s.Hidden); err != nil {
		return nil, err
	}
	if err := p.setHome(s.Home, userHome); err != nil {
		return nil, err
	}
	if err := p.setBinds(s.Binds, userHome); err != nil {
		return nil, err
	}
	if err := p.setLimits(s); err != nil {
		return nil, err
	}
	if userHome != "" && userHome != "/" && !within("/tmp", userHome) && !underSystem(userHome) {
		p.userHome = userHome
	}
	return p, nil
}

// setRoot takes the workspace: an existing directory that holds neither
// the system, the user's home nor /tmp as a whole.
func (p *plan) setRoot(root, userHome string) error {
	r, err := absClean("Spec.Root", root)
	if err != nil {
		return err
	}
	src, err := filepath.EvalSymlinks(r)
	if err != nil {
		return invalid("Spec.Root %s: %v", r, err)
	}
	if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
		return invalid("Spec.Root %s is not a directory", r)
	}
	for _, path := range []string{r, src} {
		for _, d := range append(slices.Clone(systemDirs), "/tmp", "/proc", "/dev") {
			if within(path, d) {
				return invalid("Spec.Root %s holds %s: a command would be let write the system; give the workspace's own directory", r, d)
			}
		}
		if userHome != "" && within(path, userHome) {
			return invalid("Spec.Root %s holds the user's home %s, which commands must not see; give the workspace's own directory", r, userHome)
		}
	}
	p.root, p.rootSrc = r, src
	return nil
}

// setDir takes the working directory: Root or inside it, also once
// symlinks are resolved.
func (p *plan) setDir(dir string) error {
	if dir == "" {
		p.dir = p.root
		return nil
	}
	d, err := absClean("Spec.Dir", dir)
	if err != nil {
		return err
	}
	if !within(p.root, d) {
		return invalid("Spec.Dir %s is outside the workspace %s: commands run inside it", d, p.root)
	}
	real, err := filepath.EvalSymlinks(d)
	if err != nil {
		return invalid("Spec.Dir %s: %v", d, err)
	}
	if !within(p.rootSrc, real) {
		return invalid("Spec.Dir %s leads outside the workspace %s (to %s) through a symlink: commands run inside it", d, p.root, real)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return invalid("Spec.Dir %s is not a directory", d)
	}
	p.dir = d
	return nil
}

// setReadOnly takes the paths kept read-only: under Root; those that do
// not exist are covered by an empty read-only directory, whose mount
// point (and any missing parent under Root) is removed after the run.
func (p *plan) setReadOnly(paths []string) error {
	for _, ro := range paths {
		c, err := absClean("Spec.ReadOnly", ro)
		if err != nil {
			return err
		}
		if !within(p.root, c) {
			return invalid("Spec.ReadOnly %s is outside the workspace %s: only paths under it can be kept read-only", c, p.root)
		}
		if _, err := os.Lstat(c); err == nil {
			p.readOnly = append(p.readOnly, c)
			continue
		}
		p.missing = append(p.missing, c)
		for d := c; d != p.root; d = filepath.Dir(d) {
			if _, err := os.Lstat(d); err == nil {
				break
			}
			if !slices.Contains(p.created, d) {
				p.created = append(p.created, d)
			}
		}
	}
	// Deepest first, so that removing a directory follows its children.
	slices.SortStableFunc(p.created, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	return nil
}

// setHidden takes the paths to hide: under Root, symlinks resolved
// (a link to a path outside the workspace hides nothing: the command
// sees nothing there); those that do not exist are skipped.
func (p *plan) setHidden(paths []string) error {
	for _, h := range paths {
		c, err := absClean("Spec.Hidden", h)
		if err != nil {
			return err
		}
		if !within(p.root, c) || c == p.root {
			return invalid("Spec.Hidden %s is not a path inside the workspace %s: only paths under it can be hidden", c, p.root)
		}
		real, err := filepath.EvalSymlinks(c)
		if err != nil || !within(p.rootSrc, real) || real == p.rootSrc {
			continue
		}
		fi, err := os.Stat(real)
		if err != nil {
			continue
		}
		dest := p.root + strings.TrimPrefix(real, p.rootSrc)
		if fi.IsDir() {
			p.hiddenDirs = append(p.hiddenDirs, dest)
		} else {
			p.hiddenFiles = append(p.hiddenFiles, dest)
		}
	}
	return nil
}

// setHome takes lunad's home directory for commands.
func (p *plan) setHome(home, userHome string) error {
	if home == "" {
		return nil
	}
	h, err := absClean("Spec.Home", home)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(h); err != nil || !fi.IsDir() {
		return invalid("Spec.Home %s is not a directory: make it first", h)
	}
	if userHome != "" && within(h, userHome) || h == "/" {
		return invalid("Spec.Home %s holds the user's home %s, which commands must not see: give a directory of lunad's own", h, userHome)
	}
	p.home = h
	return nil
}

// setBinds takes the extra binds: existing paths outside Root that hold
// neither / nor the user's home.
func (p *plan) setBinds(binds []Bind, userHome string) error {
	for _, b := range binds {
		c, err := absClean("Spec.Binds", b.Path)
		if err != nil {
			return err
		}
		if c == "/" || userHome != "" && within(c, userHome) {
			return invalid("Spec.Binds %s holds the user's home %s, which commands must not see: bind the directory they need", c, userHome)
		}
		if within(p.root, c) || within(c, p.root) {
			return invalid("Spec.Binds %s overlaps the workspace %s, which is bound already", c, p.root)
		}
		if _, err := os.Stat(c); err != nil {
			return invalid("Spec.Binds %s: %v", c, err)
		}
		p.binds = append(p.binds, Bind{Path: c, Writable: b.Writable})
	}
	return nil
}

// setLimits takes the timeout and the limits, the defaults for zeros.
func (p *plan) setLimits(s Spec) error {
	l := s.Limits
	if s.Timeout < 0 || s.Grace < 0 || l.CPU < 0 || l.Memory < 0 || l.Processes < 0 || l.FileSize < 0 || l.Output < 0 {
		return invalid("Spec has a negative timeout or limit (timeout %v, grace %v, limits %+v): zero means the default", s.Timeout, s.Grace, l)
	}
	p.timeout, p.grace = cmp.Or(s.Timeout, DefaultTimeout), cmp.Or(s.Grace, DefaultGrace)
	p.limits = Limits{
		CPU:       cmp.Or(l.CPU, DefaultLimits.CPU),
		Memory:    cmp.Or(l.Memory, DefaultLimits.Memory),
		Processes: cmp.Or(l.Processes, DefaultLimits.Processes),
		FileSize:  cmp.Or(l.FileSize, DefaultLimits.FileSize),
		Output:    cmp.Or(l.Output, DefaultLimits.Output),
	}
	return nil
}
