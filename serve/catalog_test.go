package serve

import (
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/sources/mcp/skillserver"
)

// A target's catalog lists each skill of that directory once, by
// skill://NAME/SKILL.md, with its front matter and every file of the
// directory (Codex's side file too), and none of the directory's own files;
// a target the workspace does not enable is refused, naming those it does.
func TestACatalogIsOneTargetDirectory(t *testing.T) {
	ws := testkit.ExampleWorkspace(t)
	in, err := controller.LoadInputs(controller.Request{System: workspacefs.OS{}, Root: ws})
	if err != nil {
		t.Fatal(err)
	}
	claude, err := Catalog(in.Registry, in.Profile, "claude-code")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range claude.Entries {
		names = append(names, e.URI)
		if e.Frontmatter["name"] == nil || e.Frontmatter["description"] == nil {
			t.Errorf("%s: front matter %v", e.URI, e.Frontmatter)
		}
	}
	if want := []string{"skill://find-intent/SKILL.md", "skill://intent/SKILL.md", "skill://note/SKILL.md",
		"skill://weekly-report/SKILL.md", "skill://withdraw-intent/SKILL.md"}; !slices.Equal(names, want) {
		t.Errorf("claude-code serves %v, want %v", names, want)
	}
	agents, err := Catalog(in.Registry, in.Profile, "agents")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(agents.Entries, func(e skillserver.Entry) bool { return e.URI == "skill://intent/SKILL.md" })
	if i < 0 {
		t.Fatalf("agents serves no intent: %v", agents.Entries)
	}
	var files []string
	for _, f := range agents.Entries[i].Resources.([]skillserver.File) {
		files = append(files, f.URI)
	}
	if !slices.Equal(files, []string{"skill://intent/SKILL.md", "skill://intent/agents/openai.yaml"}) {
		t.Errorf("intent's files for agents: %v", files)
	}
	for uri := range agents.Files {
		if strings.Contains(uri, ".gitattributes") || strings.Contains(uri, ".gitignore") {
			t.Errorf("the target directory's own file %s is served as a skill's", uri)
		}
	}
	if _, err := Catalog(in.Registry, in.Profile, "cursor"); err == nil || !strings.Contains(err.Error(), "claude-code, qwen-code, agents") {
		t.Errorf("a target not enabled: %v", err)
	}
}

// A file of a skill directory may be named with characters a URI escapes: its
// resource's URI parses, and names it.
func TestAFileNameIsEscapedInItsURI(t *testing.T) {
	ws := t.TempDir()
	testkit.WriteFiles(t, ws, map[string]string{
		"skillsync.yaml":             "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  skillDirs: [skills/*]\n  targets: [claude-code]\n",
		"skills/tidy/SKILL.md":       "---\nname: tidy\ndescription: Tidy up.\n---\nSee the notes.\n",
		"skills/tidy/50% off.md":     "Half.\n",
		"skills/tidy/notes/a b#c.md": "Odd.\n",
	})
	in, err := controller.LoadInputs(controller.Request{System: workspacefs.OS{}, Root: ws})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := Catalog(in.Registry, in.Profile, "claude-code")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"skill://tidy/50%25%20off.md": "50% off.md", "skill://tidy/notes/a%20b%23c.md": "notes/a b#c.md", "skill://tidy/SKILL.md": "SKILL.md"}
	if len(cat.Files) != len(want) {
		t.Fatalf("files %v, want %v", slices.Collect(maps.Keys(cat.Files)), want)
	}
	for uri, file := range want {
		u, err := url.Parse(uri)
		if _, ok := cat.Files[uri]; !ok || err != nil || u.Host+"/"+strings.TrimPrefix(u.Path, "/") != "tidy/"+file {
			t.Errorf("%s (%v): want it served, naming %s", uri, err, file)
		}
	}
}
