package workspacegen

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// The workspace of whole skill directories is valid, and generates every file of
// every directory in each target, the script executable and the binary byte for
// byte; a changed supporting file and a changed SKILL.md each update their skill
// in the three targets only.
func TestSkillDirsReconcileWhole(t *testing.T) {
	const n = 12
	dir := filepath.Join(t.TempDir(), "ws")
	if err := WriteSkillDirs(dir, n); err != nil {
		t.Fatal(err)
	}
	out := controller.Reconcile(controller.Request{System: workspacefs.OS{}, Root: dir})
	if len(out.Problems) > 0 || out.Err != nil {
		t.Fatalf("%v %v", out.Problems, out.Err)
	}
	if got := out.Plan.Count(plan.Create); got != SkillDirsFiles(n) {
		t.Errorf("%d files to create, want %d", got, SkillDirsFiles(n))
	}
	for _, target := range []string{".claude/skills", ".qwen/skills", ".agents/skills"} {
		gen := filepath.Join(dir, target, SkillDirName(3))
		src := filepath.Join(dir, SkillDirSource(3))
		for _, rel := range []string{"icon.png", "run.sh", SupportingFile} {
			a, _ := os.ReadFile(filepath.Join(gen, rel))
			b, _ := os.ReadFile(filepath.Join(src, rel))
			if len(b) == 0 || !bytes.Equal(a, b) {
				t.Errorf("%s/%s differs from its source", gen, rel)
			}
		}
		if info, err := os.Stat(filepath.Join(gen, "run.sh")); err != nil || info.Mode().Perm()&0o100 == 0 {
			t.Errorf("%s/run.sh is not executable: %v", gen, err)
		}
	}

	if err := WriteSkillDirFile(dir, 5, SupportingFile, SupportingText(5, "Edited")); err != nil {
		t.Fatal(err)
	}
	if err := WriteSkillDirFile(dir, 7, "SKILL.md", SkillMD(7, "Edited")); err != nil {
		t.Fatal(err)
	}
	out = controller.Reconcile(controller.Request{System: workspacefs.OS{}, Root: dir, Check: true})
	if len(out.Problems) > 0 || out.Err != nil {
		t.Fatal(out.Problems, out.Err)
	}
	// The supporting file and the SKILL.md naming its new digest, in 3 targets;
	// the other SKILL.md in 3 targets.
	if got := out.Plan.Pending(); got != 9 {
		t.Errorf("%d changes pending, want 9", got)
	}
}
