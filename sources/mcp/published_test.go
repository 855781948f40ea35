package mcp

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	yaml "go.yaml.in/yaml/v3"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/sources/mcp/skillserver"
)

const gitWorkflow = "---\nname: git-workflow\ndescription: Follow the team's git conventions\nallowed-tools: Bash(git push:*)\nlicense: MIT\n---\n\nBranch from main; squash on merge.\n"

// listPublished lists, as src, an in-process server that publishes cat (or, with
// a nil cat, a server without the skills extension).
func listPublished(t *testing.T, cat *skillserver.Catalog, src registry.MCPSource) (Listing, error) {
	t.Helper()
	var opts *mcp.ServerOptions
	if cat != nil {
		opts = &mcp.ServerOptions{Capabilities: skillserver.Capabilities()}
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	server.AddTool(&mcp.Tool{Name: "search", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	serverSide, clientSide := mcp.NewInMemoryTransports()
	var transport mcp.Transport = serverSide
	if cat != nil {
		transport = skillserver.Publish(server, *cat).Transport(serverSide)
	}
	ctx := context.Background()
	session, err := server.Connect(ctx, transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	return List(ctx, src, Over(clientSide))
}

func honest(t *testing.T, skills map[string]map[string]string) *skillserver.Catalog {
	t.Helper()
	cat, err := skillserver.Honest(skills)
	if err != nil {
		t.Fatal(err)
	}
	return &cat
}

func TestPublishedSkillBecomesARegistrySkill(t *testing.T) {
	cat := honest(t, map[string]map[string]string{"acme/git-workflow": {"SKILL.md": gitWorkflow}})
	src := registry.MCPSource{Name: "docs", PublishedSkills: &registry.MCPPublishedSkills{RequiredCapabilities: []string{"git.push"}}}
	listing, err := listPublished(t, cat, src)
	if err != nil {
		t.Fatal(err)
	}
	if !listing.Publishes || len(listing.Skills) != 1 || string(listing.Skills[0].Content) != gitWorkflow {
		t.Fatalf("listing %+v", listing)
	}
	r, err := Snapshot(src, listing, "registry/mcp-docs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Skills) != 1 || r.Skills[0] != "git-workflow" {
		t.Errorf("recorded skills %q, skipped %q", r.Skills, r.Skipped)
	}
	var skill struct {
		Kind     string
		Metadata struct{ Name string }
		Spec     struct {
			Description string
			Body        string
		}
	}
	dec := yaml.NewDecoder(strings.NewReader(string(r.Snapshot)))
	for dec.Decode(&skill) == nil && skill.Kind != "Skill" {
	}
	text := string(r.Snapshot)
	switch {
	case skill.Kind != "Skill" || skill.Metadata.Name != "git-workflow" || skill.Spec.Description != "Follow the team's git conventions":
		t.Errorf("no Skill document for git-workflow:\n%s", text)
	case !strings.HasPrefix(skill.Spec.Body, "> Published by the MCP server `docs` as skill://acme/git-workflow/SKILL.md;") ||
		!strings.HasSuffix(skill.Spec.Body, "Branch from main; squash on merge.\n"):
		t.Errorf("the body does not say its origin, or lost the text: %q", skill.Spec.Body)
	case strings.Contains(text, "allowed-tools:") || !strings.Contains(text, `Not carried from its frontmatter: "allowed-tools", "license".`):
		t.Errorf("allowed-tools is carried, or its dropping unsaid:\n%s", text)
	case !strings.Contains(text, cat.Entries[0].Resources.([]skillserver.File)[0].Digest):
		t.Errorf("the snapshot does not record the digest it verified:\n%s", text)
	case strings.Contains(text, "disableModelInvocation") || strings.Contains(text, "requiredCapabilities"):
		t.Errorf("the snapshot records what publishedSkills says, which skillsync.yaml keeps:\n%s", text)
	}
	// Loaded with the source, the skill is kept from the model's own choice and
	// needs the capabilities publishedSkills requires.
	reg := loadWith(t, src, r.Snapshot)
	if len(reg.Skills) != 1 || !reg.Skills[0].Spec.DisableModelInvocation || !slices.Equal(reg.Skills[0].Spec.RequiredCapabilities, []string{"git.push"}) {
		t.Errorf("loaded: %+v", reg.Skills)
	}
	src.PublishedSkills.ModelInvocable = true
	if reg := loadWith(t, src, r.Snapshot); len(reg.Skills) != 1 || reg.Skills[0].Spec.DisableModelInvocation {
		t.Errorf("loaded with modelInvocable: %+v", reg.Skills)
	}
	src.PublishedSkills.Exclude = []string{"git-*"}
	if reg := loadWith(t, src, r.Snapshot); len(reg.Skills) != 0 {
		t.Errorf("loaded with git-* excluded: %+v", reg.Skills)
	}
}

func TestPublishedSkillsLeftOut(t *testing.T) {
	twin := "---\nname: twin\ndescription: One of two\n---\nx\n"
	cat := honest(t, map[string]map[string]string{
		"with-files":   {"SKILL.md": "---\nname: with-files\ndescription: Has a script\n---\nRun scripts/go.sh\n", "scripts/go.sh": "echo hi\n"},
		"a/twin":       {"SKILL.md": twin},
		"b/twin":       {"SKILL.md": twin},
		"dyn":          {"SKILL.md": "---\nname: dyn\ndescription: Generated\n---\nx\n"},
		"not-selected": {"SKILL.md": "---\nname: not-selected\ndescription: Left\n---\nx\n"},
	})
	for i := range cat.Entries {
		switch cat.Entries[i].URI {
		case "skill://dyn/SKILL.md":
			cat.Entries[i].Resources = "dynamic"
		case "skill://not-selected/SKILL.md":
			cat.Files["skill://not-selected/SKILL.md"] = []byte("forged, but not selected")
		}
	}
	src := registry.MCPSource{Name: "docs", PublishedSkills: &registry.MCPPublishedSkills{Exclude: []string{"not-*"}}}
	listing, err := listPublished(t, cat, src)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Snapshot(src, listing, "registry/mcp-docs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	skipped := strings.Join(r.Skipped, "\n")
	// A forged skill publishedSkills leaves out is left out of the snapshot too,
	// and keeps none of the others out.
	for _, want := range []string{"skill dyn: the server publishes no digests", "skill twin: the server publishes 2 skills named twin (skill://a/twin/SKILL.md, skill://b/twin/SKILL.md)",
		"skill with-files: it has 1 supporting files", "skill not-selected: it was not recorded: the skill skill://not-selected/SKILL.md: its SKILL.md is 24 bytes, its entry says 47"} {
		if !strings.Contains(skipped, want) {
			t.Errorf("skipped does not say %q:\n%s", want, skipped)
		}
	}
	if len(r.Skills) != 0 || strings.Contains(string(r.Snapshot), "not-selected") {
		t.Errorf("recorded %q, skipped:\n%s", r.Skills, skipped)
	}

	plain, err := listPublished(t, nil, src)
	if err != nil {
		t.Fatal(err)
	}
	r, _ = Snapshot(src, plain, "registry/mcp-docs.yaml")
	if len(r.Skipped) != 1 || !strings.Contains(r.Skipped[0], "does not declare the skills extension") {
		t.Errorf("a server without the extension: skipped %q", r.Skipped)
	}
}

// A server whose entries or files do not agree is bad input: the listing fails,
// naming the skill, and nothing can be written.
func TestPublishedSkillsThatLie(t *testing.T) {
	for _, c := range []struct {
		name  string
		forge func(*skillserver.Catalog)
		want  string
	}{
		{"content changed", func(c *skillserver.Catalog) {
			c.Files["skill://git-workflow/SKILL.md"] = []byte(strings.Replace(gitWorkflow, "squash", "rebase", 1))
		}, "does not match the digest"},
		{"size", func(c *skillserver.Catalog) { c.Files["skill://git-workflow/SKILL.md"] = []byte(gitWorkflow + "more") }, "its entry says"},
		{"frontmatter", func(c *skillserver.Catalog) { c.Entries[0].Frontmatter["description"] = "Something else" }, "frontmatter of its SKILL.md differs"},
		{"name", func(c *skillserver.Catalog) { c.Entries[0].Frontmatter["name"] = "other" }, `is named "other"`},
		{"uri", func(c *skillserver.Catalog) { c.Entries[0].URI = "skill://git-workflow\n# forged/SKILL.md" }, "blanks or control characters"},
		{"no resources", func(c *skillserver.Catalog) { c.Entries[0].Resources = nil }, `neither a list of files nor "dynamic"`},
		{"bad digest", func(c *skillserver.Catalog) {
			c.Entries[0].Resources = []skillserver.File{{URI: "skill://git-workflow/SKILL.md", Digest: "md5:00", Size: 1}}
		}, "no sha256 digest"},
		{"file outside", func(c *skillserver.Catalog) {
			files := c.Entries[0].Resources.([]skillserver.File)
			c.Entries[0].Resources = append(files, skillserver.File{URI: "skill://elsewhere/x.md", Digest: files[0].Digest, Size: 1})
		}, "a file outside it"},
		{"pages without end", func(c *skillserver.Catalog) { c.Endless = true }, "skills/list: the server gave more than 100 pages"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat := honest(t, map[string]map[string]string{"git-workflow": {"SKILL.md": gitWorkflow}})
			c.forge(cat)
			_, err := listPublished(t, cat, registry.MCPSource{Name: "docs", PublishedSkills: &registry.MCPPublishedSkills{}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want %q", err, c.want)
			}
		})
	}
}

// A problem in a snapshot that was refused points at what the server said: a
// line of a published skill's SKILL.md (its frontmatter key, or where its body
// begins), or a tool; a problem elsewhere is as it was.
func TestLocatePointsAtWhatTheServerSaid(t *testing.T) {
	cat := honest(t, map[string]map[string]string{"acme/git-workflow": {"SKILL.md": gitWorkflow}})
	src := registry.MCPSource{Name: "docs", PublishedSkills: &registry.MCPPublishedSkills{}}
	listing, err := listPublished(t, cat, src)
	if err != nil {
		t.Fatal(err)
	}
	listing.Tools = []*mcp.Tool{{Name: "search", InputSchema: object(map[string]any{"q": str}, "q")}}
	const path = "registry/mcp-docs.yaml"
	r, err := Snapshot(src, listing, path)
	if err != nil {
		t.Fatal(err)
	}
	lineOf := func(text string) int {
		before, _, ok := strings.Cut(string(r.Snapshot), text)
		if !ok {
			t.Fatalf("no %q in the snapshot:\n%s", text, r.Snapshot)
		}
		return strings.Count(before, "\n") + 1
	}
	in := registry.Problems{
		{Pos: registry.Position{File: path, Line: lineOf("  description: Follow"), Column: 16}},
		{Pos: registry.Position{File: path, Line: lineOf("Branch from main")}},
		{Pos: registry.Position{File: path, Line: lineOf("  title: search")}},
		{Pos: registry.Position{File: "skillsync.yaml", Line: 3}},
	}
	got := r.Locate(in, path)
	want := []registry.Position{
		{File: "skill://acme/git-workflow/SKILL.md", Line: 1 + strings.Count(gitWorkflow[:strings.Index(gitWorkflow, "description:")], "\n")},
		{File: "skill://acme/git-workflow/SKILL.md", Line: 1 + strings.Count(gitWorkflow[:strings.Index(gitWorkflow, "\n---\n")+5], "\n")},
		{File: "the tool search of docs"},
		{File: "skillsync.yaml", Line: 3},
	}
	for i := range want {
		if got[i].Pos != want[i] {
			t.Errorf("problem %d at %v, want %v", i, got[i].Pos, want[i])
		}
	}
}

// An unquoted date in a SKILL.md's frontmatter is a YAML timestamp, which JSON
// has not: the entry gives it as the date's text, or as the time in RFC 3339, as
// the server's YAML reader has it, and both are the same frontmatter. Another
// date is not.
func TestPublishedSkillWithADate(t *testing.T) {
	dated := "---\nname: dated\ndescription: Has dates\nupdated: 2024-01-01\nhistory:\n  - {since: 2023-05-06 10:00:00}\n---\nx\n"
	src := registry.MCPSource{Name: "docs", PublishedSkills: &registry.MCPPublishedSkills{}}
	for _, c := range []struct {
		name           string
		updated, since any
		want           string
	}{
		{"as Go's YAML reads it", nil, nil, ""},
		{"as text", "2024-01-01", "2023-05-06 10:00:00", ""},
		{"as RFC 3339", "2024-01-01T00:00:00.000Z", "2023-05-06T10:00:00Z", ""},
		{"another date", "2024-01-02", "2023-05-06 10:00:00", "frontmatter of its SKILL.md differs"},
		{"no date", "soon", "2023-05-06 10:00:00", "frontmatter of its SKILL.md differs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat := honest(t, map[string]map[string]string{"dated": {"SKILL.md": dated}})
			if c.updated != nil {
				cat.Entries[0].Frontmatter["updated"] = c.updated
				cat.Entries[0].Frontmatter["history"] = []any{map[string]any{"since": c.since}}
			}
			listing, err := listPublished(t, cat, src)
			switch {
			case c.want == "" && (err != nil || len(listing.Skills) != 1 || string(listing.Skills[0].Content) != dated):
				t.Errorf("listing %+v, %v", listing, err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("err %v, want %q", err, c.want)
			}
		})
	}
}
