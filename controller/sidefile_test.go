package controller

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// Codex's policy file beside a skill is skillsync's only when it carries the
// banner for its own path: a person's copy, or an agents/ directory that is a
// symlink, is never written, even with --force.
func TestSideFilesOfAPersonAreNeverTouched(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	if out := Reconcile(Request{System: workspacefs.OS{}, Root: root}); out.Err != nil || len(out.Problems) > 0 {
		t.Fatalf("first pass: %v %v", out.Err, out.Problems)
	}
	own := filepath.Join(root, ".agents/skills/intent/agents/openai.yaml")
	if _, err := os.Stat(own); err != nil {
		t.Fatalf("no policy file beside the write skill: %v", err)
	}
	mine := []byte("policy:\n  allow_implicit_invocation: true\n")
	testkit.WriteFile(t, root, ".agents/skills/intent/agents/openai.yaml", mine)
	elsewhere := filepath.Join(root, "elsewhere")
	if err := os.Mkdir(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	noteAgents := filepath.Join(root, ".agents/skills/note/agents")
	if err := os.RemoveAll(noteAgents); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, noteAgents); err != nil {
		t.Fatal(err)
	}

	out := Reconcile(Request{System: workspacefs.OS{}, Root: root, Options: plan.Options{Force: true}})
	if got, _ := os.ReadFile(own); string(got) != string(mine) {
		t.Errorf("a person's openai.yaml was rewritten:\n%s", got)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("written through the symlinked agents/ directory: %v", entries)
	}
	if target, err := os.Readlink(noteAgents); err != nil || target != elsewhere {
		t.Errorf("the symlink was replaced: %q %v", target, err)
	}
	conflicts := map[string]bool{}
	for _, ch := range out.Plan.Changes {
		if ch.Action == plan.Conflict {
			conflicts[ch.Path] = true
		}
	}
	for _, p := range []string{".agents/skills/intent/agents/openai.yaml", ".agents/skills/note/agents/openai.yaml"} {
		if !conflicts[p] {
			t.Errorf("%s is not reported as a conflict; plan: %+v", p, out.Plan.Changes)
		}
	}
}

// A skill that goes takes its policy file and the agents/ directory with it, so
// nothing of it is left for a client to find, also when its SKILL.md went first
// (deleted by hand, or by a run that was killed).
func TestPruningASkillRemovesItsSideFileDirectory(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	if out := Reconcile(Request{System: workspacefs.OS{}, Root: root}); out.Err != nil || len(out.Problems) > 0 {
		t.Fatalf("first pass: %v %v", out.Err, out.Problems)
	}
	if err := os.Remove(filepath.Join(root, ".agents/skills/intent/SKILL.md")); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(root, "skillsync.yaml")
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte(strings.Replace(string(data), "disabled: []", "disabled: [intent]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := Reconcile(Request{System: workspacefs.OS{}, Root: root}); out.Err != nil || len(out.Problems) > 0 {
		t.Fatalf("second pass: %v %v", out.Err, out.Problems)
	}
	if _, err := os.Lstat(filepath.Join(root, ".agents/skills/intent")); !os.IsNotExist(err) {
		t.Errorf(".agents/skills/intent survived the prune: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, ".agents/skills/note/agents/openai.yaml")); err != nil {
		t.Errorf("another skill's policy file went too: %v", err)
	}
}

// Where the skill directory cannot hold skillsync's files (a file stands there, or
// a directory differing only in case, the same one on macOS and Windows), the side
// file is kept back like the SKILL.md and nothing is created: both are conflicts,
// or, where a person's skill holds the name, the SKILL.md is and the side file is
// not wanted at all.
func TestSideFilesWaitForTheirSkillDirectory(t *testing.T) {
	const skillFile, sideFile = ".agents/skills/intent/SKILL.md", ".agents/skills/intent/agents/openai.yaml"
	for _, c := range []struct {
		name   string
		setup  func(t *testing.T, root string)
		want   map[string]plan.Action
		absent string
	}{
		{"a file where the skill directory goes", func(t *testing.T, root string) {
			testkit.WriteFile(t, root, ".agents/skills/intent", []byte("mine\n"))
		}, map[string]plan.Action{skillFile: plan.Conflict, sideFile: plan.Conflict}, ""},
		{"a case twin of the skill directory", func(t *testing.T, root string) {
			testkit.WriteFile(t, root, ".agents/skills/Intent/SKILL.md", []byte("---\nname: Intent\ndescription: mine\n---\n"))
		}, map[string]plan.Action{skillFile: plan.Conflict, sideFile: ""}, ".agents/skills/intent"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := testkit.ExampleWorkspace(t)
			c.setup(t, root)
			out := Reconcile(Request{System: workspacefs.OS{}, Root: root})
			actions := map[string]plan.Action{}
			for _, ch := range out.Plan.Changes {
				actions[ch.Path] = ch.Action
			}
			for p, want := range c.want {
				if actions[p] != want {
					t.Errorf("%s: %q, want %q (err %v)", p, actions[p], want, out.Err)
				}
			}
			if c.absent != "" {
				if _, err := os.Lstat(filepath.Join(root, c.absent)); !os.IsNotExist(err) {
					t.Errorf("%s was created beside its case twin: %v", c.absent, err)
				}
			}
		})
	}
}
