package mcp

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	yaml "go.yaml.in/yaml/v3"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/workspacefs"
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
	got, err := List(ctx, registry.MCPSource{Name: "test"}, Over(clientSide))
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
	// It records every tool the server lists; the exclude pattern is the
	// registry's to apply.
	if !slices.Equal(r.Tools, []string{"create_issue", "delete_repo", "odd", "search"}) {
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
				Skill  any
			}
		}
		if err := dec.Decode(&doc); err != nil {
			break
		}
		effects[doc.Metadata.Name] = doc.Spec.Effect
		if doc.Spec.Skill != nil {
			t.Errorf("%s records a skill, which is skillsync.yaml's to say: %+v", doc.Metadata.Name, doc.Spec)
		}
	}
	want := map[string]string{"github.search": "read", "github.create_issue": "write", "github.odd": "destructive", "github.delete_repo": "destructive"}
	for id, effect := range want {
		if effects[id] != effect {
			t.Errorf("%s: effect %q, want %q (all: %v)", id, effects[id], effect, effects)
		}
	}
	if !strings.Contains(string(r.Snapshot), "effect: write # no annotations") {
		t.Errorf("the effect does not say where it came from:\n%s", r.Snapshot)
	}
	if got := skills(t, src, r.Snapshot); !maps.Equal(got, map[string]string{"create_issue": "issue title", "odd": "-", "search": "-"}) {
		t.Errorf("loaded with the source's selectors: %v", got)
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
	config, err := ParseConfig(".claude.json", []byte(`{"mcpServers": {"github": {"command": "gh-mcp", "args": ["stdio"]}, "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}}}`))
	if err != nil || !slices.Equal(config.Names(), []string{"github", "remote"}) {
		t.Fatalf("config %v, %v", config, err)
	}
	s, err := ServerOf(nil, registry.MCPSource{Name: "github"}, config)
	if err != nil || s.Command != "gh-mcp" || !slices.Equal(s.Args, []string{"stdio"}) {
		t.Errorf("github: %+v %v", s, err)
	}
	if _, err := ServerOf(nil, registry.MCPSource{Name: "missing"}, config); err == nil || !strings.Contains(err.Error(), "not in .claude.json") {
		t.Errorf("missing: %v", err)
	}
	if _, err := ServerOf(nil, registry.MCPSource{Name: "github"}, Config{File: ".mcp.json"}); err == nil || !strings.Contains(err.Error(), "no .mcp.json here") {
		t.Errorf("without a configuration: %v", err)
	}
	if got := s.at("env", "TOKEN"); got != ".claude.json (mcpServers.github.env.TOKEN)" {
		t.Errorf("where: %q", got)
	}
	inline, err := ServerOf(nil, registry.MCPSource{Name: "x", URL: "https://a"}, Config{})
	if err != nil || inline.URL != "https://a" {
		t.Errorf("inline: %+v %v", inline, err)
	}
	var found secrets
	if got, err := inline.expand("Bearer ${TOKEN}", func(string) (string, bool) { return "s3cret-token", true }, &found, "headers", "Authorization"); err != nil || got != "Bearer s3cret-token" {
		t.Errorf("expand: %q %v", got, err)
	}
}

func TestSnapshotRefusesATwiceListedTool(t *testing.T) {
	tool := &mcp.Tool{Name: "same", InputSchema: map[string]any{"type": "object"}}
	if _, err := Snapshot(registry.MCPSource{Name: "s"}, Listing{Tools: []*mcp.Tool{tool, tool}}, "registry/mcp-s.yaml"); err == nil || !strings.Contains(err.Error(), `"same" twice`) {
		t.Errorf("err %v", err)
	}
}

func object(properties map[string]any, required ...any) map[string]any {
	o := map[string]any{"type": "object", "properties": properties}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

var str = map[string]any{"type": "string"}

// loadWith is the registry of a workspace whose skillsync.yaml declares src and
// whose registry is the snapshot alone, as loading it gives it, problems and all.
func loadWith(t *testing.T, src registry.MCPSource, snapshot []byte) *registry.Registry {
	t.Helper()
	root := t.TempDir()
	src.Snapshot = "registry/mcp-" + src.Name + ".yaml"
	source, err := json.Marshal(src)
	if err != nil {
		t.Fatal(err)
	}
	config := `{"apiVersion": "skillsync/v1", "kind": "Workspace", "spec": {"registry": ["registry/*.yaml"], "mcpSources": [` + string(source) + `]}}`
	for rel, data := range map[string][]byte{registry.ConfigName: []byte(config), src.Snapshot: snapshot} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, rel), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reg, err := registry.Load(workspacefs.OS{}, root)
	if reg == nil {
		t.Fatal(err)
	}
	return reg
}

// skills is the skill block each capability of a snapshot has, by tool, once
// the registry loads it with src: "-" for a capability with none; a tool src
// leaves out is not there.
func skills(t *testing.T, src registry.MCPSource, snapshot []byte) map[string]string {
	t.Helper()
	reg := loadWith(t, src, snapshot)
	out := map[string]string{}
	for _, c := range reg.Capabilities {
		if sk := c.Spec.Skill; sk != nil {
			out[c.Spec.MCP.Tool] = sk.Alias + " " + sk.Argument
		} else {
			out[c.Spec.MCP.Tool] = "-"
		}
	}
	return out
}

// A selector that gives no alias takes the tool's name, and one that gives no
// argument the one string the input requires. A tool a pattern takes that does
// not fit the convention stays a capability, its skill left out with why; a tool
// named by a selector of its own gets what can be derived, for the load to judge.
func TestSnapshotDerivesSkillsByConvention(t *testing.T) {
	tools := listed(t, []*mcp.Tool{
		{Name: "open_ticket", InputSchema: object(map[string]any{"summary": str, "labels": map[string]any{"type": "array"}}, "summary")},
		{Name: "close_ticket", InputSchema: object(map[string]any{"id": str, "reason": str}, "id", "reason")},
		{Name: "find_tickets", InputSchema: object(map[string]any{"query": str})},
		{Name: "edit_ticket", InputSchema: object(map[string]any{"id": str, "body": str}, "id", "body")},
		{Name: "list_tickets", InputSchema: object(map[string]any{"team": str})},
		{Name: "rank_tickets", InputSchema: object(map[string]any{"id": str, "note": str}, "id")},
		{Name: "status", InputSchema: object(map[string]any{"verbose": map[string]any{"type": "boolean"}})},
	})
	src := registry.MCPSource{Name: "tracker", Skills: []registry.MCPSkill{
		{Tool: "*_ticket"},
		{Tool: "edit_ticket", Alias: "edit"},
		{Tool: "find_tickets", Argument: "query"},
		{Tool: "list_*", Argument: "team"},
		{Tool: "rank_*", Argument: "note"},
		{Tool: "status"},
	}}
	r, err := Snapshot(src, Listing{Tools: tools}, "registry/mcp-tracker.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"open_ticket":  "open-ticket summary",
		"close_ticket": "-",
		"find_tickets": "find-tickets query",
		"edit_ticket":  "edit ", // named: the load says the argument is missing, at the selector
		"list_tickets": "list-tickets team",
		"rank_tickets": "-",
		"status":       "status ",
	}
	got := skills(t, src, r.Snapshot)
	for tool, sk := range want {
		if got[tool] != sk {
			t.Errorf("%s: skill %q, want %q", tool, got[tool], sk)
		}
	}
	wantSkipped := []string{
		"close_ticket as a skill: its input requires 2 properties (id, reason), and the typed text fills one (a selector of its own can name the argument)",
		`rank_tickets as a skill: its input also requires id, which the typed text cannot supply (a selector of its own can name the argument)`,
	}
	if !slices.Equal(r.Skipped, wantSkipped) {
		t.Errorf("left out:\n%s\nwant:\n%s", strings.Join(r.Skipped, "\n"), strings.Join(wantSkipped, "\n"))
	}
	if len(r.Tools) != len(tools) {
		t.Errorf("recorded %q of %d tools: a tool left out of skills stays a capability", r.Tools, len(tools))
	}
}

// A name that can be a capability's always gives a valid alias; should the two
// rules part, a tool a pattern takes is still no skill with an alias that is not.
func TestADerivedAliasThatIsNotOneLeavesOutTheSkill(t *testing.T) {
	src := registry.MCPSource{Name: "tracker", Skills: []registry.MCPSkill{{Tool: "*"}}}
	sk, why := src.SkillOf("tag__ticket", []byte(`{"type":"object","properties":{"tag":{"type":"string"}},"required":["tag"]}`))
	if sk != nil || why != `"tag--ticket", the alias its name gives, is not a valid skill name (a selector of its own can give one)` {
		t.Errorf("skill %v, why %q", sk, why)
	}
}

// The SDK's client passes on what a server lists as inputSchema unchecked, so a
// schema that is no JSON Schema reaches the refresh, which refuses the server's
// tools before anything is written, naming the tool. A tool the patterns leave
// out is not judged.
func TestSnapshotRefusesAToolWhoseSchemaIsNoJSONSchema(t *testing.T) {
	for _, prop := range []any{map[string]any{"type": 5}, map[string]any{"type": "strnig"}, map[string]any{"minLength": "x"}} {
		tools := listed(t, []*mcp.Tool{
			{Name: "fine", InputSchema: object(map[string]any{"q": str}, "q")},
			{Name: "broken", InputSchema: object(map[string]any{"x": prop})},
		})
		if len(tools) != 2 {
			t.Fatalf("the client dropped a tool: %d listed", len(tools))
		}
		_, err := Snapshot(registry.MCPSource{Name: "tracker"}, Listing{Tools: tools}, "registry/mcp-tracker.yaml")
		if err == nil || !strings.Contains(err.Error(), `the tool "broken" has an inputSchema that is not JSON Schema: properties.x`) ||
			!strings.HasSuffix(err.Error(), "nothing was written") {
			t.Errorf("%v: err %v", prop, err)
		}
		if _, err := Snapshot(registry.MCPSource{Name: "tracker", Exclude: []string{"broken"}}, Listing{Tools: tools}, "registry/mcp-tracker.yaml"); err != nil {
			t.Errorf("%v, left out: %v", prop, err)
		}
	}
}

// A tool is recorded under any name MCP allows a tool (1 to 128 letters, digits,
// _, - and .); one left out says exactly what is refused: a name MCP does not
// allow, or a capability id it cannot make.
func TestSnapshotTakesEveryToolNameMCPAllows(t *testing.T) {
	var tools []*mcp.Tool
	for _, name := range []string{"get.item", "Admin.tools-v2_list", strings.Repeat("x", 128), "drop__all", "a b", strings.Repeat("y", 129), ".hidden"} {
		tools = append(tools, &mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}})
	}
	r, err := Snapshot(registry.MCPSource{Name: "tracker"}, Listing{Tools: tools}, "registry/mcp-tracker.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Admin.tools-v2_list", "get.item", strings.Repeat("x", 128)}; !slices.Equal(r.Tools, want) {
		t.Errorf("recorded %q, want %q", r.Tools, want)
	}
	want := []string{
		".hidden: the capability id it would make, tracker..hidden, is not valid: ids are letters and digits in runs separated by single ., _ or -",
		"a b: not a tool name MCP allows (1 to 128 letters, digits, _, - and .)",
		"drop__all: the capability id it would make, tracker.drop__all, is not valid: ids are letters and digits in runs separated by single ., _ or -",
		strings.Repeat("y", 129) + ": not a tool name MCP allows (1 to 128 letters, digits, _, - and .)",
	}
	if !slices.Equal(r.Skipped, want) {
		t.Errorf("left out:\n%s\nwant:\n%s", strings.Join(r.Skipped, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(string(r.Snapshot), "    tool: get.item\n") {
		t.Errorf("get.item is not recorded as the tool it is:\n%s", r.Snapshot)
	}
}

// A tool's description is what the model reads to choose the skill: the
// snapshot records it as one line, its paragraphs folded, its control and bidi
// characters escaped, and cut at a word to the 1 024 characters clients take; the
// registry loads it, and a description the same as the title is not repeated.
func TestSnapshotRecordsToolDescriptions(t *testing.T) {
	long := strings.Repeat("word ", 300)
	tools := listed(t, []*mcp.Tool{
		{Name: "search_nodes", Title: "Search Nodes", Description: "Search for nodes in the knowledge graph.\n\nMatches names,\ttypes and\r\nobservations.\u202e",
			InputSchema: object(map[string]any{"query": str}, "query")},
		{Name: "long", Description: long, InputSchema: object(map[string]any{"query": str}, "query")},
		{Name: "same", Title: "Same", Description: " Same\n", InputSchema: object(map[string]any{"query": str}, "query")},
		{Name: "none", InputSchema: object(map[string]any{"query": str}, "query")},
	})
	src := registry.MCPSource{Name: "memory", Skills: []registry.MCPSkill{{Tool: "*"}}}
	r, err := Snapshot(src, Listing{Tools: tools}, "registry/mcp-memory.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range loadWith(t, src, r.Snapshot).Capabilities {
		got[c.Spec.MCP.Tool] = c.Spec.Description
	}
	want := `Search for nodes in the knowledge graph. Matches names, types and observations.\u202e`
	if got["search_nodes"] != want {
		t.Errorf("search_nodes: %q, want %q", got["search_nodes"], want)
	}
	if n := utf8.RuneCountInString(got["long"]); n > registry.MaxDescriptionLength || !strings.HasSuffix(got["long"], "word…") {
		t.Errorf("long: %d characters, ends %q", n, got["long"][len(got["long"])-12:])
	}
	if got["same"] != "" || got["none"] != "" {
		t.Errorf("same: %q, none: %q", got["same"], got["none"])
	}
}
