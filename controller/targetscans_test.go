package controller

import (
	"slices"
	"testing"
	"time"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// targetIndex is the place of the target whose directory is dir among targets.
func targetIndex(t *testing.T, targets []string, dir string) int {
	t.Helper()
	i := slices.IndexFunc(targets, func(name string) bool { return clients.Dir(name) == dir })
	if i < 0 {
		t.Fatalf("no target has the directory %s", dir)
	}
	return i
}

// The known target directories a workspace does not have sit between the ones
// it has; they hold no place ahead, so the third directory it has is scanned
// ahead of its turn, by the time the first is taken, not once every missing one
// before it is.
func TestAMissingTargetDirectoryHoldsNoPlaceAhead(t *testing.T) {
	root := t.TempDir()
	for _, dir := range []string{".agents/skills", ".claude/skills", ".qwen/skills"} {
		testkit.WriteFile(t, root, dir+"/deploy/SKILL.md", []byte("a person's skill\n"))
	}
	qwenScanned := make(chan struct{})
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "OpenDir", Path: ".qwen/skills", Times: 1, Before: func(string) { close(qwenScanned) }}}}
	targets := targetsByDir()
	first, qwen := targetIndex(t, targets, ".agents/skills"), targetIndex(t, targets, ".qwen/skills")
	if qwen-first <= scansAhead {
		t.Fatalf("the test needs missing directories between .agents and .qwen, which are %d apart", qwen-first)
	}
	scans := scanTargets(sys, root, targets)
	defer scans.Close()
	for i := 0; i <= first; i++ {
		if r := scans.Take(i); r.err != nil {
			t.Fatal(r.err)
		}
	}
	select {
	case <-qwenScanned:
	case <-time.After(time.Minute):
		t.Fatalf("%s was not scanned with only %s taken: the missing directories before it hold its place", targets[qwen], targets[first])
	}
}

// A target directory missing when the scans began and made before its turn is
// scanned all the same: missing is only a guess about which scans to start early.
func TestATargetDirectoryMadeAfterTheScansBeganIsScanned(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, root, ".claude/skills/deploy/SKILL.md", []byte("a person's skill\n"))
	targets := targetsByDir()
	scans := scanTargets(workspacefs.OS{}, root, targets)
	defer scans.Close()
	testkit.WriteFile(t, root, ".qwen/skills/review/SKILL.md", []byte("another person's skill\n"))
	found := map[string]bool{}
	for i := range targets {
		r := scans.Take(i)
		if r.err != nil {
			t.Fatal(r.err)
		}
		for p := range r.state.Files {
			found[p] = true
		}
	}
	for _, p := range []string{".claude/skills/deploy/SKILL.md", ".qwen/skills/review/SKILL.md"} {
		if !found[p] {
			t.Errorf("the scans did not find %s; found %v", p, found)
		}
	}
}
