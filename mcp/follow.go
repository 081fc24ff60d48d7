package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Follow keeps clients current with the workspace until ctx is done: it
// sends notifications/resources/updated for luna://artifacts/{id} to the
// clients subscribed to it whenever the artifact changes for any reason —
// a write through this server or another client, the CLI, a file saved by
// hand, a git checkout (the Workspace's events) — and brings the resource
// list up to date (notifications/resources/list_changed) when artifacts
// are created, archived or moved. After a branch switch or dropped events
// every artifact may have changed: each is announced.
func (s *Server) Follow(ctx context.Context) error {
	events, err := s.ws.Subscribe(ctx)
	if err != nil {
		return err
	}
	s.cache.invalidate(+1)
	defer s.cache.invalidate(-1)
	// Catch what changed between New and Subscribe.
	if err := s.syncList(ctx); err != nil {
		return err
	}
	for ev := range events {
		s.cache.invalidate(0)
		if ev.Kind != "changed" {
			if err := s.syncList(ctx); err != nil {
				return err
			}
		}
		ids := ev.IDs
		if len(ids) == 0 { // "branch" or "resync"
			ids = s.listedIDs()
		}
		for _, id := range ids {
			if err := s.sdk.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: ArtifactURI(id, 0)}); err != nil && ctx.Err() == nil {
				return err
			}
		}
	}
	return ctx.Err()
}
