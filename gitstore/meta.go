package gitstore

import (
	"encoding/json"
	"fmt"

	"github.com/lunad/lunad"
)

// Metadata layout, versioned with the repository:
//
//	.luna/workspace.json              format marker
//	.luna/artifacts/<id[:2]>/<id>.json one small file per artifact
//
// One file per artifact means edits to different artifacts on two branches
// never conflict, and no manifest is rewritten on each edit: a content edit
// touches no metadata at all. Versions and times are not stored here; they
// come from history.
const (
	lunaDir       = ".luna"
	workspaceFile = ".luna/workspace.json"
	artifactsDir  = ".luna/artifacts"
)

const workspaceJSON = "{\n  \"format\": 1\n}\n"

// meta is what an artifact's metadata file holds.
type meta struct {
	ID     string       `json:"id"`
	Path   string       `json:"path"`
	Type   string       `json:"type"`
	Title  string       `json:"title"`
	Status lunad.Status `json:"status"`
	Links  []lunad.Link `json:"links,omitempty"`
}

func metaPath(id string) string {
	return artifactsDir + "/" + id[:2] + "/" + id + ".json"
}

func (m meta) encode() []byte {
	b, _ := json.MarshalIndent(m, "", "  ")
	return append(b, '\n')
}

func decodeMeta(b []byte) (meta, error) {
	var m meta
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("metadata: %w", err)
	}
	return m, nil
}

func (m meta) artifact() lunad.Artifact {
	return lunad.Artifact{ID: m.ID, Path: m.Path, Type: m.Type, Title: m.Title, Status: m.Status, Links: m.Links}
}
