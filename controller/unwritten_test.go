package controller

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/controller/state"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
)

// A SKILL.md's manifest is all that makes a supporting file skillsync's, and a
// new file goes in place after the SKILL.md naming it. A person's file put at
// that path in between (a run stopped there, or the moment between the two) is
// not read as skillsync's edited by hand, which --force would replace:
// state.UnwrittenFile lists the path until skillsync's own file is there.

const (
	releaseNotes = ".agents/skills/release/notes.md"
	releaseSkill = ".agents/skills/release/SKILL.md"
)

// stopAtCreate runs a reconcile of root whose create of notes.md, after the
// SKILL.md naming it is in place, fails: what it leaves on disk is what a run
// killed between the two leaves.
func stopAtCreate(t *testing.T, root string) {
	t.Helper()
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "RenameNoReplace", Path: releaseNotes, Err: syscall.EIO},
		{Op: "Link", Path: releaseNotes, Err: syscall.EIO},
	}}
	if out := Reconcile(Request{System: sys, Root: root}); out.Err == nil {
		t.Fatal("the create of notes.md did not fail")
	}
}

// gainsNotes is releaseInSync's workspace whose skill has just gained notes.md.
func gainsNotes(t *testing.T) string {
	t.Helper()
	root := releaseInSync(t)
	testkit.WriteFile(t, root, "skills/release/notes.md", []byte("the skill's notes\n"))
	return root
}

func TestAPersonsFileWhereAStoppedRunWasToWriteIsNeverTaken(t *testing.T) {
	root := gainsNotes(t)
	stopAtCreate(t, root)
	skill, _ := os.ReadFile(filepath.Join(root, releaseSkill))
	if !strings.Contains(string(skill), "path=notes.md") {
		t.Fatalf("the stopped run did not put the SKILL.md naming notes.md in place first:\n%s", skill)
	}
	mine := []byte("my own notes\n")
	testkit.WriteFile(t, root, releaseNotes, mine)
	for _, force := range []bool{false, true} {
		out := Reconcile(Request{System: workspacefs.OS{}, Root: root, Options: plan.Options{Force: force}})
		c, ok := changeAt(out.Plan, releaseNotes)
		if !ok || c.Action != plan.Conflict || !strings.Contains(c.Reason, "before skillsync put its file there") {
			t.Errorf("force %v: notes.md: %+v, want a conflict: a person's file", force, c)
		}
		if got, _ := os.ReadFile(filepath.Join(root, releaseNotes)); string(got) != string(mine) {
			t.Fatalf("force %v: the person's notes.md now holds %q", force, got)
		}
	}
	// Once the person moves it away, skillsync writes its own.
	if err := os.Remove(filepath.Join(root, releaseNotes)); err != nil {
		t.Fatal(err)
	}
	assertConverges(t, root)
}

func TestAPersonsFileThatAppearsJustBeforeTheCreateIsNeverTaken(t *testing.T) {
	root := gainsNotes(t)
	mine := []byte("my own notes\n")
	appear := func(string) { testkit.WriteFile(t, root, releaseNotes, mine) }
	raced := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "RenameNoReplace", Path: releaseNotes, Times: 1, Before: appear},
		{Op: "Link", Path: releaseNotes, Times: 1, Before: appear},
	}}
	if out := Reconcile(Request{System: raced, Root: root}); out.Err == nil {
		t.Fatal("the create of notes.md did not fail, though a file appeared at its path")
	}
	out := Reconcile(Request{System: workspacefs.OS{}, Root: root, Options: plan.Options{Force: true}})
	if c, ok := changeAt(out.Plan, releaseNotes); !ok || c.Action != plan.Conflict {
		t.Errorf("--force: notes.md: %+v, want a conflict: a person's file", c)
	}
	if got, _ := os.ReadFile(filepath.Join(root, releaseNotes)); string(got) != string(mine) {
		t.Fatalf("--force replaced the person's notes.md with %q", got)
	}
}

// A run stopped before the create leaves a path listed; the next run writes the
// file and the list goes.
func TestAStoppedCreateIsWrittenByTheNextRun(t *testing.T) {
	root := gainsNotes(t)
	stopAtCreate(t, root)
	listed, err := state.ReadUnwritten(workspacefs.OS{}, root)
	if err != nil || !listed[releaseNotes] {
		t.Fatalf("after the stopped run %s lists %v (%v), want notes.md", state.UnwrittenFile, listed, err)
	}
	// The run that puts the file in place takes it off the list: a run that
	// finds nothing to do does not get to.
	if out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root}, 0); out.Err != nil {
		t.Fatal(out.Err)
	}
	if listed, _ := state.ReadUnwritten(workspacefs.OS{}, root); len(listed) != 0 {
		t.Errorf("after the run that wrote notes.md %s still lists %v", state.UnwrittenFile, listed)
	}
	assertConverges(t, root)
	if got, err := os.ReadFile(filepath.Join(root, releaseNotes)); err != nil || string(got) != "the skill's notes\n" {
		t.Errorf("notes.md: %q %v", got, err)
	}
}

func assertConverges(t *testing.T, root string) {
	t.Helper()
	if out := Reconcile(Request{System: workspacefs.OS{}, Root: root}); out.Err != nil || len(out.Problems) > 0 {
		t.Fatalf("next run: %v %v", out.Err, out.Problems)
	}
	if out := Reconcile(Request{System: workspacefs.OS{}, Root: root}); len(out.Plan.Changes) != 0 {
		t.Errorf("not converged: %+v", out.Plan.Changes)
	}
	if _, err := os.Lstat(filepath.Join(root, state.UnwrittenFile)); err == nil {
		t.Errorf("%s is left once every file is in place", state.UnwrittenFile)
	}
}

func changeAt(p plan.Plan, path string) (plan.Change, bool) {
	for _, c := range p.Changes {
		if c.Path == path {
			return c, true
		}
	}
	return plan.Change{}, false
}

// The list names the new file before the SKILL.md naming it is put in place,
// so a run killed between the two leaves it listed.
func TestTheListNamesANewFileBeforeItsSKILLmdIsInPlace(t *testing.T) {
	root := gainsNotes(t)
	var listed, checked atomic.Bool
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "Exchange", Path: releaseSkill, Before: func(string) {
			paths, err := state.ReadUnwritten(workspacefs.OS{}, root)
			listed.Store(err == nil && paths[releaseNotes])
			checked.Store(true)
		}},
	}}
	if out := Reconcile(Request{System: sys, Root: root}); out.Err != nil {
		t.Fatal(out.Err)
	}
	if !checked.Load() || !listed.Load() {
		t.Errorf("as the SKILL.md naming notes.md was put in place (seen: %v), %s did not list it", checked.Load(), state.UnwrittenFile)
	}
	if _, err := os.Lstat(filepath.Join(root, state.UnwrittenFile)); err == nil {
		t.Errorf("%s is left once notes.md is in place", state.UnwrittenFile)
	}
}

// A listed path stays listed until skillsync's own file is there, or nothing
// can name it any more (its skill directory has no SKILL.md).
func TestAListedPathStaysUntilItsFileIsSkillsyncs(t *testing.T) {
	dir := ".agents/skills"
	have := observed.State{Files: map[string]observed.File{
		dir + "/a/SKILL.md":  {Ownership: observed.Owned},
		dir + "/a/placed.md": {Ownership: observed.Owned, Supporting: true},
		dir + "/a/mine.md":   {Ownership: observed.Unowned},
	}}
	listed := map[string]bool{dir + "/a/placed.md": true, dir + "/a/mine.md": true, dir + "/a/absent.md": true,
		dir + "/gone/absent.md": true, ".claude/skills/a/absent.md": true}
	kept := map[string]bool{}
	keepUnwritten(kept, listed, dir, have)
	want := map[string]bool{dir + "/a/mine.md": true, dir + "/a/absent.md": true}
	if !maps.Equal(kept, want) {
		t.Errorf("kept %v, want %v", kept, want)
	}
}

// A run killed after it put the file in place and before it took the path off
// the list leaves it listed; the next one-shot run, with nothing else to do,
// takes it off, so an edit of that file later is one of skillsync's, which
// --force restores.
func TestARunWithNothingElseToDoShortensTheList(t *testing.T) {
	root := gainsNotes(t)
	reconcileClean(t, root)
	if err := state.WriteUnwritten(workspacefs.OS{}, root, map[string]bool{releaseNotes: true}); err != nil {
		t.Fatal(err)
	}
	out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root}, 0)
	if out.Err != nil || len(out.Plan.Changes) != 0 {
		t.Fatalf("run: %v %+v", out.Err, out.Plan.Changes)
	}
	if listed, _ := state.ReadUnwritten(workspacefs.OS{}, root); len(listed) != 0 {
		t.Fatalf("%s still lists %v", state.UnwrittenFile, listed)
	}
	testkit.WriteFile(t, root, releaseNotes, []byte("edited by hand\n"))
	out = Reconcile(Request{System: workspacefs.OS{}, Root: root, Options: plan.Options{Force: true}})
	if c, ok := changeAt(out.Plan, releaseNotes); !ok || c.Action != plan.Update {
		t.Errorf("--force on skillsync's file edited by hand: %+v, want it restored", c)
	}
}

// A list that cannot be read stops the pass before anything is written: what it
// would say about a file decides whether that file is a person's.
func TestAListThatCannotBeReadWritesNothing(t *testing.T) {
	root := gainsNotes(t)
	if err := os.MkdirAll(filepath.Join(root, state.UnwrittenFile), 0o755); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(root, releaseSkill))
	out := Reconcile(Request{System: workspacefs.OS{}, Root: root})
	if out.Err == nil || !strings.Contains(out.Err.Error(), "read "+state.UnwrittenFile) {
		t.Fatalf("err = %v, want one naming %s", out.Err, state.UnwrittenFile)
	}
	if after, _ := os.ReadFile(filepath.Join(root, releaseSkill)); string(after) != string(before) {
		t.Error("the SKILL.md was written")
	}
	if _, err := os.Lstat(filepath.Join(root, releaseNotes)); err == nil {
		t.Error("notes.md was written")
	}
}
