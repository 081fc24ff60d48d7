package watch

import (
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/workspace"
)

type (
	Service     = workspace.Service
	Event       = lunad.Event
	EditRequest = lunad.EditRequest
)

const src = wstest.Src

var (
	newService = wstest.NewService
	staleSet   = wstest.StaleSet
	mustEdit   = wstest.MustEdit
	gitRun     = wstest.GitRun
	gitCmd     = wstest.GitCmd
	run        = wstest.Run
	create     = wstest.Create
	read       = wstest.Read
)

func save(t *testing.T, s *Service, name, content string) {
	t.Helper()
	wstest.Save(t, s.Root(), name, content)
}
