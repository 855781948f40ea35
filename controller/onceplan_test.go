package controller

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// syncedThings is a workspace of 3 capabilities in sync in .claude/skills, whose
// files are old enough for their stamps to stand for what a pass reads.
func syncedThings(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	testkit.WriteFile(t, root, "skillsync.yaml", []byte("apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n  targets: [claude-code]\n"))
	testkit.WriteFile(t, root, "registry/things.yaml", []byte(capabilitiesFile(3, nil)))
	if out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root}, time.Second); out.Err != nil || out.Plan.Count(plan.Create) != 3 {
		t.Fatalf("first run: %s", summary(out))
	}
	// A stamp younger than a tick of the clock stands for nothing (a change
	// within the tick would keep it): let the files age past one.
	time.Sleep(250 * time.Millisecond)
	testkit.WriteFile(t, root, "registry/things.yaml", []byte(capabilitiesFile(3, map[int]string{1: "List things, again"})))
	return root
}

// A --once run that has something to write plans without the lock, then takes it;
// when nothing it read changed meanwhile, it applies that plan without reading
// the targets again.
func TestAOnceRunKeepsItsPlanUnderTheLock(t *testing.T) {
	root := syncedThings(t)
	var reads atomic.Int32
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "ReadRegular", Path: ".claude/skills/*/SKILL.md", Before: func(string) { reads.Add(1) }}}}
	out := ReconcileOnce(Request{System: sys, Root: root}, time.Second)
	if out.Err != nil || len(out.Problems) > 0 || out.Plan.Count(plan.Update) != 1 || len(out.Applied) != 1 {
		t.Fatalf("the run: %s", summary(out))
	}
	// Each file once by the scan; the one updated once more, as the writer makes
	// sure it still holds what was planned on.
	if got := reads.Load(); got != 4 {
		t.Errorf("the run read the generated files %d times, want 4 (3 by one scan, 1 by the update's check)", got)
	}
}

// A file a person changes after the plan was made and before the lock was taken
// is read again, and planned on as it is now: here, kept as edited by hand.
func TestAOnceRunScansAgainWhatChangedBeforeItsLock(t *testing.T) {
	root := syncedThings(t)
	edited := filepath.Join(root, ".claude/skills/things-1/SKILL.md")
	sys := beforeTheLock(func() {
		data, err := os.ReadFile(edited)
		if err != nil {
			t.Error(err)
			return
		}
		if err := os.WriteFile(edited, []byte(strings.Replace(string(data), "List things 1", "Listing things, my way", 1)), 0o644); err != nil {
			t.Error(err)
		}
	})
	out := ReconcileOnce(Request{System: sys, Root: root}, time.Second)
	if out.Err != nil || len(out.Problems) > 0 || out.Plan.Count(plan.Conflict) != 1 || len(out.Applied) != 0 {
		t.Fatalf("a file edited before the lock: %s", summary(out))
	}
	if data, _ := os.ReadFile(edited); !strings.Contains(string(data), "my way") {
		t.Errorf("the person's edit is gone:\n%s", data)
	}
}

// agedEdit is syncedThings with the edit old enough for its stamp to stand for
// what a pass reads.
func agedEdit(t *testing.T) string {
	t.Helper()
	root := syncedThings(t)
	time.Sleep(250 * time.Millisecond)
	return root
}

// An input saved after the plan was made and before the lock was taken is
// loaded again, and its new content is what the run writes.
func TestAOnceRunLoadsAgainAnInputSavedBeforeItsLock(t *testing.T) {
	root := agedEdit(t)
	sys := beforeTheLock(func() {
		testkit.WriteFile(t, root, "registry/things.yaml", []byte(capabilitiesFile(3, map[int]string{1: "List things, thrice"})))
	})
	out := ReconcileOnce(Request{System: sys, Root: root}, time.Second)
	if out.Err != nil || len(out.Problems) > 0 || len(out.Applied) != 1 {
		t.Fatalf("the run: %s", summary(out))
	}
	if data, _ := os.ReadFile(filepath.Join(root, ".claude/skills/things-1/SKILL.md")); !strings.Contains(string(data), "thrice") {
		t.Errorf("the run wrote what the input held before the save:\n%s", data)
	}
}

// In a fresh clone, with no .skillsync/ yet and a target directory missing, the
// plan made before the lock stands too, though taking the lock makes
// .skillsync/ in the workspace root, the directory above the missing target.
func TestAOnceRunInAFreshCloneKeepsItsPlan(t *testing.T) {
	root := syncedThings(t)
	if err := os.RemoveAll(filepath.Join(root, ".skillsync")); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, root, "skillsync.yaml", []byte("apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n  targets: [claude-code, agents]\n"))
	time.Sleep(250 * time.Millisecond)
	var reads atomic.Int32
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "ReadRegular", Path: ".claude/skills/*/SKILL.md", Before: func(string) { reads.Add(1) }}}}
	out := ReconcileOnce(Request{System: sys, Root: root}, time.Second)
	if out.Err != nil || len(out.Problems) > 0 || out.Plan.Count(plan.Update) != 1 || out.Plan.Count(plan.Create) != 3 {
		t.Fatalf("the run: %s", summary(out))
	}
	if got := reads.Load(); got != 4 {
		t.Errorf("the run read .claude's generated files %d times, want 4 (3 by one scan, 1 by the update's check)", got)
	}
}

// A missing target directory that a person makes, with a file in it, after the
// plan and before the lock is scanned: the file is kept as theirs.
func TestAOnceRunScansATargetMadeBeforeItsLock(t *testing.T) {
	root := syncedThings(t)
	if err := os.RemoveAll(filepath.Join(root, ".skillsync")); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, root, "skillsync.yaml", []byte("apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n  targets: [claude-code, agents]\n"))
	time.Sleep(250 * time.Millisecond)
	mine := []byte("---\nname: things-0\ndescription: mine\n---\n\nMy own.\n")
	sys := beforeTheLock(func() {
		testkit.WriteFile(t, root, ".agents/skills/things-0/SKILL.md", mine)
	})
	out := ReconcileOnce(Request{System: sys, Root: root}, time.Second)
	if out.Err != nil || len(out.Problems) > 0 || out.Plan.Count(plan.Create) != 2 {
		t.Fatalf("the run: %s", summary(out))
	}
	if data, _ := os.ReadFile(filepath.Join(root, ".agents/skills/things-0/SKILL.md")); string(data) != string(mine) {
		t.Errorf("the person's file is not as they wrote it:\n%s", data)
	}
}

// Under the lock the inputs' stamps tell that they are as the plan loaded them:
// a run reads a skill directory's files once.
func TestAOnceRunReadsItsInputsOnce(t *testing.T) {
	root := releaseEdited(t)
	var reads atomic.Int32
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "ReadRegular", Path: "skills/release/*", Before: func(string) { reads.Add(1) }}}}
	out := ReconcileOnce(Request{System: sys, Root: root}, time.Second)
	if out.Err != nil || len(out.Problems) > 0 || len(out.Applied) != 2 {
		t.Fatalf("the run: %s", summary(out))
	}
	if got := reads.Load(); got != 1 {
		t.Errorf("the run read skills/release/SKILL.md %d times, want 1", got)
	}
}

// A client's side file in a skill directory, edited in place after the plan was
// made and before the lock was taken (its folder's stamp stays), is loaded again:
// the run writes what it holds now.
func TestAOnceRunLoadsAgainASideFileEditedBeforeItsLock(t *testing.T) {
	root := releaseEdited(t)
	sys := beforeTheLock(func() {
		appendTo(t, root, "skills/release/agents/openai.yaml", "  short_description: \"Ship it\"\n")
	})
	out := ReconcileOnce(Request{System: sys, Root: root}, time.Second)
	if out.Err != nil || len(out.Problems) > 0 || len(out.Applied) != 3 {
		t.Fatalf("the run: %s", summary(out))
	}
	if data, _ := os.ReadFile(filepath.Join(root, ".agents/skills/release/agents/openai.yaml")); !strings.Contains(string(data), "Ship it") {
		t.Errorf("the run wrote what the side file held before the edit:\n%s", data)
	}
}

// beforeTheLock is the disk, where edit runs once, as a --once run takes the
// lock: after its plan, before it writes.
func beforeTheLock(edit func()) *workspacefs.Faulty {
	return &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "OpenFile", Path: ".skillsync/lock", Times: 1, Before: func(string) { edit() }}}}
}

// releaseEdited is skillDirWithSideFile with release's SKILL.md edited, old
// enough for its stamp to stand for what a pass reads.
func releaseEdited(t *testing.T) string {
	t.Helper()
	root := skillDirWithSideFile(t)
	testkit.WriteFile(t, root, "skills/release/SKILL.md", []byte("---\nname: release\ndescription: Cut a release.\n---\n\nTag it, then ship it.\n"))
	time.Sleep(250 * time.Millisecond)
	return root
}
