package main

import (
	"slices"
	"testing"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/controller/plan"
)

func clientNamed(t *testing.T, name string) clients.Client {
	t.Helper()
	i := slices.IndexFunc(clients.All, func(c clients.Client) bool { return c.Name == name })
	if i < 0 {
		t.Fatalf("no client %s", name)
	}
	return clients.All[i]
}

// A client that reads two enabled directories sees a skill twice when both will
// hold it after the plan: kept, created, updated or left in conflict, not deleted.
// A client that cannot hide a skill from its model is told which of the skills to
// keep from it it would offer; one that can is told none.
func TestUnguarded(t *testing.T) {
	plan := plan.Plan{
		InSync: []string{".agents/skills/write/SKILL.md", ".agents/skills/write/agents/openai.yaml", ".agents/skills/read/SKILL.md"},
		Changes: []plan.Change{
			{Path: ".claude/skills/destroy/SKILL.md", Action: plan.Create},
			{Path: ".claude/skills/gone/SKILL.md", Action: plan.Delete},
		},
	}
	kept := map[string]bool{"write": true, "destroy": true, "gone": true}
	all := map[string]bool{"claude-code": true, "agents": true}
	for _, c := range []struct {
		client string
		strict bool // spec.frontMatter: strict
		want   []string
	}{
		{"Gemini CLI", false, []string{"write"}},
		{"OpenCode", false, []string{"destroy", "write"}},
		{"Claude Code", false, []string{}},
		{"Codex", false, []string{}},
		{"Copilot CLI", false, []string{}},
		// With the specification's keys only, a client whose way is a key has none.
		{"Claude Code", true, []string{"destroy"}},
		{"Copilot CLI", true, []string{"destroy", "write"}},
		{"Codex", true, []string{}},
	} {
		if got := unguarded(clientNamed(t, c.client), c.strict, all, plan, kept); !slices.Equal(got, c.want) {
			t.Errorf("%s (strict %v): unguarded %q, want %q", c.client, c.strict, got, c.want)
		}
	}
}

func TestSeenTwice(t *testing.T) {
	plan := plan.Plan{
		InSync: []string{".agents/skills/a/SKILL.md", ".claude/skills/a/SKILL.md", ".agents/skills/c/SKILL.md", ".qwen/skills/a/SKILL.md"},
		Changes: []plan.Change{
			{Path: ".agents/skills/b/SKILL.md", Action: plan.Create},
			{Path: ".claude/skills/b/SKILL.md", Action: plan.Conflict},
			{Path: ".claude/skills/c/SKILL.md", Action: plan.Delete},
			{Path: ".claude/skills/d/SKILL.md", Action: plan.Update},
		},
	}
	all := map[string]bool{"claude-code": true, "qwen-code": true, "agents": true}
	for _, c := range []struct {
		client  string
		enabled map[string]bool
		want    []string
	}{
		{"Copilot CLI", all, []string{"a", "b"}},
		{"Copilot CLI", map[string]bool{"agents": true}, []string{}},
		{"Qwen Code", all, []string{"a"}},
		{"Claude Code", all, []string{}},
		{"Codex", all, []string{}},
	} {
		if got := seenTwice(clientNamed(t, c.client), c.enabled, plan); !slices.Equal(got, c.want) {
			t.Errorf("%s with %v: seen twice %q, want %q", c.client, c.enabled, got, c.want)
		}
	}
}
