package mcp

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func ptr[T any](v T) *T { return &v }

// Annotations. Writes are versioned commits that undo_edit reverts, so
// none is destructive.
var (
	readOnly = &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)}
	write    = func(idempotent bool) *sdk.ToolAnnotations {
		return &sdk.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: idempotent, OpenWorldHint: ptr(false)}
	}
)

func (s *Server) addTools() {
	addTool(s, &sdk.Tool{
		Name:        "create_artifact",
		Title:       "Create artifact",
		Description: "Create an artifact (a file of the workspace) with its initial content, as a commit. Returns its id, used by every other tool.",
		Annotations: write(false),
	}, s.create)
	addTool(s, &sdk.Tool{
		Name:        "read_artifact",
		Title:       "Read artifact",
		Description: "Read an artifact's content, current or at a version, whole or a line range. Copy SEARCH text for edit_artifact from here.",
		Annotations: readOnly,
	}, s.read)
	addTool(s, &sdk.Tool{
		Name:        "list_artifacts",
		Title:       "List artifacts",
		Description: "List the workspace's artifacts: id, path, type, title, status, current version.",
		Annotations: readOnly,
	}, s.list)
	addTool(s, &sdk.Tool{
		Name:  "edit_artifact",
		Title: "Edit artifact",
		Description: "Edit an artifact with SEARCH/REPLACE changes, applied together as one commit. Each search must be whole lines copied from the artifact and match one place; " +
			"small whitespace or indentation slips are tolerated and reported in tiers. On failure nothing is written and the error says what to correct.",
		Annotations: write(false),
	}, s.edit)
	addTool(s, &sdk.Tool{
		Name:        "rewrite_artifact",
		Title:       "Rewrite artifact",
		Description: "Replace an artifact's whole content, as one commit. Prefer edit_artifact for changes to part of it; pass base_version to refuse the rewrite if someone changed the artifact since you read it.",
		Annotations: write(true),
	}, s.rewrite)
	addTool(s, &sdk.Tool{
		Name:        "undo_edit",
		Title:       "Undo edit",
		Description: "Undo the artifact's latest change not yet undone, as a new commit (history keeps both).",
		Annotations: write(false),
	}, s.undo)
	addTool(s, &sdk.Tool{
		Name:        "restore_version",
		Title:       "Restore version",
		Description: "Make an artifact's content that of an earlier version, as a new commit.",
		Annotations: write(true),
	}, s.restore)
	addTool(s, &sdk.Tool{
		Name:        "artifact_history",
		Title:       "Artifact history",
		Description: "List an artifact's versions, oldest first: version, commit, operation, agent, message, time.",
		Annotations: readOnly,
	}, s.history)
	addTool(s, &sdk.Tool{
		Name:        "diff_versions",
		Title:       "Diff versions",
		Description: "A unified diff of an artifact between two versions: by default the change that made the current version.",
		Annotations: readOnly,
	}, s.diff)
	addTool(s, &sdk.Tool{
		Name:        "link_artifacts",
		Title:       "Link artifacts",
		Description: "Record that an artifact depends on another (an explicit reference, as a commit): when the target changes, the link is reported by list_stale.",
		Annotations: write(false),
	}, s.link)
	addTool(s, &sdk.Tool{
		Name:        "find_references",
		Title:       "Find references",
		Description: "Resolve an artifact's references: what it refers to (outgoing) and what refers to it (incoming), each with its state (ok, stale, broken, ambiguous, or unverified: a link only a site generator resolves).",
		Annotations: readOnly,
	}, s.refs)
	addTool(s, &sdk.Tool{
		Name:        "list_stale",
		Title:       "List stale references",
		Description: "List references in the workspace whose target changed since the referring artifact was last edited or acknowledged: what to review.",
		Annotations: readOnly,
	}, s.stale)
	addTool(s, &sdk.Tool{
		Name:        "acknowledge",
		Title:       "Acknowledge references",
		Description: "Record that an artifact is still right about what it refers to (all its references, or those to one symbol), so they are no longer stale.",
		Annotations: write(false),
	}, s.ack)
	s.addRunTools()
	s.addAskTool()
	s.addGoalTool()
	s.addSettleTools()
}

// addTool adds a typed tool (the SDK derives and enforces its schemas) and
// remembers the arguments it takes, which argument errors repeat. Its
// input schema is made strict (strictSchema).
func addTool[In, Out any](s *Server, t *sdk.Tool, h sdk.ToolHandlerFor[In, Out]) {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", t.Name, err))
	}
	strictSchema(in)
	t.InputSchema = in
	sdk.AddTool(s.sdk, t, h)
	s.tools[t.Name] = signature(reflect.TypeFor[In]())
	s.optional[t.Name] = optionalArgs(in)
}

// strictSchema makes an inferred input schema one that OpenAI's strict
// mode and Anthropic's strict tool use take: every object lists its
// properties (an empty map for a tool without arguments), all of them
// required, and no others (additionalProperties false); an optional
// argument (omitempty) is required but nullable ("type": ["integer",
// "null"]), null meaning the same as leaving it out. A Go slice's inferred
// schema also allows null; a required one is made a plain array.
func strictSchema(s *jsonschema.Schema) {
	if len(s.Types) == 2 && slices.Contains(s.Types, "null") {
		s.Type, s.Types = s.Types[slices.Index(s.Types, "null")^1], nil
	}
	if s.Items != nil {
		strictSchema(s.Items)
	}
	if s.Type != "object" {
		return
	}
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	names := s.PropertyOrder
	if len(names) != len(s.Properties) {
		names = names[:0:0]
		for name := range s.Properties {
			names = append(names, name)
		}
		slices.Sort(names)
	}
	for _, name := range names {
		p := s.Properties[name]
		strictSchema(p)
		if !slices.Contains(s.Required, name) && p.Type != "" {
			p.Type, p.Types = "", []string{p.Type, "null"}
		}
	}
	s.Required = slices.Clone(names)
}

// signature describes a tool's input struct for a model: "id (string,
// required), version (integer)".
func signature(t reflect.Type) string {
	var args []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		arg := name + " (" + kind(f.Type)
		if !strings.Contains(opts, "omitempty") {
			arg += ", required"
		}
		args = append(args, arg+")")
	}
	if len(args) == 0 {
		return "no arguments"
	}
	return strings.Join(args, ", ")
}

func kind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int64:
		return "integer"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Struct {
			return fmt.Sprintf("array of {%s}", signature(t.Elem()))
		}
		return "array of " + kind(t.Elem())
	}
	return "object"
}
