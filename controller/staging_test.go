package controller

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/skillsync/skillsync/internal/banner"

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
		{Op: "Exchange", Path: ".agents/skills/release/checklist.md", Err: syscall.EACCES, Times: 1}}}
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

// writeDeploy adds the skill deploy, whose files are in two folders of its own.
func writeDeploy(t *testing.T, root string) {
	t.Helper()
	testkit.WriteFile(t, root, "skills/deploy/SKILL.md", []byte("---\nname: deploy\ndescription: Deploy.\n---\n\nSee [the notes](ref/x.md), [more](ref/deep/y.md) and [the steps](steps.md).\n"))
	testkit.WriteFile(t, root, "skills/deploy/steps.md", []byte("1. deploy\n"))
	testkit.WriteFile(t, root, "skills/deploy/ref/x.md", []byte("x\n"))
	testkit.WriteFile(t, root, "skills/deploy/ref/deep/y.md", []byte("y\n"))
}

// addToRelease gives release, which is in sync, a file in a folder it does not
// have yet.
func addToRelease(t *testing.T, root string) {
	t.Helper()
	testkit.WriteFile(t, root, "skills/release/SKILL.md", []byte("---\nname: release\ndescription: Cut a release.\n---\n\nFollow [the checklist](checklist.md) and [the notes](ref/deep/notes.md).\n"))
	testkit.WriteFile(t, root, "skills/release/ref/deep/notes.md", []byte("notes\n"))
}

// countFlushes is the OS with every flush counted in n.
func countFlushes(n *atomic.Int32) workspacefs.System {
	return &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{{Op: "Flush", Before: func(string) { n.Add(1) }}}}
}

// Files in folders that are not there yet, of a new skill directory or of one
// that was there, are staged with the rest, under one flush.
func TestNewFoldersAreStagedWithTheRest(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(t *testing.T, root string)
		files  []string
	}{
		{"a new skill directory", writeDeploy, []string{"deploy/ref/x.md", "deploy/ref/deep/y.md"}},
		{"a skill directory that was there", addToRelease, []string{"release/ref/deep/notes.md"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := releaseInSync(t)
			c.change(t, root)
			var flushes atomic.Int32
			if out := Reconcile(Request{System: countFlushes(&flushes), Root: root}); out.Err != nil || len(out.Problems) > 0 || len(out.Applied) == 0 {
				t.Fatalf("the run: %s", summary(out))
			}
			if got := flushes.Load(); got != 1 {
				t.Errorf("%d flushes, want 1", got)
			}
			for _, f := range c.files {
				if _, err := os.Stat(filepath.Join(root, ".agents/skills", f)); err != nil {
					t.Errorf("not written: %v", err)
				}
			}
			testkit.AssertNoTempFiles(t, root)
			assertNoTempFolders(t, root)
		})
	}
}

// assertNoTempFolders fails if a folder of a temp name is left under root.
func assertNoTempFolders(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && banner.IsTempName(d.Name()) {
			t.Errorf("temp folder left: %s", p)
		}
		return nil
	})
}

// A run stopped while it stages files in folders that are not there yet, at any
// point, leaves what the next run cleans up, whether it still wants those files
// or no longer does: a folder made under a temp name, one made inside it, each
// empty or not, a file in it cut short while it was written, or the folder put
// in place with staged files in it. The tree as the fault finds it is copied, as
// a kill would leave it.
func TestARunKilledWhileItMakesFoldersLeavesNothingBehind(t *testing.T) {
	for _, skill := range []struct {
		name   string
		change func(t *testing.T, root string)
		undo   func(t *testing.T, root string)
		gone   string
	}{
		{"a new skill directory", writeDeploy, func(t *testing.T, root string) { os.RemoveAll(filepath.Join(root, "skills/deploy")) }, ".agents/skills/deploy"},
		{"a skill directory that was there", addToRelease, func(t *testing.T, root string) {
			os.RemoveAll(filepath.Join(root, "skills/release/ref"))
			writeRelease(t, root, "[agents]")
		}, ".agents/skills/release/ref"},
	} {
		for _, at := range []struct {
			name   string
			faults []workspacefs.Fault // the first to strike is where the run stops
			cut    bool                // the file the fault's write is of is left cut short
			// onlyNew says the fault strikes only in a new skill directory.
			onlyNew bool
		}{
			// A new skill directory is the temp folder; in one that was there,
			// its new folder ref is.
			{"the temp folder made, nothing in it", []workspacefs.Fault{
				{Op: "WriteNew", Path: ".agents/skills/*/.skillsync-*.tmp/*"}, {Op: "Mkdir", Path: ".agents/skills/*/.skillsync-*.tmp/*"},
				{Op: "WriteNew", Path: ".agents/skills/.skillsync-*.tmp/*"}, {Op: "Mkdir", Path: ".agents/skills/.skillsync-*.tmp/*"}}, false, false},
			{"a folder made in it, its file not yet staged", []workspacefs.Fault{
				{Op: "WriteNew", Path: ".agents/skills/*/.skillsync-*.tmp/deep/*"}, {Op: "WriteNew", Path: ".agents/skills/.skillsync-*.tmp/ref/deep/*"}}, false, false},
			{"a file in it cut short", []workspacefs.Fault{
				{Op: "WriteNew", Path: ".agents/skills/*/.skillsync-*.tmp/deep/*"}, {Op: "WriteNew", Path: ".agents/skills/.skillsync-*.tmp/ref/deep/*"}}, true, false},
			{"a file beside its SKILL.md cut short", []workspacefs.Fault{{Op: "WriteNew", Path: ".agents/skills/.skillsync-*.tmp/steps.md"}}, true, true},
			{"its SKILL.md cut short", []workspacefs.Fault{{Op: "WriteNew", Path: ".agents/skills/.skillsync-*.tmp/.skillsync-*.tmp"}}, true, true},
			{"the folder about to be put in place", []workspacefs.Fault{{Op: "RenameNoReplace", Path: ".agents/skills/*/ref"}, {Op: "RenameNoReplace", Path: ".agents/skills/deploy"}}, false, false},
			{"at the flush", []workspacefs.Fault{{Op: "Flush"}}, false, false},
		} {
			if at.onlyNew && skill.gone != ".agents/skills/deploy" {
				continue
			}
			t.Run(skill.name+", "+at.name, func(t *testing.T) {
				root := releaseInSync(t)
				skill.change(t, root)
				left := filepath.Join(t.TempDir(), "left")
				var once sync.Once
				for i := range at.faults {
					at.faults[i].Before = func(name string) {
						content := stagedContent(t, root, name)
						if at.cut && content == nil {
							return // another file's write: a SKILL.md's
						}
						once.Do(func() {
							if err := os.CopyFS(left, os.DirFS(root)); err != nil {
								t.Error(err)
							}
							if at.cut {
								testkit.WriteFile(t, left, name, content[:len(content)/2])
							}
						})
					}
				}
				Reconcile(Request{System: &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: at.faults}, Root: root})
				if _, err := os.Stat(left); err != nil {
					t.Fatalf("the fault never struck: %v", err)
				}
				wanted := filepath.Join(t.TempDir(), "wanted")
				if err := os.CopyFS(wanted, os.DirFS(left)); err != nil {
					t.Fatal(err)
				}
				reconcileClean(t, wanted)
				testkit.AssertNoTempFiles(t, wanted)
				assertNoTempFolders(t, wanted)
				if out := Reconcile(Request{System: workspacefs.OS{}, Root: wanted, Check: true}); out.Err != nil || len(out.Problems) > 0 {
					t.Errorf("the next run did not converge: %s", summary(out))
				}

				skill.undo(t, left)
				reconcileClean(t, left)
				reconcileClean(t, left)
				assertAbsent(t, left, skill.gone)
				testkit.AssertNoTempFiles(t, left)
				assertNoTempFolders(t, left)
			})
		}
	}
}

// stagedContent is the content of the file of root's skills that is staged at
// the workspace path name, or nil for none: a supporting file under its staged
// name, or any file under its own name in a new skill directory made whole
// under a temp name (its source's content, which a generated SKILL.md begins
// otherwise than, but which is as good a start of a file cut short).
func stagedContent(t *testing.T, root, name string) []byte {
	t.Helper()
	inWhole := ""
	if parts := strings.SplitN(name, "/", 4); len(parts) == 4 && banner.IsTempName(parts[2]) {
		inWhole = parts[3]
		if banner.IsTempName(inWhole) {
			inWhole = "SKILL.md" // written under a temp name until its folder is put in place
		}
	}
	var found []byte
	err := filepath.WalkDir(filepath.Join(root, "skills"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join(root, "skills"), p)
		_, inSkill, _ := strings.Cut(filepath.ToSlash(rel), "/")
		data, err := os.ReadFile(p)
		staged := filepath.Base(p) != "SKILL.md" && banner.StagedName(data) == filepath.Base(name)
		if err == nil && (inWhole != "" && inSkill == inWhole || staged) {
			found = data
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// A new skill directory that a person makes while its files are staged under a
// temp name is never replaced: the run says its SKILL.md was not written, leaves
// nothing of the attempt, and the next run writes the skill beside their file.
func TestASkillDirectoryThatAppearedIsNotReplaced(t *testing.T) {
	root := releaseInSync(t)
	writeDeploy(t, root)
	mine := filepath.Join(root, ".agents/skills/deploy/mine.txt")
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{{Op: "RenameNoReplace", Path: ".agents/skills/deploy", Times: 1, Before: func(string) {
		if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
			t.Error(err)
		}
		if err := os.WriteFile(mine, []byte("mine\n"), 0o644); err != nil {
			t.Error(err)
		}
	}}}}
	out := Reconcile(Request{System: sys, Root: root})
	if out.Err == nil || !strings.Contains(out.Err.Error(), "could not be put in place") {
		t.Errorf("the run did not say the skill directory could not be put in place: %s", summary(out))
	}
	testkit.AssertNoTempFiles(t, root)
	assertNoTempFolders(t, root)
	if _, err := os.Stat(filepath.Join(root, ".agents/skills/deploy/SKILL.md")); err == nil {
		t.Error("SKILL.md was written into the directory that appeared in the same run")
	}
	reconcileClean(t, root)
	for _, f := range []string{"SKILL.md", "ref/x.md", "ref/deep/y.md", "steps.md"} {
		if _, err := os.Stat(filepath.Join(root, ".agents/skills/deploy", f)); err != nil {
			t.Errorf("the next run: %v", err)
		}
	}
	if data, err := os.ReadFile(mine); err != nil || string(data) != "mine\n" {
		t.Errorf("the person's file: %q %v", data, err)
	}
}

// A folder of a new file that cannot be put in place (a person made one there
// meanwhile) is staged again once its SKILL.md is, into the person's folder,
// and nothing of the attempt is left.
func TestAFolderThatAppearedTakesItsFilesLater(t *testing.T) {
	root := releaseInSync(t)
	addToRelease(t, root)
	mine := filepath.Join(root, ".agents/skills/release/ref/deep")
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{{Op: "RenameNoReplace", Path: ".agents/skills/release/ref", Times: 1, Before: func(string) {
		if err := os.MkdirAll(mine, 0o755); err != nil {
			t.Error(err)
		}
	}}}}
	var flushes atomic.Int32
	sys.Faults = append(sys.Faults, workspacefs.Fault{Op: "Flush", Before: func(string) { flushes.Add(1) }})
	if out := Reconcile(Request{System: sys, Root: root}); out.Err != nil || len(out.Problems) > 0 {
		t.Fatalf("the run: %s", summary(out))
	}
	if got := flushes.Load(); got != 2 {
		t.Errorf("%d flushes, want 2 (the folder's files staged again)", got)
	}
	if data, err := os.ReadFile(filepath.Join(mine, "notes.md")); err != nil || string(data) != "notes\n" {
		t.Errorf("the file in the folder that appeared: %q %v", data, err)
	}
	testkit.AssertNoTempFiles(t, root)
	assertNoTempFolders(t, root)
}

// A person's empty folders in a skill directory stay, whatever else is there.
func TestAPersonsEmptyFolderStays(t *testing.T) {
	root := releaseInSync(t)
	for _, dir := range []string{".agents/skills/draft/scripts", ".agents/skills/release/mine"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	addToRelease(t, root)
	reconcileClean(t, root)
	for _, dir := range []string{".agents/skills/draft/scripts", ".agents/skills/release/mine"} {
		if _, err := os.Stat(filepath.Join(root, dir)); err != nil {
			t.Errorf("the person's empty folder is gone: %v", err)
		}
	}
}

// A file that cannot be staged in a new folder keeps the folder from being put
// in place, so no folder of it is left, empty or not, with the error reported.
func TestAFailedWriteInANewFolderLeavesNoFolder(t *testing.T) {
	root := releaseInSync(t)
	testkit.WriteFile(t, root, "skills/release/SKILL.md", []byte("---\nname: release\ndescription: Cut a release.\n---\n\nSee [a](ref/a/x.md) and [b](ref/b/y.md).\n"))
	testkit.WriteFile(t, root, "skills/release/ref/a/x.md", []byte("x\n"))
	testkit.WriteFile(t, root, "skills/release/ref/b/y.md", []byte("y\n"))
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "WriteNew", Path: ".agents/skills/release/.skillsync-*.tmp/a/*", Err: syscall.EIO}}}
	if out := Reconcile(Request{System: sys, Root: root}); out.Err == nil {
		t.Fatal("the failed write was not reported")
	}
	assertAbsent(t, root, ".agents/skills/release/ref")
	testkit.AssertNoTempFiles(t, root)
	assertNoTempFolders(t, root)
	reconcileClean(t, root)
	if _, err := os.Stat(filepath.Join(root, ".agents/skills/release/ref/a/x.md")); err != nil {
		t.Errorf("the next run: %v", err)
	}
}

// A failed flush removes the folders its step made for new files, and nothing
// above them: here the empty skill directory that was there before the run.
func TestAFailedFlushKeepsTheFoldersThatWereThere(t *testing.T) {
	root := releaseInSync(t)
	if err := os.MkdirAll(filepath.Join(root, ".agents/skills/deploy"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeDeploy(t, root)
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{{Op: "Flush", Err: syscall.EIO}}}
	if out := Reconcile(Request{System: sys, Root: root}); out.Err == nil {
		t.Fatal("the failed flush was not reported")
	}
	if _, err := os.Lstat(filepath.Join(root, ".agents/skills/deploy")); err != nil {
		t.Errorf("the empty skill directory that was there before the run is gone: %v", err)
	}
	assertAbsent(t, root, ".agents/skills/deploy/ref")
	assertNoTempFolders(t, root)
}

// A folder inside a new one that cannot be opened keeps the new one from being
// put in place: a run then stopped at the flush leaves nothing the next runs
// take for a person's.
func TestAFolderThatCannotBeOpenedKeepsItsNewFolderOut(t *testing.T) {
	root := releaseInSync(t)
	writeDeploy(t, root)
	// An edit of release's checklist gives the run a file to flush.
	testkit.WriteFile(t, root, "skills/release/checklist.md", []byte("- tag\n- push\n"))
	var struck, flushed atomic.Bool
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "Sub", Path: ".agents/skills/.skillsync-*.tmp/ref/deep", Err: syscall.EMFILE, Times: 1, Before: func(string) { struck.Store(true) }},
		{Op: "Flush", Before: func(string) { flushed.Store(true); runtime.Goexit() }},
	}}
	done := make(chan struct{})
	go func() { defer close(done); Reconcile(Request{System: sys, Root: root}) }()
	<-done
	if !struck.Load() || !flushed.Load() {
		t.Fatalf("the folder was opened %v, the run stopped at the flush %v; want both", struck.Load(), flushed.Load())
	}
	os.RemoveAll(filepath.Join(root, "skills/deploy"))
	reconcileClean(t, root)
	reconcileClean(t, root)
	assertAbsent(t, root, ".agents/skills/deploy")
	assertNoTempFolders(t, root)
	testkit.AssertNoTempFiles(t, root)
}

// A skill directory's step holds open at most maxHeldFolders new folders in a
// skill directory that was there until they are put in place; the files of
// further ones wait for their SKILL.md.
func TestManyNewFoldersWaitBeyondTheOnesHeldOpen(t *testing.T) {
	root := releaseInSync(t)
	testkit.WriteFile(t, root, "skills/deploy/SKILL.md", []byte("---\nname: deploy\ndescription: Deploy.\n---\n\n"))
	reconcileClean(t, root)
	writeDeployInFolders(t, root)
	var flushes atomic.Int32
	if out := Reconcile(Request{System: countFlushes(&flushes), Root: root}); out.Err != nil || len(out.Problems) > 0 {
		t.Fatalf("the run: %s", summary(out))
	}
	if got := flushes.Load(); got != 2 {
		t.Errorf("%d flushes, want 2 (the folders beyond those held open staged after their SKILL.md)", got)
	}
	assertDeployInFolders(t, root)
	testkit.AssertNoTempFiles(t, root)
	assertNoTempFolders(t, root)
}

// A new skill directory is written whole under a temp name, each file under its
// own name, and put in place by one rename once the flush made them durable:
// however many folders it has, no file is renamed on its own, and nothing of it
// is in place before the flush.
func TestANewSkillDirectoryIsPutInPlaceWhole(t *testing.T) {
	root := releaseInSync(t)
	writeDeployInFolders(t, root)
	var mu sync.Mutex
	var flushes int
	var renamed []string
	note := func(op string) func(string) {
		return func(name string) {
			mu.Lock()
			defer mu.Unlock()
			if op == "Flush" {
				flushes++
				return
			}
			renamed = append(renamed, fmt.Sprintf("%s %s after %d flushes", op, name, flushes))
		}
	}
	var faults []workspacefs.Fault
	for _, op := range []string{"Flush", "Rename", "RenameNoReplace", "Link"} {
		faults = append(faults, workspacefs.Fault{Op: op, Before: note(op)})
	}
	if out := Reconcile(Request{System: &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: faults}, Root: root}); out.Err != nil || len(out.Problems) > 0 {
		t.Fatalf("the run: %s", summary(out))
	}
	// Its SKILL.md waits under a temp name until the folder goes in place.
	// Where a rename cannot refuse to replace (the portable implementation), a
	// plain rename follows each refused one.
	temp := regexp.MustCompile(`\.skillsync-[0-9a-f]{16}\.tmp`)
	for i := range renamed {
		renamed[i] = temp.ReplaceAllString(renamed[i], "TEMP")
	}
	want := [][]string{
		{"RenameNoReplace .agents/skills/TEMP/SKILL.md after 1 flushes", "RenameNoReplace .agents/skills/deploy after 1 flushes"},
		{"RenameNoReplace .agents/skills/TEMP/SKILL.md after 1 flushes", "Rename .agents/skills/TEMP/SKILL.md after 1 flushes",
			"RenameNoReplace .agents/skills/deploy after 1 flushes", "Rename .agents/skills/deploy after 1 flushes"},
	}
	if !slices.ContainsFunc(want, func(w []string) bool { return slices.Equal(renamed, w) }) {
		t.Errorf("renamed and linked:\n%s\nwant one of %q", strings.Join(renamed, "\n"), want)
	}
	assertDeployInFolders(t, root)
	if out := Reconcile(Request{System: workspacefs.OS{}, Root: root, Check: true}); out.Err != nil || len(out.Problems) > 0 {
		t.Errorf("not in sync after the run: %s", summary(out))
	}
	testkit.AssertNoTempFiles(t, root)
	assertNoTempFolders(t, root)
}

// A new skill directory made whole that cannot be put in place is emptied
// through folders opened from the root, which follow no symlink: a folder in
// it, or the folder itself, swapped meanwhile for a link to a person's files
// keeps those files.
func TestAWholeFolderLeftOutRemovesNothingThroughALink(t *testing.T) {
	for _, c := range []struct {
		name  string
		fault workspacefs.Fault
		swap  func(t *testing.T, root, temp string)
		mine  []string
	}{
		{"its folder ref made a link", workspacefs.Fault{Op: "RenameNoReplace", Path: ".agents/skills/deploy", Err: syscall.EEXIST},
			func(t *testing.T, root, temp string) {
				if err := os.Rename(filepath.Join(temp, "ref"), filepath.Join(root, "moved-ref")); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink("../../../docs", filepath.Join(temp, "ref")); err != nil {
					t.Fatal(err)
				}
			}, []string{"docs/x.md", "docs/deep/y.md"}},
		{"the folder itself made a link", workspacefs.Fault{Op: "Flush", Err: syscall.EIO},
			func(t *testing.T, root, temp string) {
				if err := os.Rename(temp, filepath.Join(root, "moved-temp")); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink("../../docs", temp); err != nil {
					t.Fatal(err)
				}
			}, []string{"docs/SKILL.md", "docs/steps.md"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := releaseInSync(t)
			writeDeploy(t, root)
			for _, p := range c.mine {
				testkit.WriteFile(t, root, p, []byte("mine: "+p+"\n"))
			}
			swapped := false
			c.fault.Times = 1
			c.fault.Before = func(string) {
				temps, _ := filepath.Glob(filepath.Join(root, ".agents/skills/.skillsync-*.tmp"))
				if len(temps) != 1 {
					t.Fatalf("temp folders: %v", temps)
				}
				c.swap(t, root, temps[0])
				swapped = true
			}
			out := Reconcile(Request{System: &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{c.fault}}, Root: root})
			if !swapped || out.Err == nil {
				t.Fatalf("the swap was made %v, the run failed %v (%s); want both", swapped, out.Err != nil, summary(out))
			}
			for _, p := range c.mine {
				if data, err := os.ReadFile(filepath.Join(root, p)); err != nil || string(data) != "mine: "+p+"\n" {
					t.Errorf("the person's %s: %q, %v", p, data, err)
				}
			}
			assertAbsent(t, root, ".agents/skills/deploy")
		})
	}
}

// A new skill directory to be made whole is never begun in place: when its temp
// folder cannot be opened, none of its files is written (its SKILL.md alone in
// place would name files not there), the run says so, and the next run writes
// it whole.
func TestANewSkillDirectoryWhoseFolderCannotBeOpenedIsNotBegunInPlace(t *testing.T) {
	root := releaseInSync(t)
	writeDeploy(t, root)
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "Beneath", Path: ".agents/skills/.skillsync-*.tmp", Err: syscall.EMFILE, Times: 1},
	}}
	out := Reconcile(Request{System: sys, Root: root})
	if out.Err == nil || !strings.Contains(out.Err.Error(), "too many open files") {
		t.Fatalf("the run: %s; want it to fail naming the cause", summary(out))
	}
	assertAbsent(t, root, ".agents/skills/deploy")
	assertNoTempFolders(t, root)
	reconcileClean(t, root)
	if out := Reconcile(Request{System: workspacefs.OS{}, Root: root, Check: true}); out.Err != nil || len(out.Problems) > 0 {
		t.Errorf("the next run did not converge: %s", summary(out))
	}
	for _, p := range []string{"SKILL.md", "steps.md", "ref/x.md", "ref/deep/y.md"} {
		if _, err := os.Stat(filepath.Join(root, ".agents/skills/deploy", p)); err != nil {
			t.Errorf("not written by the next run: %v", err)
		}
	}
}

// writeDeployInFolders gives the skill deploy a file in each of 20 folders,
// more than a step holds open at once, and a SKILL.md that links them.
func writeDeployInFolders(t *testing.T, root string) {
	t.Helper()
	body := "---\nname: deploy\ndescription: Deploy.\n---\n\n"
	for i := range 20 {
		body += fmt.Sprintf("See [%d](f%02d/x.md).\n", i, i)
		testkit.WriteFile(t, root, fmt.Sprintf("skills/deploy/f%02d/x.md", i), []byte(fmt.Sprintf("x %d\n", i)))
	}
	testkit.WriteFile(t, root, "skills/deploy/SKILL.md", []byte(body))
}

// assertDeployInFolders checks that every file writeDeployInFolders gave deploy
// was written into .agents/skills.
func assertDeployInFolders(t *testing.T, root string) {
	t.Helper()
	for i := range 20 {
		if _, err := os.Stat(filepath.Join(root, fmt.Sprintf(".agents/skills/deploy/f%02d/x.md", i))); err != nil {
			t.Errorf("not written: %v", err)
		}
	}
}

// A flush that fails leaves nothing of a new skill directory made whole: its
// folder is emptied, its SKILL.md still under a temp name among the rest, and
// removed at once, and the run says the skill was not put in place.
func TestAFailedFlushLeavesNoWholeFolderBehind(t *testing.T) {
	root := releaseInSync(t)
	writeDeploy(t, root)
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{{Op: "Flush", Err: syscall.EIO, Times: 1}}}
	out := Reconcile(Request{System: sys, Root: root})
	if out.Err == nil || !strings.Contains(out.Err.Error(), "not put in place") {
		t.Fatalf("the run: %s; want it to say the skill was not put in place", summary(out))
	}
	assertAbsent(t, root, ".agents/skills/deploy")
	assertNoTempFolders(t, root)
	testkit.AssertNoTempFiles(t, root)
}

// A temp file in a registry skill directory, which a skillsync command stopped
// midway leaves, is invalid input: the load names it and says where it comes
// from, and nothing is written.
func TestATempFileInARegistrySkillDirectoryIsInvalidInput(t *testing.T) {
	root := t.TempDir()
	writeRelease(t, root, "[agents]")
	testkit.WriteFile(t, root, "skills/release/.skillsync-0123456789abcdef.tmp", []byte("---\nname: release\n---\n"))
	before := testkit.Tree(t, root)
	out := Reconcile(Request{System: workspacefs.OS{}, Root: root})
	want := "skills/release/.skillsync-0123456789abcdef.tmp: the name is one skillsync gives its own temp files (a skillsync command stopped midway leaves one)"
	if !strings.Contains(out.Problems.Error(), want) {
		t.Errorf("the run: %s, want the problem %q", summary(out), want)
	}
	if after := testkit.Tree(t, root); !maps.Equal(after, before) {
		t.Errorf("the run changed the workspace:\n%v\nwas\n%v", after, before)
	}
}
