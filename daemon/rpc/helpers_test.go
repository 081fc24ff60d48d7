package rpc

import (
	"github.com/lunad/lunad/internal/wstest"
)

const src = wstest.Src

var (
	newService = wstest.NewService
	run        = wstest.Run
	create     = wstest.Create
	read       = wstest.Read
)
