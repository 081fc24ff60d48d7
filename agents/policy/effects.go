package policy

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/lunad/lunad/internal/lazyregexp"
)

// The files a command deletes, changes the mode of, or writes.

// found records a finding whose reason is already worded.
func (a *analysis) found(n *node, d *Decision) {
	a.builtin = append(a.builtin, finding{rule: d.Rule, reason: d.Reason, node: n})
}

// homeWord matches the ways a shell names a home directory: ~, ~user,
// $HOME, ${HOME}, each alone or followed by a path.
var homeWord = lazyregexp.New(`^(~[A-Za-z0-9_.-]*|\$HOME|\$\{HOME\})(/.*)?$`)

// scratch is where a command may write and delete outside the workspace:
// the sandbox's private /tmp and the devices every program writes to.
func scratch(p string) bool {
	p = filepath.Clean(p)
	switch {
	case within("/tmp", p) && p != "/tmp":
		return true
	case p == "/dev/null" || p == "/dev/stdout" || p == "/dev/stderr" || p == "/dev/tty" || within("/dev/fd", p):
		return true
	}
	return false
}

// globPrefix is the part of a path before its first segment with a
// glob character (the directory a shell's * deletes in), and whether
// there was one.
func globPrefix(p string) (string, bool) {
	i := strings.IndexAny(p, "*?[")
	if i < 0 {
		return p, false
	}
	slash := strings.LastIndexByte(p[:i], '/')
	switch {
	case slash < 0:
		return ".", true
	case slash == 0:
		return "/", true
	}
	return p[:slash], true
}

// rm reads rm, rmdir, unlink and shred.
func (a *analysis) rm(n *node) {
	o := parseOpts(n.argv[1:], "ns", "--iterations", "--size")
	if path.Base(n.argv[0]) != "shred" {
		o = parseOpts(n.argv[1:], "")
	}
	recursive := o.has("-r", "-R", "--recursive")
	what := show(n.argv)
	if o.has("--no-preserve-root") {
		a.add(n, RuleRmRoot, reasonRmRoot, what)
	}
	for _, op := range o.operands {
		switch rule := a.rmRule(n.dir, op, recursive); rule {
		case RuleRmRoot:
			a.add(n, rule, reasonRmRoot, what)
		case RuleRmHome:
			a.add(n, rule, reasonRmHome, what)
		case RuleRmOutside:
			a.add(n, rule, reasonRmOutside, what)
		case RuleRmWorkspace:
			a.add(n, rule, reasonRmWorkspace, what)
		default:
			a.target(n, n.dir, op, strings.HasSuffix(op, "/"))
		}
	}
}

// rmRule is the rule deleting op from dir breaks, or "".
func (a *analysis) rmRule(dir, op string, recursive bool) string {
	home := a.c.space.home
	if filepath.IsAbs(op) && scratch(op) {
		return ""
	}
	if m := homeWord().FindStringSubmatch(op); m != nil {
		rest := strings.TrimRight(m[2], "/")
		if rest == "" || rest == "/*" || rest == "/." || home == "" || m[1] != "~" && m[1][0] == '~' {
			return RuleRmHome
		}
		op = home + m[2]
	}
	if op == "" || strings.ContainsAny(op, "$`") {
		return "" // a variable: the sandbox decides
	}
	prefix, glob := globPrefix(op)
	if dir == "" && !filepath.IsAbs(prefix) {
		return RuleRmOutside
	}
	// rm deletes a symlink, not what it points to, unless a / or a glob
	// after it enters it.
	pl, err := a.c.space.resolve(dir, prefix, glob || strings.HasSuffix(prefix, "/"))
	if err != nil {
		return RuleRmOutside
	}
	switch abs := filepath.Clean(pl.abs); {
	case pl.rel == ".":
		if recursive {
			return RuleRmWorkspace
		}
	case pl.rel != "":
	case abs == "/" || filepath.Dir(abs) == "/":
		return RuleRmRoot
	case home != "" && home != "/" && within(home, abs):
		return RuleRmHome
	default:
		return RuleRmOutside
	}
	return ""
}

var (
	octalMode    = lazyregexp.New(`^[0-7]{1,4}$`)
	symbolicMode = lazyregexp.New(`^[ugoa]*([-+=][rwxXstugo]*)+(,[ugoa]*([-+=][rwxXstugo]*)+)*$`)
	modeClause   = lazyregexp.New(`([ugoa]*)((?:[-+=][rwxXstugo]*)+)`)
	modeOp       = lazyregexp.New(`[-+=][rwxXstugo]*`)
)

// worldWritable reports whether a chmod mode lets every user write.
func worldWritable(mode string) bool {
	if octalMode().MatchString(mode) {
		return (mode[len(mode)-1]-'0')&2 != 0
	}
	for _, m := range modeClause().FindAllStringSubmatch(mode, -1) {
		if !strings.ContainsAny(m[1], "ao") {
			continue
		}
		for _, op := range modeOp().FindAllString(m[2], -1) {
			if op[0] != '-' && strings.ContainsRune(op, 'w') {
				return true
			}
		}
	}
	return false
}

// chmod reads chmod: chmod-777, and the files it changes as writes.
func (a *analysis) chmod(n *node) {
	recursive, ref := false, false
	mode, modeSeen := "", false
	var files []string
	args := n.argv[1:]
	for i := 0; i < len(args); i++ {
		x := args[i]
		switch {
		case x == "--":
			if !modeSeen && !ref && i+1 < len(args) {
				mode, modeSeen = args[i+1], true
				i++
			}
			files = append(files, args[i+1:]...)
			i = len(args)
		case x == "--recursive":
			recursive = true
		case strings.HasPrefix(x, "--reference"):
			ref = true
		case strings.HasPrefix(x, "--"):
		case !modeSeen && !ref && (octalMode().MatchString(x) || symbolicMode().MatchString(x)):
			mode, modeSeen = x, true
		case len(x) > 1 && x[0] == '-':
			recursive = recursive || strings.ContainsRune(x, 'R')
		case !modeSeen && !ref:
			mode, modeSeen = x, true
		default:
			files = append(files, x)
		}
	}
	if recursive && worldWritable(mode) {
		a.add(n, RuleChmod777, reasonChmod777, show(n.argv))
	}
	for _, f := range files {
		a.target(n, n.dir, f, true)
	}
}

// writes records the files the usual file tools write: cp, mv, install
// and ln (the destination, and mv's sources), tee, touch, truncate,
// mkdir, chown and chgrp, dd's of=, sed -i.
func (a *analysis) writes(n *node) {
	args := n.argv[1:]
	var targets []string
	switch prog := path.Base(n.argv[0]); prog {
	case "cp", "mv", "install", "ln":
		o := parseOpts(args, "Stmog", "--target-directory", "--suffix", "--mode", "--owner", "--group")
		switch t := o.values["-t"] + o.values["--target-directory"]; {
		case t != "":
			targets = []string{t}
		case prog == "install" && o.has("-d", "--directory"):
			targets = o.operands
		case len(o.operands) >= 2:
			targets = o.operands[len(o.operands)-1:]
		}
		if prog == "mv" {
			targets = append(targets, o.operands...)
		}
	case "tee":
		targets = parseOpts(args, "").operands
	case "touch":
		targets = parseOpts(args, "rtd", "--reference", "--date").operands
	case "truncate":
		targets = parseOpts(args, "sr", "--size", "--reference").operands
	case "mkdir":
		targets = parseOpts(args, "m", "--mode").operands
	case "chown", "chgrp":
		if o := parseOpts(args, ""); len(o.operands) > 0 {
			targets = o.operands[1:]
			if o.has("--reference") {
				targets = o.operands
			}
		}
	case "dd":
		for _, x := range args {
			if of, ok := strings.CutPrefix(x, "of="); ok {
				targets = append(targets, of)
			}
		}
	case "sed":
		o := parseOpts(args, "efl", "--expression", "--file", "--line-length")
		if o.has("-i", "--in-place") && len(o.operands) > 0 {
			targets = o.operands
			if !o.has("-e", "--expression", "-f", "--file") {
				targets = targets[1:]
			}
		}
	}
	for _, t := range targets {
		a.target(n, n.dir, t, true)
	}
}

// target records a file node n writes, deciding the path rules on it;
// followLast: it writes through a symlink (rm deletes the symlink).
// Absolute paths in /tmp (the sandbox's own) and /dev/null are scratch.
func (a *analysis) target(n *node, dir, t string, followLast bool) {
	if filepath.IsAbs(t) && scratch(t) {
		return
	}
	if m := homeWord().FindStringSubmatch(t); m != nil {
		if m[1] != "~" && m[1][0] == '~' || a.c.space.home == "" {
			a.found(n, deny(RuleOutside, fmt.Sprintf(reasonOutside, quoteWord(t))))
			return
		}
		t = a.c.space.home + m[2]
	}
	if t == "" || strings.ContainsAny(t, "$`") {
		return
	}
	if dir == "" && !filepath.IsAbs(t) {
		return
	}
	t, _ = globPrefix(t)
	pl, d := a.c.checkPlace(dir, t, true, followLast)
	if d != nil {
		a.found(n, d)
		return
	}
	n.writes = appendRel(n.writes, pl)
	if isCIConfig(pl.rel) || isCIConfig(pl.lexRel) {
		a.add(n, RuleCIConfig, reasonCIConfig, quoteWord(t))
	}
}
