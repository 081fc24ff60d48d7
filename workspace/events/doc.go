// Package events is the workspace's event hub: it fans lunad.Events out to
// subscribers without ever blocking the publisher. The workspace service
// publishes its own writes and the watcher the changes made outside it;
// the daemon forwards them to its clients.
//
// A subscriber too slow to keep up gets a "resync" event instead of the events
// it missed.
package events
