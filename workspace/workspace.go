package workspace

import "github.com/lunad/lunad"

// The Workspace vocabulary lives in the root package (lunad.Workspace and
// its types), so that adapters and agents depend on it without linking the
// service; these names remain for the service's own code and tests.
type (
	Event       = lunad.Event
	Point       = lunad.Point
	SymbolHit   = lunad.SymbolHit
	RefReport   = lunad.RefReport
	EditRequest = lunad.EditRequest
	EditResult  = lunad.EditResult
)

var _ lunad.Workspace = (*Service)(nil)
