package watch

import (
	"testing"

	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/workspace"
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

func save(t *testing.T, s *workspace.Service, name, content string) {
	t.Helper()
	wstest.Save(t, s.Root(), name, content)
}
