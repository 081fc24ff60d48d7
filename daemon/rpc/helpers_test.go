package rpc

import (
	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/workspace"
)

type (
	Service     = workspace.Service
	Workspace   = lunad.Workspace
	Event       = lunad.Event
	EditRequest = lunad.EditRequest
	EditResult  = lunad.EditResult
)

const src = wstest.Src

var (
	newService = wstest.NewService
	run        = wstest.Run
	create     = wstest.Create
	read       = wstest.Read
)
