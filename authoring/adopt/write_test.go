package adopt

import (
	"crypto/sha256"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/apply"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

const mine = "---\nname: review-pr\ndescription: Review it our way.\n---\n\nReview it.\n"

// adoption is what adopt would write for the hand-written review-pr of root.
func adoption(t *testing.T, root string) ([]apply.NewFile, []Skill) {
	t.Helper()
	rel := ".claude/skills/review-pr/SKILL.md"
	testkit.WriteFile(t, root, rel, []byte(mine))
	sk, err := Parse(rel, []byte(mine))
	if err != nil {
		t.Fatal(err)
	}
	return []apply.NewFile{{Path: "registry/skill-review-pr.yaml", Content: Document(sk, "", "")}}, []Skill{sk}
}

// Adopt declares the skill and removes the person's file, and only then: whatever
// stands in the way leaves the workspace exactly as it was.
func TestAdopt(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	files, skills := adoption(t, root)
	if err := Apply(workspacefs.OS{}, root, registry.ConfigName, files, skills); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".claude/skills/review-pr/SKILL.md")); !os.IsNotExist(err) {
		t.Errorf("the hand-written file is still there: %v", err)
	}
	out := controller.Reconcile(controller.Request{System: workspacefs.OS{}, Root: root})
	if out.Err != nil || len(out.Problems) > 0 {
		t.Fatal(out.Err, out.Problems)
	}
	data, err := os.ReadFile(filepath.Join(root, ".qwen/skills/review-pr/SKILL.md"))
	if err != nil || !strings.HasSuffix(string(data), "\n---\n\nReview it.\n") {
		t.Errorf("generated copy: %q, %v", data, err)
	}
}

func TestAdoptChangesNothingWhenItCannot(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, root string, files []apply.NewFile)
		says  string
	}{
		{"the file changed since it was read", func(t *testing.T, root string, _ []apply.NewFile) {
			testkit.WriteFile(t, root, ".claude/skills/review-pr/SKILL.md", []byte(mine+"more\n"))
		}, "changed since it was read"},
		{"the file became a symlink", func(t *testing.T, root string, _ []apply.NewFile) {
			testkit.WriteFile(t, root, "elsewhere.md", []byte(mine))
			p := filepath.Join(root, ".claude/skills/review-pr/SKILL.md")
			os.Remove(p)
			if err := os.Symlink("../../../elsewhere.md", p); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"the skill directory became a symlink", func(t *testing.T, root string, _ []apply.NewFile) {
			testkit.WriteFile(t, root, "mine/SKILL.md", []byte(mine))
			p := filepath.Join(root, ".claude/skills/review-pr")
			os.RemoveAll(p)
			if err := os.Symlink("../../mine", p); err != nil {
				t.Fatal(err)
			}
		}, "review-pr"},
		{"the registry document exists", func(t *testing.T, root string, files []apply.NewFile) {
			testkit.WriteFile(t, root, files[0].Path, []byte("# mine\n"))
		}, "already exists"},
		{"the name is disabled, so it would not be written back", func(t *testing.T, root string, _ []apply.NewFile) {
			disable(t, root, "review-pr")
		}, "would not write review-pr back"},
		{"the registry does not load with it", func(t *testing.T, root string, files []apply.NewFile) {
			// A capability already has the alias review-pr.
			testkit.WriteFile(t, root, "registry/taken.yaml", []byte("apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: pr.review}\n"+
				"spec:\n  title: Review\n  effect: read\n  input: {type: object}\n  mcp: {tool: review}\n  skill: {alias: review-pr}\n"))
		}, "does not load"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := testkit.ExampleWorkspace(t)
			files, skills := adoption(t, root)
			c.setup(t, root, files)
			before := testkit.Tree(t, root)
			err := Apply(workspacefs.OS{}, root, registry.ConfigName, files, skills)
			if err == nil || !strings.Contains(err.Error(), c.says) {
				t.Errorf("err %v, want it to say %q", err, c.says)
			}
			if !maps.Equal(before, testkit.Tree(t, root)) {
				t.Error("the workspace changed")
			}
		})
	}
}

// wholeAdoption is what adopt would write for review-pr of root with a
// supporting file: the skill directory whole, beside its document.
func wholeAdoption(t *testing.T, root string) ([]apply.NewFile, []Skill) {
	t.Helper()
	_, skills := adoption(t, root)
	script := []byte("#!/bin/sh\necho review\n")
	testkit.WriteFile(t, root, ".claude/skills/review-pr/scripts/run.sh", script)
	skills[0].Files = []registry.SupportFile{{Path: "scripts/run.sh", Data: script, Sum: sha256.Sum256(script)}}
	planned, err := Files([]string{"registry/*.yaml"}, skills, false)
	if err != nil {
		t.Fatal(err)
	}
	var files []apply.NewFile
	for _, f := range planned {
		files = append(files, apply.NewFile(f))
	}
	return files, skills
}

// A skill directory is adopted whole or not at all: a refusal takes the
// folders adopt made with the files, and a folder there already, which would
// add what it holds to the skill, is refused.
func TestAdoptingASkillDirectoryLeavesNoFolderBehind(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, root string)
		says  string
	}{
		{"the name is disabled, so it would not be written back", func(t *testing.T, root string) {
			disable(t, root, "review-pr")
		}, "would not write review-pr back"},
		{"the skill directory is there already", func(t *testing.T, root string) {
			testkit.WriteFile(t, root, "registry/skills/review-pr/private.txt", []byte("a person's notes\n"))
		}, "registry/skills/review-pr already exists"},
		{"an empty skill directory is there already", func(t *testing.T, root string) {
			if err := os.MkdirAll(filepath.Join(root, "registry/skills/review-pr"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, "registry/skills/review-pr already exists"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := testkit.ExampleWorkspace(t)
			files, skills := wholeAdoption(t, root)
			c.setup(t, root)
			before := testkit.Tree(t, root)
			err := Apply(workspacefs.OS{}, root, registry.ConfigName, files, skills)
			if err == nil || !strings.Contains(err.Error(), c.says) {
				t.Errorf("err %v, want it to say %q", err, c.says)
			}
			after := testkit.Tree(t, root)
			for p := range after {
				if _, ok := before[p]; !ok {
					t.Errorf("left behind: %s", p)
				}
			}
			if !maps.Equal(before, after) {
				t.Error("the workspace changed")
			}
		})
	}
}

// disable lists name in spec.disabled of root's skillsync.yaml.
func disable(t *testing.T, root, name string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "skillsync.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, root, "skillsync.yaml", []byte(strings.Replace(string(data), "disabled: []", "disabled: ["+name+"]", 1)))
}
