package mcpsource

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/skillsync/skillsync/banner"
	"github.com/skillsync/skillsync/desired/registry"
	yaml "go.yaml.in/yaml/v3"
)

func yes() *bool { t := true; return &t }

// testTools are tools with annotations present, absent and contradictory, and
// names that cannot name a capability.
var testTools = []*mcp.Tool{
	{Name: "search", Title: "Search issues", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string"}}, "required": []any{"query"}}},
	{Name: "create_issue", Description: "Create an issue.", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"title": map[string]any{"type": "string"}}, "required": []any{"title"}}},
	{Name: "delete_repo", Annotations: &mcp.ToolAnnotations{DestructiveHint: yes(), Title: "Delete a repository"}, InputSchema: map[string]any{"type": "object"}},
	{Name: "odd", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: yes()}, InputSchema: map[string]any{"type": "object"}},
	{Name: "bad__name", InputSchema: map[string]any{"type": "object"}},
}

// listed lists the tools of an in-process server built with the SDK.
func listed(t *testing.T, tools []*mcp.Tool) []*mcp.Tool {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	for _, tool := range tools {
		server.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}
	serverSide, clientSide := mcp.NewInMemoryTransports()
	ctx := context.Background()
	session, err := server.Connect(ctx, serverSide, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	got, err := List(ctx, registry.MCPSource{Name: "test"}, clientSide)
	if err != nil {
		t.Fatal(err)
	}
	return got.Tools
}

func TestSnapshot(t *testing.T) {
	tools := listed(t, testTools)
	src := registry.MCPSource{Name: "github", Exclude: []string{"delete_*"},
		Skills: []registry.MCPSkill{{Tool: "create_issue", Alias: "issue", Argument: "title"}, {Tool: "gone", Alias: "gone", Argument: "x"}}}
	r, err := Snapshot(src, Listing{Tools: tools}, "registry/mcp-github.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Tools, []string{"create_issue", "odd", "search"}) {
		t.Errorf("recorded %q", r.Tools)
	}
	if len(r.Skipped) != 2 || !strings.HasPrefix(r.Skipped[0], "bad__name:") || !strings.HasPrefix(r.Skipped[1], "gone:") {
		t.Errorf("skipped %q", r.Skipped)
	}
	mark, unmarked, err := banner.Parse(r.Snapshot)
	if err != nil || mark.Owner != "mcp/github" || mark.Path != "registry/mcp-github.yaml" || !banner.Verify(mark, unmarked) {
		t.Fatalf("banner %+v %v", mark, err)
	}
	effects := map[string]string{}
	dec := yaml.NewDecoder(strings.NewReader(string(r.Snapshot)))
	for {
		var doc struct {
			Metadata struct{ Name string }
			Spec     struct {
				Title  string
				Effect string
				Skill  *struct{ Alias, Argument string }
			}
		}
		if err := dec.Decode(&doc); err != nil {
			break
		}
		effects[doc.Metadata.Name] = doc.Spec.Effect
		if doc.Metadata.Name == "github.create_issue" && (doc.Spec.Skill == nil || doc.Spec.Skill.Alias != "issue") {
			t.Errorf("create_issue has no skill: %+v", doc.Spec)
		}
	}
	want := map[string]string{"github.search": "read", "github.create_issue": "write", "github.odd": "destructive"}
	for id, effect := range want {
		if effects[id] != effect {
			t.Errorf("%s: effect %q, want %q (all: %v)", id, effects[id], effect, effects)
		}
	}
	if !strings.Contains(string(r.Snapshot), "effect: write # no annotations") {
		t.Errorf("the effect does not say where it came from:\n%s", r.Snapshot)
	}
}

func TestEffectOf(t *testing.T) {
	no := false
	for _, c := range []struct {
		a    *mcp.ToolAnnotations
		want string
	}{
		{nil, "write"},
		{&mcp.ToolAnnotations{}, "write"},
		{&mcp.ToolAnnotations{ReadOnlyHint: true}, "read"},
		{&mcp.ToolAnnotations{DestructiveHint: &no}, "write"},
		{&mcp.ToolAnnotations{DestructiveHint: yes()}, "destructive"},
		{&mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: yes()}, "destructive"},
	} {
		if got, _ := EffectOf(c.a); got != c.want {
			t.Errorf("EffectOf(%+v) = %s, want %s", c.a, got, c.want)
		}
	}
}

func TestServerOf(t *testing.T) {
	config, err := ParseConfig([]byte(`{"mcpServers": {"github": {"command": "gh-mcp", "args": ["stdio"]}, "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}}}`))
	if err != nil || !slices.Equal(config.Names(), []string{"github", "remote"}) {
		t.Fatalf("config %v, %v", config, err)
	}
	s, err := ServerOf(registry.MCPSource{Name: "github"}, config)
	if err != nil || s.Command != "gh-mcp" || !slices.Equal(s.Args, []string{"stdio"}) {
		t.Errorf("github: %+v %v", s, err)
	}
	if _, err := ServerOf(registry.MCPSource{Name: "missing"}, config); err == nil || !strings.Contains(err.Error(), "not in .mcp.json") {
		t.Errorf("missing: %v", err)
	}
	inline, err := ServerOf(registry.MCPSource{Name: "x", URL: "https://a"}, nil)
	if err != nil || inline.URL != "https://a" {
		t.Errorf("inline: %+v %v", inline, err)
	}
	if got := expand("Bearer ${TOKEN}", func(string) string { return "s3cret" }); got != "Bearer s3cret" {
		t.Errorf("expand: %q", got)
	}
}

func TestSnapshotRefusesATwiceListedTool(t *testing.T) {
	tool := &mcp.Tool{Name: "same", InputSchema: map[string]any{"type": "object"}}
	if _, err := Snapshot(registry.MCPSource{Name: "s"}, Listing{Tools: []*mcp.Tool{tool, tool}}, "registry/mcp-s.yaml"); err == nil || !strings.Contains(err.Error(), `"same" twice`) {
		t.Errorf("err %v", err)
	}
}
