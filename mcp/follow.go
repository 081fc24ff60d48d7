package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad/daemon"
)

// Follow sends notifications/resources/updated for luna://artifacts/{id}
// to the clients subscribed to it whenever the artifact changes for any
// reason — a write through this server or another client, the CLI, a
// file saved by hand, a git checkout (the Workspace's events) — until ctx
// is done. After a branch switch or dropped events every artifact may
// have changed: each is announced.
func Follow(ctx context.Context, s *sdk.Server, ws daemon.Workspace) error {
	events, err := ws.Subscribe(ctx)
	if err != nil {
		return err
	}
	for ev := range events {
		ids := ev.IDs
		if len(ids) == 0 { // "branch" or "resync"
			arts, err := ws.List(ctx)
			if err != nil {
				return err
			}
			for _, a := range arts {
				ids = append(ids, a.ID)
			}
		}
		for _, id := range ids {
			if err := s.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: ArtifactURI(id, 0)}); err != nil && ctx.Err() == nil {
				return err
			}
		}
	}
	return ctx.Err()
}
