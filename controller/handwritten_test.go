package controller

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// withheldFrom lists the targets a pass withholds skill from because a person's
// file holds its name.
func withheldFrom(out Outcome, skill string) []string {
	var targets []string
	for _, w := range out.Withheld {
		if w.Skill == skill && len(w.HandWritten) > 0 {
			targets = append(targets, w.Target)
		}
	}
	return targets
}

// Only a skill a person wrote takes a name from the other targets: a generated
// file that git converted to CRLF or an editor gave a byte-order mark, a copy
// whose banner names another path, or a symlinked skill directory, is a conflict
// where it lies and nothing more.
func TestOnlyHandWrittenSkillsTakeANameFromTheOtherTargets(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	if out := Reconcile(Request{System: workspacefs.OS{}, Root: root}); out.Err != nil {
		t.Fatal(out.Err)
	}
	read := func(rel string) []byte {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	write := func(rel string, data []byte) {
		if err := os.WriteFile(filepath.Join(root, rel), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".qwen/skills/intent/SKILL.md", bytes.ReplaceAll(read(".qwen/skills/intent/SKILL.md"), []byte("\n"), []byte("\r\n")))
	write(".qwen/skills/note/SKILL.md", read(".claude/skills/note/SKILL.md"))
	write(".qwen/skills/find-intent/SKILL.md", append([]byte("\xef\xbb\xbf"), read(".qwen/skills/find-intent/SKILL.md")...))
	// A symlinked skill directory may lead to skillsync's own output.
	if err := os.RemoveAll(filepath.Join(root, ".qwen/skills/weekly-report")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../.claude/skills/weekly-report", filepath.Join(root, ".qwen/skills/weekly-report")); err != nil {
		t.Fatal(err)
	}
	out := Reconcile(Request{System: workspacefs.OS{}, Root: root, Check: true})
	if out.Err != nil || out.Plan.Count(plan.Conflict) != 4 {
		t.Fatalf("err %v, %d conflicts, want the four files", out.Err, out.Plan.Count(plan.Conflict))
	}
	for _, skill := range []string{"intent", "note", "find-intent", "weekly-report"} {
		if got := withheldFrom(out, skill); got != nil {
			t.Errorf("%s withheld from %q for a generated file in disguise", skill, got)
		}
	}

	write(".qwen/skills/note/SKILL.md", []byte("---\nname: note\ndescription: mine\n---\nmy own\n"))
	out = Reconcile(Request{System: workspacefs.OS{}, Root: root, Check: true})
	if got := withheldFrom(out, "note"); !slices.Equal(got, []string{"agents", "claude-code"}) {
		t.Errorf("note withheld from %q, want the two other targets", got)
	}
	if out.Plan.Count(plan.Delete) != 3 {
		t.Errorf("%d deletes, want the generated note in .claude and .agents and its policy file", out.Plan.Count(plan.Delete))
	}
}
