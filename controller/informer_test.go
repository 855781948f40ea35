package controller

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// capabilitiesFile is a registry file of n capabilities, each with a skill;
// titles changes the titles it holds.
func capabilitiesFile(n int, titles map[int]string) string {
	var b strings.Builder
	for i := range n {
		title := titles[i]
		if title == "" {
			title = fmt.Sprintf("List things %d", i)
		}
		fmt.Fprintf(&b, "---\napiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: things.list-%d}\nspec:\n  title: %q\n  effect: read\n", i, title)
		fmt.Fprintf(&b, "  input: {type: object, properties: {q: {type: string}}}\n  cli: {command: [things, list]}\n  skill: {alias: things-%d, argument: q}\n", i)
	}
	return b.String()
}

// A watcher's pass after a save that changes one capability of a file of many
// reads and plans that capability's skill alone, also when the save moved the
// others down a line; a save that adds a workflow skill to the file plans every
// skill it declares.
func TestASaveOfOneCapabilityPlansItsSkillAlone(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, root, "skillsync.yaml", []byte("apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n  targets: [claude-code]\n"))
	testkit.WriteFile(t, root, "registry/things.yaml", []byte(capabilitiesFile(20, nil)))
	inf := NewInformer()
	req := Request{System: workspacefs.OS{}, Root: root}
	if out := inf.Reconcile(req); out.Err != nil || len(out.Problems) > 0 || out.Plan.Count(plan.Create) != 20 {
		t.Fatalf("first pass: %s", summary(out))
	}
	// A pass reads again what the pass before it wrote.
	settled := func() {
		t.Helper()
		if out := inf.Reconcile(req); out.Err != nil || len(out.Problems) > 0 || len(out.Plan.Changes) != 0 {
			t.Fatalf("a pass after the writes: %s", summary(out))
		}
	}
	settled()

	save := func(content string) Outcome {
		t.Helper()
		testkit.WriteFile(t, root, "registry/things.yaml", []byte(content))
		inf.InputChanged("registry/things.yaml", false)
		out := inf.Reconcile(req)
		if out.Err != nil || len(out.Problems) > 0 {
			t.Fatalf("pass: %s", summary(out))
		}
		return out
	}
	read := func(out Outcome) []string {
		if out.Scope == nil || out.Scope.Full {
			t.Fatalf("the pass was a full one: %+v", out.Scope)
		}
		return slices.Sorted(slices.Values(out.Scope.Read))
	}

	out := save("# moved down a line\n" + capabilitiesFile(20, map[int]string{7: "List things, seventh"}))
	if got, want := read(out), []string{".claude/skills/things-7"}; !slices.Equal(got, want) {
		t.Errorf("after one title changed, the pass read %q, want %q", got, want)
	}
	if out.Plan.Count(plan.Update) != 1 {
		t.Errorf("after one title changed: %s", summary(out))
	}
	settled()

	out = save(capabilitiesFile(20, map[int]string{7: "List things, seventh"}) +
		"---\napiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: weekly}\nspec:\n  description: Write the weekly report.\n  body: Write it.\n")
	if got := read(out); len(got) != 20 || out.Plan.Count(plan.Create) != 1 {
		t.Errorf("after a skill was added beside the capabilities, the pass read %d entries, want all 20, and created %d skill, want 1: %q",
			len(got), out.Plan.Count(plan.Create), got)
	}
}
