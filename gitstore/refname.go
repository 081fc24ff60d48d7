package gitstore

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/lunad/lunad"
)

// Limits lunad adds to git's rules: a component is a file or directory name
// under .git/refs/heads, and file systems refuse names longer than 255 bytes.
const (
	maxBranchComponent = 255
	maxBranchName      = 1000
)

// checkBranch accepts exactly the names `git check-ref-format --branch`
// accepts (git's check_refname_format on refs/heads/NAME, plus no leading
// '-' and not HEAD), and says which rule a refused name breaks. lunad adds
// only what the file system and its JSON need: components of at most 255
// bytes, names of at most 1,000, valid UTF-8.
func checkBranch(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w: branch name %q: %s (git check-ref-format --branch rules)", lunad.ErrInvalid, name, why)
	}
	switch {
	case name == "":
		return fmt.Errorf("%w: a branch name is required", lunad.ErrInvalid)
	case len(name) > maxBranchName:
		return fmt.Errorf("%w: branch name is %d bytes; lunad's limit is %d", lunad.ErrInvalid, len(name), maxBranchName)
	case !utf8.ValidString(name):
		return fmt.Errorf("%w: branch name %q is not valid UTF-8", lunad.ErrInvalid, name)
	case name == "HEAD":
		return bad("HEAD names the current commit, not a branch")
	case name[0] == '-':
		return bad("it may not begin with '-'")
	case strings.HasSuffix(name, "/"):
		return bad("it may not end with '/'")
	case strings.HasSuffix(name, "."):
		return bad("it may not end with '.'")
	case strings.Contains(name, ".."):
		return bad("it may not contain '..'")
	case strings.Contains(name, "@{"):
		return bad("it may not contain '@{'")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return bad("it may not contain control characters")
		}
		if strings.ContainsRune(" ~^:?*[\\", r) {
			return bad(fmt.Sprintf("it may not contain %q", r))
		}
	}
	for _, c := range strings.Split(name, "/") {
		switch {
		case c == "":
			return bad("it may not begin with '/' or contain '//'")
		case c[0] == '.':
			return bad(fmt.Sprintf("component %q begins with '.'", c))
		case strings.HasSuffix(c, ".lock"):
			return bad(fmt.Sprintf("component %q ends with '.lock' (git's lock files)", c))
		case len(c) > maxBranchComponent:
			return fmt.Errorf("%w: branch name component is %d bytes; file systems allow %d", lunad.ErrInvalid, len(c), maxBranchComponent)
		}
	}
	return nil
}

// checkBranchFree refuses a branch whose name would nest inside an existing
// branch or contain one (ok/branch/sub next to ok/branch): git stores
// branches as files under .git/refs/heads, so one name cannot be both a
// file and a directory.
func checkBranchFree(name string, existing map[string]struct{}) error {
	for b := range existing {
		switch {
		case strings.HasPrefix(name, b+"/"):
			return fmt.Errorf("%w: branch %s exists, so %s cannot be made under it (git keeps a branch as a file); choose another name", lunad.ErrExists, b, name)
		case strings.HasPrefix(b, name+"/"):
			return fmt.Errorf("%w: branch %s exists, so %s cannot be made above it (git keeps %s's name as a directory); choose another name", lunad.ErrExists, b, name, name)
		}
	}
	return nil
}
