package mcp

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/contract.json")

// TestContract pins what clients are promised — every tool's name,
// annotations and input and output schemas, and the resource templates —
// to testdata/contract.json: a change of an argument's name or type fails
// here until the golden file is rewritten (go test ./mcp -run TestContract
// -update) and the change is reviewed as the contract change it is.
func TestContract(t *testing.T) {
	cs, _ := connect(t)
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(map[string]any{"tools": tools.Tools, "resourceTemplates": templates.ResourceTemplates}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "contract.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("the tools or templates differ from %s; if the change is meant, run go test ./mcp -run TestContract -update and review the diff. Got:\n%s", golden, got)
	}
}
