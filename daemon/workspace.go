package daemon

import "github.com/lunad/lunad"

// The Workspace vocabulary lives in the root package (lunad.Workspace and
// its types), so that adapters and agents depend on it without linking the
// daemon; these names remain for the daemon's own code and tests.
type (
	Workspace   = lunad.Workspace
	Event       = lunad.Event
	Point       = lunad.Point
	SymbolHit   = lunad.SymbolHit
	RefReport   = lunad.RefReport
	EditRequest = lunad.EditRequest
	EditResult  = lunad.EditResult
)

var _ Workspace = (*Service)(nil)
