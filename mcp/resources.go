package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad"
)

const uriPrefix = "luna://artifacts/"

func (s *Server) addResources() {
	s.sdk.AddResourceTemplate(&sdk.ResourceTemplate{
		Name:        "artifact",
		Title:       "Artifact",
		Description: "An artifact's current content, by id; the MIME type follows the artifact's type.",
		URITemplate: uriPrefix + "{id}",
	}, s.readResource)
	s.sdk.AddResourceTemplate(&sdk.ResourceTemplate{
		Name:        "artifact-version",
		Title:       "Artifact version",
		Description: "An artifact's content at version n (see the artifact_history tool).",
		URITemplate: uriPrefix + "{id}/versions/{n}",
	}, s.readResource)
}

// readResource serves both templates: luna://artifacts/{id} and
// luna://artifacts/{id}/versions/{n}. The content's _meta says which
// version it is, its commit and (for the current one) when it changed.
func (s *Server) readResource(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	id, at, ok := parseURI(uri)
	if !ok {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	content, a, err := s.ws.Read(ctx, id, at)
	if errors.Is(err, lunad.ErrNotFound) {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, err
	}
	meta := sdk.Meta{"id": a.ID, "path": a.Path, "version": a.Version, "commit": a.Commit, "lastModified": lastModified(a)}
	if at != "" {
		meta = sdk.Meta{"id": a.ID, "path": a.Path, "version": atoi(at)}
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{
		URI: uri, MIMEType: MIMEType(a.Type), Text: string(content), Meta: meta,
	}}}, nil
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// parseURI splits an artifact URI into the artifact's ID and the version
// to read ("" for the current one).
func parseURI(uri string) (id, at string, ok bool) {
	rest, found := strings.CutPrefix(uri, uriPrefix)
	if !found {
		return "", "", false
	}
	rest, n, versioned := strings.Cut(rest, "/versions/")
	id, err := url.PathUnescape(rest)
	if err != nil || id == "" || strings.Contains(rest, "/") {
		return "", "", false
	}
	if versioned {
		v, err := strconv.Atoi(n)
		if err != nil || v < 1 {
			return "", "", false
		}
		at = strconv.Itoa(v)
	}
	return id, at, true
}

// ArtifactURI is the resource URI of an artifact, or of one of its versions
// when version > 0.
func ArtifactURI(id string, version int) string {
	u := uriPrefix + url.PathEscape(id)
	if version > 0 {
		u += fmt.Sprintf("/versions/%d", version)
	}
	return u
}

// MIMEType is the MIME type of an artifact's content given its lunad type:
// text/* as it is, code/<lang> as text/x-<lang>, config/json and
// config/yaml as application/json and application/yaml, else text/plain.
func MIMEType(typ string) string {
	kind, name, _ := strings.Cut(typ, "/")
	switch {
	case name == "":
		return "text/plain"
	case kind == "text":
		return typ
	case kind == "code":
		return "text/x-" + name
	case typ == "config/json":
		return "application/json"
	case typ == "config/yaml":
		return "application/yaml"
	case typ == "config/toml":
		return "application/toml"
	}
	return "text/plain"
}
