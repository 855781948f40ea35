package clients

import (
	"slices"
	"strings"
	"testing"
)

// The table is consistent: every target has a directory of its own (also where
// case does not count), every client says where its facts come from, what it
// reads and how it is recognised, and every target is read by some client.
func TestTableIsConsistent(t *testing.T) {
	dirs := map[string]string{}
	for _, tg := range Targets {
		if tg.Name == "" || !strings.HasSuffix(tg.Dir, "/skills") {
			t.Errorf("target %+v", tg)
		}
		if other, dup := dirs[strings.ToLower(tg.Dir)]; dup {
			t.Errorf("%s and %s share the directory %s", other, tg.Name, tg.Dir)
		}
		dirs[strings.ToLower(tg.Dir)] = tg.Name
	}
	read := map[string]bool{}
	for _, c := range All {
		if c.Source == "" || len(c.Reads) == 0 || len(c.Evidence) == 0 {
			t.Errorf("%s: no source, directories or evidence", c.Name)
		}
		for _, tg := range c.Targets() {
			read[tg] = true
		}
	}
	for _, name := range TargetNames() {
		if !read[name] {
			t.Errorf("no client reads the target %s", name)
		}
	}
}

func TestReservedByFollowsTheEnabledTargets(t *testing.T) {
	for _, c := range []struct {
		name    string
		enabled []string
		want    []string
	}{
		{"pr", []string{"claude-code"}, nil},
		{"pr", []string{"agents"}, []string{"Qwen Code"}},
		{"clear", []string{"claude-code", "qwen-code"}, []string{"Claude Code", "Qwen Code"}},
		{"my-mcp-tool", []string{"claude-code"}, []string{"Claude Code"}},
		{"my-mcp-tool", []string{"agents"}, nil},
		{"intent", []string{"claude-code", "qwen-code", "agents"}, nil},
	} {
		if got := ReservedBy(c.name, c.enabled); !slices.Equal(got, c.want) {
			t.Errorf("ReservedBy(%s, %v) = %v, want %v", c.name, c.enabled, got, c.want)
		}
	}
}

// The skill directory of a path is the path cut after the skill's name, and
// taking it copies nothing: a plan of a large workspace asks for it at every
// path it plans and applies.
func TestSkillDirOfIsAPrefixOfThePath(t *testing.T) {
	for p, want := range map[string]string{
		".claude/skills/release/SKILL.md":       ".claude/skills/release",
		".claude/skills/release/scripts/run.sh": ".claude/skills/release",
		".claude/skills/release":                ".claude/skills/release",
		".agents/skills/x/y/z":                  ".agents/skills/x",
		".claude/skills/":                       "",
		".claude/skills":                        "",
		".claude/skillsx/release/SKILL.md":      "",
		"docs/release/SKILL.md":                 "",
	} {
		if got := SkillDirOf(p); got != want {
			t.Errorf("SkillDirOf(%q) = %q, want %q", p, got, want)
		}
	}
	p := ".qwen/skills/release/scripts/run.sh"
	if allocs := testing.AllocsPerRun(100, func() { _ = SkillDirOf(p) }); allocs != 0 {
		t.Errorf("SkillDirOf allocates %v times a call, want none", allocs)
	}
}
