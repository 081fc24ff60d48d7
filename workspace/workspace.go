package workspace

import "github.com/lunad/lunad"

var _ lunad.Workspace = (*Service)(nil)
