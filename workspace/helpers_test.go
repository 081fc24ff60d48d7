package workspace_test

import (
	"github.com/lunad/lunad/internal/wstest"
)

const src = wstest.Src

var (
	newService = wstest.NewService
	staleSet   = wstest.StaleSet
	mustEdit   = wstest.MustEdit
)
