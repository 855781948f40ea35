package registry

import (
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// A wildcard segment passes over the directories skillsync writes in, at any
// depth of the glob: files there are never registry files, and .skillsync/ or a
// skill directory appearing must not make the glob invalid.
func TestAWildcardPassesOverWhereSkillsyncWrites(t *testing.T) {
	root := workspace(t, map[string]string{
		ConfigName:                    strings.Replace(config, "registry/*.json, registry/*.yaml", ".*/*.yaml, .claude/*/*.yaml", 1),
		".registry/caps.yaml":         "---\n# nothing here yet\n",
		".skillsync/stray.yaml":       "not: [a registry file\n",
		".claude/notes/caps.yaml":     "---\n# nothing here either\n",
		".claude/skills/stray.yaml":   "not: [a registry file either\n",
		".claude/skills/x/stray.yaml": "not: [one more\n",
	})
	reg, err := Load(workspacefs.OS{}, root)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(reg.Files, ","); got != ".registry/caps.yaml,.claude/notes/caps.yaml" {
		t.Errorf("files = %s, want .registry/caps.yaml, then .claude/notes/caps.yaml", got)
	}
}
