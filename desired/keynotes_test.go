package desired

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// Each key of a skill is noted with the targets that write it and leave it
// out, the clients' facts on it, and its line in the SKILL.md; in strict mode
// only the specification's keys are written anywhere.
func TestKeyNotes(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{
		registry.ConfigName: "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  skillDirs: [skills/*]\n  targets: [claude-code, qwen-code, agents]\n",
		"skills/ship/SKILL.md": "---\nname: ship\ndescription: Ship it. Use when asked to ship.\nlicense: MIT\nmodel: opus\n" +
			"allowed-tools: Bash(git:*)\n---\nShip.\n",
	})
	notes := func() []KeyNote {
		reg, err := registry.Load(workspacefs.OS{}, root)
		if err != nil {
			t.Fatal(err)
		}
		return KeyNotes(reg, Build(reg, Profile{}))
	}
	targets := []string{"claude-code", "qwen-code", "agents"}
	got := notes()
	want := []KeyNote{
		{Skill: "ship", Key: "license", At: registry.Position{File: "skills/ship/SKILL.md", Line: 4}, Written: targets},
		{Skill: "ship", Key: "allowed-tools", At: registry.Position{File: "skills/ship/SKILL.md", Line: 6}, Written: targets},
		{Skill: "ship", Key: "model", At: registry.Position{File: "skills/ship/SKILL.md", Line: 5},
			Written: []string{"claude-code"}, Dropped: []string{"qwen-code", "agents"}},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(KeyNote{}, "Facts")); diff != "" {
		t.Errorf("KeyNotes (-want +got):\n%s", diff)
	}
	for _, n := range got {
		clientsOf := map[string]bool{}
		for _, f := range n.Facts {
			clientsOf[f.Client] = true
		}
		if n.Key != "license" && (!clientsOf["Claude Code"] || !clientsOf["Qwen Code"]) {
			t.Errorf("%s: facts %v, want Claude Code's and Qwen Code's", n.Key, n.Facts)
		}
	}

	testkit.WriteFiles(t, root, map[string]string{
		registry.ConfigName: "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  skillDirs: [skills/*]\n  targets: [claude-code, qwen-code, agents]\n  frontMatter: strict\n",
	})
	for _, n := range notes() {
		if n.Key == "model" && len(n.Written) != 0 {
			t.Errorf("strict: model written in %v, want nowhere", n.Written)
		}
	}
}
