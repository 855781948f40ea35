package controller

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// A folder of a skill that becomes a file: its files are deleted, then the
// folder, then the file is written. A run stopped after the deletes leaves the
// folder empty; the next one removes it and writes the file, with no conflict.
func TestAFolderEmptiedByAStoppedRunMakesWayForItsFile(t *testing.T) {
	ref := ".agents/skills/release/refs/r.md"
	// What the run that deletes refs/r.md leaves when it stops right after the
	// remove, or after moving the file aside, before the remove.
	for name, stop := range map[string]func(root string) error{
		"removed": func(root string) error { return os.Remove(filepath.Join(root, ref)) },
		"moved aside": func(root string) error {
			return os.Rename(filepath.Join(root, ref), filepath.Join(root, filepath.Dir(ref), banner.StagedName([]byte("a reference\n"))))
		},
	} {
		t.Run(name, func(t *testing.T) {
			root := releaseInSync(t)
			testkit.WriteFile(t, root, "skills/release/refs/r.md", []byte("a reference\n"))
			reconcileClean(t, root)
			if err := os.RemoveAll(filepath.Join(root, "skills/release/refs")); err != nil {
				t.Fatal(err)
			}
			testkit.WriteFile(t, root, "skills/release/refs", []byte("now a file\n"))
			if err := stop(root); err != nil {
				t.Fatal(err)
			}
			out := Reconcile(Request{System: workspacefs.OS{}, Root: root})
			if out.Err != nil || len(out.Problems) > 0 {
				t.Fatalf("next run: %v %v", out.Err, out.Problems)
			}
			for _, c := range out.Plan.Changes {
				if c.Action == plan.Conflict {
					t.Errorf("conflict: %s: %s", c.Path, c.Reason)
				}
			}
			if got, err := os.ReadFile(filepath.Join(root, ".agents/skills/release/refs")); err != nil || string(got) != "now a file\n" {
				t.Fatalf("refs after the next run: %q %v, want the file", got, err)
			}
			if again := Reconcile(Request{System: workspacefs.OS{}, Root: root}); len(again.Plan.Changes) != 0 {
				t.Errorf("not converged: %+v", again.Plan.Changes)
			}
		})
	}
}

// A folder of the person's own, empty, where the skill wants a file stays, a
// conflict, as any folder of theirs in the way.
func TestAPersonsEmptyFolderWhereTheSkillWantsAFileStays(t *testing.T) {
	root := releaseInSync(t)
	if err := os.MkdirAll(filepath.Join(root, ".agents/skills/release/refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, root, "skills/release/refs", []byte("a file\n"))
	out := Reconcile(Request{System: workspacefs.OS{}, Root: root})
	if c, ok := changeAt(out.Plan, ".agents/skills/release/refs"); !ok || c.Action != plan.Conflict {
		t.Errorf("a person's empty folder where the skill wants a file: %+v, want a conflict", c)
	}
	if info, err := os.Stat(filepath.Join(root, ".agents/skills/release/refs")); err != nil || !info.IsDir() {
		t.Errorf("the person's folder is gone: %v", err)
	}
}
