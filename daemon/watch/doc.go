// Package watch follows a workspace for the changes made outside lunad —
// files saved by a person, git commit, checkout, reset or a branch switch
// run by hand — and hands them to the workspace service: it records saves
// as human versions, re-indexes after HEAD moved, keeps git's index in step
// and publishes events. It works over Service, the small interface of
// what it needs from the service (workspace.Service has it), with fsnotify.
package watch
