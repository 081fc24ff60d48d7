package daemon

import "github.com/lunad/lunad/config/configtest"

// agentsRoot is a directory whose .luna/config.toml is toml; envOf a
// getenv over pairs of names and values.
var agentsRoot, envOf = configtest.Root, configtest.Env
