// Package version says which build of lunad is running: the module
// version the binary was built at (go install ...@v1.2.3), else the git
// revision it was built from with "+dirty" when the checkout had
// uncommitted changes, else "dev". The language server's and the MCP
// server's serverInfo and `lunad --version` report it, so a bug report
// names the build.
package version
