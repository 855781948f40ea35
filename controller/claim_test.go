package controller

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// A SKILL.md's manifest is all that makes a supporting file skillsync's, so a
// manifest that names a path before skillsync's file is there would claim a
// person's file put there meanwhile: read as skillsync's edited by hand, which
// --force replaces. A new supporting file goes in place first, by a rename that
// replaces nothing, and its SKILL.md after it.

const (
	releaseNotes = ".agents/skills/release/notes.md"
	releaseSkill = ".agents/skills/release/SKILL.md"
)

// A person's file that appears at the path of a new supporting file just
// before skillsync puts its own there keeps the SKILL.md from naming it, and
// --force leaves it alone too.
func TestAPersonsFileAtANewSupportingFilesPathIsNeverClaimed(t *testing.T) {
	root := releaseInSync(t)
	testkit.WriteFile(t, root, "skills/release/notes.md", []byte("the skill's notes\n"))
	mine := []byte("my own notes\n")
	raced := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "RenameNoReplace", Path: releaseNotes, Times: 1, Before: func(string) { testkit.WriteFile(t, root, releaseNotes, mine) }},
		{Op: "Link", Path: releaseNotes, Times: 1, Before: func(string) { testkit.WriteFile(t, root, releaseNotes, mine) }},
	}}
	out := Reconcile(Request{System: raced, Root: root})
	if out.Err == nil {
		t.Fatal("the create of notes.md did not fail, though a file appeared at its path")
	}
	assertNamesNoNotes(t, root)

	for _, force := range []bool{false, true} {
		out := Reconcile(Request{System: workspacefs.OS{}, Root: root, Options: plan.Options{Force: force}})
		if out.Err != nil {
			t.Fatalf("force %v: %v", force, out.Err)
		}
		if c, ok := changeAt(out.Plan, releaseNotes); !ok || c.Action != plan.Conflict {
			t.Errorf("force %v: notes.md: %+v, want a conflict (a person's file)", force, c)
		}
		if got, _ := os.ReadFile(filepath.Join(root, releaseNotes)); string(got) != string(mine) {
			t.Fatalf("force %v: the person's notes.md now holds %q", force, got)
		}
		assertNamesNoNotes(t, root)
	}
}

// A run stopped after it put a new supporting file in place and before the
// SKILL.md naming it leaves a file no manifest names; the next run takes it as
// written, since it holds exactly what the skill wants there, and names it.
func TestARunStoppedBeforeTheSKILLmdNamingANewFileConverges(t *testing.T) {
	root := releaseInSync(t)
	testkit.WriteFile(t, root, "skills/release/notes.md", []byte("the skill's notes\n"))
	killed := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "Rename", Path: releaseSkill, Before: func(string) { runtime.Goexit() }},
	}}
	done := make(chan struct{})
	go func() { defer close(done); Reconcile(Request{System: killed, Root: root}) }()
	<-done
	if got, err := os.ReadFile(filepath.Join(root, releaseNotes)); err != nil || string(got) != "the skill's notes\n" {
		t.Fatalf("notes.md after the stopped run: %q %v, want it in place before its SKILL.md", got, err)
	}
	assertNamesNoNotes(t, root)

	out := Reconcile(Request{System: workspacefs.OS{}, Root: root})
	if out.Err != nil || len(out.Problems) > 0 {
		t.Fatalf("next run: %v %v", out.Err, out.Problems)
	}
	if c, ok := changeAt(out.Plan, releaseNotes); ok {
		t.Errorf("next run: notes.md: %+v, want it taken as written", c)
	}
	if c, ok := changeAt(out.Plan, releaseSkill); !ok || c.Action != plan.Update {
		t.Errorf("next run: SKILL.md: %+v, want the update naming notes.md", c)
	}
	skill, _ := os.ReadFile(filepath.Join(root, releaseSkill))
	if !strings.Contains(string(skill), "path=notes.md") {
		t.Errorf("SKILL.md does not name notes.md after the next run:\n%s", skill)
	}
	if out := Reconcile(Request{System: workspacefs.OS{}, Root: root}); len(out.Plan.Changes) != 0 {
		t.Errorf("not converged: %+v", out.Plan.Changes)
	}
}

func assertNamesNoNotes(t *testing.T, root string) {
	t.Helper()
	skill, err := os.ReadFile(filepath.Join(root, releaseSkill))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(skill), "path=notes.md") {
		t.Fatalf("SKILL.md names notes.md, which skillsync did not put there:\n%s", skill)
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
