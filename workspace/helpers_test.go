package workspace_test

import (
	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/wstest"
)

type EditRequest = lunad.EditRequest

const src = wstest.Src

var (
	newService = wstest.NewService
	staleSet   = wstest.StaleSet
	mustEdit   = wstest.MustEdit
)
