package mcp

import (
	"context"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad"
)

// The resource list: every artifact that is not archived, as
// luna://artifacts/{id}. The SDK holds it (and pages resources/list); the
// Server keeps it in step with the workspace, so that creating, archiving
// or renaming an artifact sends notifications/resources/list_changed,
// while an edit does not.

// listing is what a resource list entry shows of an artifact; a change of
// it is a change of the list.
type listing struct{ path, title, typ string }

// syncList makes the SDK's resource list match the workspace's artifacts.
func (s *Server) syncList(ctx context.Context) error {
	arts, err := s.artifacts(ctx)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := make(map[string]bool, len(arts))
	for _, a := range arts {
		if a.Status == lunad.StatusArchived {
			continue
		}
		seen[a.ID] = true
		l := listing{a.Path, a.Title, a.Type}
		if old, ok := s.listed[a.ID]; ok && old == l {
			continue
		}
		s.listed[a.ID] = l
		s.sdk.AddResource(&sdk.Resource{
			URI:         ArtifactURI(a.ID, 0),
			Name:        a.Path,
			Title:       a.Title,
			MIMEType:    MIMEType(a.Type),
			Description: a.Type + " artifact " + a.ID + "; versions at " + ArtifactURI(a.ID, 0) + "/versions/{n}",
		}, s.readResource)
	}
	var gone []string
	for id := range s.listed {
		if !seen[id] {
			gone = append(gone, ArtifactURI(id, 0))
			delete(s.listed, id)
		}
	}
	if len(gone) > 0 {
		s.sdk.RemoveResources(gone...)
	}
	return nil
}

// listedIDs are the artifacts on the resource list.
func (s *Server) listedIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]string, 0, len(s.listed))
	for id := range s.listed {
		ids = append(ids, id)
	}
	return ids
}

// annotateList is a receiving middleware that gives each entry of a
// resources/list page what changes with every edit, read when the page is
// asked for: annotations.lastModified, and the version and commit in
// _meta.
func (s *Server) annotateList(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		page, ok := res.(*sdk.ListResourcesResult)
		if method != "resources/list" || err != nil || !ok {
			return res, err
		}
		byID, err := s.artifacts(ctx)
		if err != nil {
			return nil, err
		}
		annotated := make([]*sdk.Resource, 0, len(page.Resources))
		for _, r := range page.Resources {
			c := *r // the SDK's entry is shared: annotate a copy
			if id, _, ok := parseURI(r.URI); ok {
				if a, ok := byID[id]; ok {
					c.Annotations = &sdk.Annotations{LastModified: lastModified(a)}
					c.Meta = sdk.Meta{"version": a.Version, "commit": a.Commit}
				}
			}
			annotated = append(annotated, &c)
		}
		page.Resources = annotated
		return page, nil
	}
}

func lastModified(a lunad.Artifact) string {
	return a.Modified.UTC().Format(time.RFC3339)
}

// artifactCache holds the workspace's artifacts between two of its events,
// while Follow runs (Follow's events are what invalidate it): paging
// through resources/list then costs one Workspace.List, not one per page.
type artifactCache struct {
	mu        sync.Mutex
	following int    // Follow calls running
	gen       uint64 // bumped by every invalidation
	byID      map[string]lunad.Artifact
}

// artifacts returns the workspace's artifacts by ID (read-only).
func (s *Server) artifacts(ctx context.Context) (map[string]lunad.Artifact, error) {
	c := &s.cache
	c.mu.Lock()
	byID, gen := c.byID, c.gen
	c.mu.Unlock()
	if byID != nil {
		return byID, nil
	}
	arts, err := s.ws.List(ctx)
	if err != nil {
		return nil, err
	}
	byID = make(map[string]lunad.Artifact, len(arts))
	for _, a := range arts {
		byID[a.ID] = a
	}
	c.mu.Lock()
	if c.following > 0 && c.gen == gen { // no event since List began
		c.byID = byID
	}
	c.mu.Unlock()
	return byID, nil
}

// invalidate drops the cache; follow says whether Follow starts (+1),
// stops (-1) or goes on (0).
func (c *artifactCache) invalidate(follow int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.following += follow
	c.gen++
	c.byID = nil
}
