package main

import (
	"os"

	"github.com/lunad/lunad/sandbox/shim"
)

func main() {
	os.Exit(shim.Run(os.Args[1:]))
}
