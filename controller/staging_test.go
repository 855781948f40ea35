package controller

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// Staging every write ahead of its step must leave nothing a later run takes
// for a person's: no folder that no manifest names, no temp file under a name
// its content does not give, whether a step fails, the flush fails, or the run
// is killed at a flush.

// writeRelease writes a workspace at root declaring skills/*, with the skill
// release (SKILL.md and checklist.md), for targets (a YAML list).
func writeRelease(t *testing.T, root, targets string) {
	t.Helper()
	testkit.WriteFile(t, root, "skillsync.yaml", []byte("apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  skillDirs: [skills/*]\n  targets: "+targets+"\n"))
	testkit.WriteFile(t, root, "skills/release/SKILL.md", []byte("---\nname: release\ndescription: Cut a release.\n---\n\nFollow [the checklist](checklist.md).\n"))
	testkit.WriteFile(t, root, "skills/release/checklist.md", []byte("- tag\n"))
}

// releaseInSync is writeRelease's workspace for the agents target, in sync.
func releaseInSync(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	writeRelease(t, root, "[agents]")
	reconcileClean(t, root)
	return root
}

func reconcileClean(t *testing.T, root string) {
	t.Helper()
	if out := Reconcile(Request{System: workspacefs.OS{}, Root: root}); out.Err != nil || len(out.Problems) > 0 {
		t.Fatalf("reconcile: %v %v", out.Err, out.Problems)
	}
}

// killedAtFlush runs a reconcile that stops dead as the n-th flush begins, as a
// kill would, running only its deferred closes.
func killedAtFlush(root string, n int) {
	flushes := 0
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{{Op: "Flush", Before: func(string) {
		if flushes++; flushes == n {
			runtime.Goexit()
		}
	}}}}
	done := make(chan struct{})
	go func() { defer close(done); Reconcile(Request{System: sys, Root: root}) }()
	<-done
}

func assertAbsent(t *testing.T, root, rel string) {
	t.Helper()
	if _, err := os.Lstat(filepath.Join(root, rel)); err == nil {
		t.Errorf("%s is left behind", rel)
	}
}

// A step that fails discards the later steps of its skill directory, and the
// folder a new file of theirs would go in is not made.
func TestAFailedStepLeavesNoFolder(t *testing.T) {
	root := releaseInSync(t)
	testkit.WriteFile(t, root, "skills/release/checklist.md", []byte("- tag\n- push\n"))
	testkit.WriteFile(t, root, "skills/release/ref/new.md", []byte("new\n"))
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "Rename", Path: ".agents/skills/release/checklist.md", Err: syscall.EACCES, Times: 1}}}
	if out := Reconcile(Request{System: sys, Root: root}); out.Err == nil {
		t.Fatal("the failed rename was not reported")
	}
	assertAbsent(t, root, ".agents/skills/release/ref")
	// The skill now wants a file where that folder would have been.
	os.RemoveAll(filepath.Join(root, "skills/release/ref"))
	testkit.WriteFile(t, root, "skills/release/ref", []byte("a file now\n"))
	reconcileClean(t, root)
	testkit.AssertNoTempFiles(t, root)
}

// A failed flush puts nothing in place and leaves no folder of a new skill
// behind once the skill is gone.
func TestAFailedFlushLeavesNoFolder(t *testing.T) {
	root := releaseInSync(t)
	testkit.WriteFile(t, root, "skills/deploy/SKILL.md", []byte("---\nname: deploy\ndescription: Deploy.\n---\n\nSee [the notes](ref/x.md).\n"))
	testkit.WriteFile(t, root, "skills/deploy/ref/x.md", []byte("x\n"))
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{{Op: "Flush", Err: syscall.EIO}}}
	if out := Reconcile(Request{System: sys, Root: root}); out.Err == nil {
		t.Fatal("the failed flush was not reported")
	}
	os.RemoveAll(filepath.Join(root, "skills/deploy"))
	reconcileClean(t, root)
	assertAbsent(t, root, ".agents/skills/deploy")
}

// A run killed at any flush, whatever it staged, leaves what the next runs
// clean up: a new file's folder, and an update and a create of the same bytes
// in one directory (one staged name for both).
func TestARunKilledAtAFlushLeavesNothingBehind(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(root string)
		gone   string // no longer wanted after the kill, and must not be left
	}{
		{"a file in a new folder", func(root string) {
			testkit.WriteFile(t, root, "skills/release/checklist.md", []byte("- tag\n- push\n"))
			testkit.WriteFile(t, root, "skills/release/ref/new.md", []byte("new\n"))
		}, "ref"},
		{"an update and a create of the same bytes", func(root string) {
			testkit.WriteFile(t, root, "skills/release/checklist.md", []byte("same bytes\n"))
			testkit.WriteFile(t, root, "skills/release/other.md", []byte("same bytes\n"))
		}, "other.md"},
	} {
		for n := 1; n <= 2; n++ {
			t.Run(fmt.Sprintf("%s, flush %d", c.name, n), func(t *testing.T) {
				root := releaseInSync(t)
				c.change(root)
				killedAtFlush(root, n)
				os.RemoveAll(filepath.Join(root, "skills/release", c.gone))
				reconcileClean(t, root)
				reconcileClean(t, root)
				assertAbsent(t, root, filepath.Join(".agents/skills/release", c.gone))
				testkit.AssertNoTempFiles(t, root)
			})
		}
	}
}
