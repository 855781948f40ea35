package starter

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

func TestRef(t *testing.T) {
	for version, want := range map[string]string{"v1.2.3": "v1.2.3", "v0.1.0-rc.1": "v0.1.0-rc.1", "(devel)": "main", "v1.2": "main", "": "main",
		// Go's pseudo-versions: a build from a clean clone, and a commit after a tag.
		"v0.0.0-20261202083158-392f663d9b74": "main", "v1.2.4-0.20261202083158-392f663d9b74": "main"} {
		if got := Ref(version); got != want {
			t.Errorf("Ref(%q) = %q, want %q", version, got, want)
		}
	}
}

// What init writes loads as a valid workspace with no capability, and with its
// example uncommented, with exactly that one, whatever was found.
func TestStarterLoads(t *testing.T) {
	// A folder named with line breaks, as a hostile repository can hold one, is
	// named in the starter's comments quoted: it ends no comment.
	hostile := ".claude/skills/x\n  disabled: [evil]\n  reservedNames: [x]\n#\r\u2028/SKILL.md"
	for _, found := range []Found{{}, {Servers: []string{"github", "linear"}, HandWritten: []string{".claude/skills/mine/SKILL.md"},
		InUse: map[string][]string{"Gemini CLI": {"GEMINI.md"}}},
		{HandWritten: []string{hostile}, InUse: map[string][]string{"Claude Code": {hostile}}}} {
		for _, uncommented := range []bool{false, true} {
			dir := t.TempDir()
			files := map[string]string{}
			for _, f := range Plan(found, "main").Files {
				files[f.Path] = f.Content
				if example := Example(f.Content); uncommented && example != "" {
					files[f.Path] = example
				}
			}
			testkit.WriteFiles(t, dir, files)
			reg, err := registry.Load(workspacefs.OS{}, dir)
			if err != nil {
				t.Fatalf("%+v, example uncommented %v: %v", found, uncommented, err)
			}
			want := 0
			if uncommented {
				want = 1
			}
			if len(reg.Capabilities) != want {
				t.Errorf("%+v: %d capabilities, want %d", found, len(reg.Capabilities), want)
			}
			if spec := reg.Config.Spec; len(spec.Disabled) > 0 || len(spec.ReservedNames) > 0 {
				t.Errorf("%+v: skillsync.yaml holds keys no one wrote: disabled %q, reservedNames %q", found, spec.Disabled, spec.ReservedNames)
			}
		}
	}
}

func TestLook(t *testing.T) {
	dir := t.TempDir()
	ours, err := banner.Stamp([]byte("---\nname: ours\ndescription: d\n---\n"), "capability/x", ".claude/skills/ours/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFiles(t, dir, map[string]string{
		".mcp.json":                          `{"mcpServers": {"zeta": {}, "alpha": {"command": "a"}}}`,
		".gemini/skills/mine/SKILL.md":       "---\nname: mine\ndescription: mine\n---\n",
		".agents/skills/team-notes/SKILL.md": "---\nname: team-notes\ndescription: team notes\n---\n",
		".claude/skills/ours/SKILL.md":       string(ours),
		".github/copilot-instructions.md":    "hi",
	})
	lookPath := func(name string) (string, error) {
		if name == "codex" {
			return "/bin/codex", nil
		}
		return "", errors.New("not found")
	}
	found, err := Look(workspacefs.OS{}, dir, lookPath)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(found.Servers, []string{"alpha", "zeta"}) {
		t.Errorf("servers %q", found.Servers)
	}
	if !slices.Equal(found.HandWritten, []string{".agents/skills/team-notes/SKILL.md", ".gemini/skills/mine/SKILL.md"}) {
		t.Errorf("hand-written %q", found.HandWritten)
	}
	for client, want := range map[string]string{"Gemini CLI": ".gemini/skills/mine/SKILL.md", "Codex": "codex on PATH",
		"Copilot CLI": ".github/copilot-instructions.md"} {
		if !slices.Contains(found.InUse[client], want) {
			t.Errorf("%s in use by %q, want %q among them", client, found.InUse[client], want)
		}
	}
	if _, ok := found.InUse["Claude Code"]; ok {
		t.Error("a generated skill made Claude Code look used")
	}

	missing, err := Look(workspacefs.OS{}, filepath.Join(dir, "not-yet"), lookPath)
	if err != nil || len(missing.InUse) != 1 || missing.Servers != nil {
		t.Errorf("a directory that does not exist: %+v, %v", missing, err)
	}

	testkit.WriteFiles(t, dir, map[string]string{".mcp.json": "{\n  \"mcpServers\": {,}\n}\n"})
	if _, err := Look(workspacefs.OS{}, dir, lookPath); err == nil || !strings.Contains(err.Error(), ".mcp.json: line 2:") {
		t.Errorf("malformed .mcp.json: %v", err)
	}
}

// A server name from .mcp.json that skillsync cannot take is never written
// unquoted: it is named in a comment, escaped, and the workspace still loads.
func TestUnusableServerNames(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	s := Plan(Found{Servers: []string{"@acme/tools", "bad\nspec: {}", "github"}}, "main")
	for _, f := range s.Files {
		files[f.Path] = f.Content
	}
	testkit.WriteFiles(t, dir, files)
	if _, err := registry.Load(workspacefs.OS{}, dir); err != nil {
		t.Fatalf("%v\n%s", err, files["skillsync.yaml"])
	}
	if s.Server != "github" || !strings.Contains(files["skillsync.yaml"], `# .mcp.json names the server "bad\nspec: {}"`) {
		t.Errorf("server %q:\n%s", s.Server, files["skillsync.yaml"])
	}
}

// A skill a person wrote is named for adopt when a client in use reads no
// directory holding a skill of its name.
func TestUnseenNamesTheClientsThatDoNotLookThere(t *testing.T) {
	found := Found{
		InUse:       map[string][]string{"Claude Code": {"CLAUDE.md"}, "Codex": {"AGENTS.md"}},
		HandWritten: []string{".agents/skills/both/SKILL.md", ".claude/skills/both/SKILL.md", ".claude/skills/release/SKILL.md"},
	}
	got := unseen(found)
	if len(got) != 1 || got[0].Path != ".claude/skills/release/SKILL.md" || !slices.Equal(got[0].Clients, []string{"Codex"}) {
		t.Errorf("unseen = %+v, want release, unseen by Codex alone", got)
	}
}
