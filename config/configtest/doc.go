// Package configtest makes configurations for tests: a workspace
// directory with a given .luna/config.toml, and an environment of given
// variables.
package configtest
