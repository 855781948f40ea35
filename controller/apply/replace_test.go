package apply

import (
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// planned is the plan that takes the generated file at a, in root, to want
// (nil: delete it).
func planned(t *testing.T, root, a string, want []byte) plan.Plan {
	t.Helper()
	files := map[string]desired.File{}
	if want != nil {
		files[a] = desired.File{Path: a, Owner: "capability/x", Bytes: want}
	}
	return plan.Make(desired.State{Files: files}, scan(t, root), plan.Options{AllowEmpty: true})
}

// saveAt returns a hook that saves content at rel in root the way an editor
// does, a new file renamed over the old, as a fault's Before runs it.
func saveAt(t *testing.T, root, rel string, content []byte) func(string) {
	return func(string) {
		tmp := filepath.Join(root, rel+".editor-save")
		if err := os.WriteFile(tmp, content, 0o644); err != nil {
			t.Error(err)
		}
		if err := os.Rename(tmp, filepath.Join(root, rel)); err != nil {
			t.Error(err)
		}
	}
}

func wantFile(t *testing.T, root, rel string, want []byte) {
	t.Helper()
	if got, err := os.ReadFile(filepath.Join(root, rel)); err != nil || string(got) != string(want) {
		t.Errorf("%s = %q (%v), want %q", rel, got, err, want)
	}
}

// wantKept checks that the save that could not be put back at rel is kept
// beside it, under the name err gives, and that no temp file is left, which a
// later run would take for its own leftover.
func wantKept(t *testing.T, root, rel string, err error, save []byte) {
	t.Helper()
	kept, _ := filepath.Glob(filepath.Join(root, rel+".kept-*"))
	if len(kept) != 1 {
		t.Fatalf("kept beside %s: %q, want one file", rel, kept)
	}
	if got, _ := os.ReadFile(kept[0]); string(got) != string(save) {
		t.Errorf("%s = %q, want %q", kept[0], got, save)
	}
	if !strings.Contains(err.Error(), filepath.Base(kept[0])) {
		t.Errorf("the error does not say where the save is kept: %v", err)
	}
	testkit.AssertNoTempFiles(t, root)
}

// A save of a person's that lands between an update's check and the swap
// that puts the new file in place is found by the check after the swap and
// put back: kept, and the update reported as failed.
func TestASaveThatLandsAsAnUpdateIsPutInPlaceIsKept(t *testing.T) {
	if !testkit.Swaps(t) {
		t.Skip("this system's Dir cannot swap two files in one step; the moment stays open (docs/ownership.md)")
	}
	root := t.TempDir()
	a := ".claude/skills/a/SKILL.md"
	testkit.WriteFile(t, root, a, generated(t, a, "one"))
	pl := planned(t, root, a, generated(t, a, "two"))
	mine := []byte("mine now\n")
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "Exchange", Path: a, Before: saveAt(t, root, a, mine), Times: 1}}}
	_, err := Apply(sys, root, pl)
	if err == nil || !strings.Contains(err.Error(), "no longer carries a skillsync banner; kept") {
		t.Errorf("Apply = %v, want the update failed, the file kept", err)
	}
	wantFile(t, root, a, mine)
	testkit.AssertNoTempFiles(t, root)
}

// A second save that lands in the moment between the swap and the swap back
// is not removed either: the first is back at its path, the second kept
// beside it as NAME.kept-XXXXXXXX, which the error names.
func TestASecondSaveWhileTheFirstIsPutBackIsKeptToo(t *testing.T) {
	if !testkit.Swaps(t) {
		t.Skip("this system's Dir cannot swap two files in one step")
	}
	root := t.TempDir()
	a := ".claude/skills/a/SKILL.md"
	testkit.WriteFile(t, root, a, generated(t, a, "one"))
	pl := planned(t, root, a, generated(t, a, "two"))
	first, second := []byte("first save\n"), []byte("second save\n")
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "Exchange", Path: a, Before: saveAt(t, root, a, first), Times: 1},
		{Op: "Exchange", Path: a, Before: saveAt(t, root, a, second), Times: 1}}}
	_, err := Apply(sys, root, pl)
	if err == nil || !strings.Contains(err.Error(), "a file saved there while it was put back is kept as") {
		t.Fatalf("Apply = %v, want it to say where the second save is kept", err)
	}
	wantFile(t, root, a, first)
	wantKept(t, root, a, err, second)
}

// A delete moves the file aside and checks it there before it removes it: a
// save that landed since the first check is put back, and a save that lands
// once the file is aside is a new file, which stays.
func TestASaveThatLandsAsADeleteIsMadeIsKept(t *testing.T) {
	a := ".claude/skills/a/SKILL.md"
	aside := ".claude/skills/a/.skillsync-*.tmp"
	mine := []byte("mine now\n")
	cases := map[string]struct {
		fault   workspacefs.Fault
		deleted bool // the delete is made: skillsync's file was the one moved aside
	}{
		"before the file is moved aside": {fault: workspacefs.Fault{Op: "RenameNoReplace", Path: aside, Times: 1}},
		"once it is aside":               {fault: workspacefs.Fault{Op: "Remove", Path: aside, Times: 1}, deleted: true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			testkit.WriteFile(t, root, a, generated(t, a, "one"))
			pl := planned(t, root, a, nil)
			c.fault.Before = saveAt(t, root, a, mine)
			done, err := Apply(&workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{c.fault}}, root, pl)
			switch {
			case c.deleted && err != nil:
				t.Errorf("Apply = %v, want the delete made", err)
			case !c.deleted && (err == nil || !strings.Contains(err.Error(), "no longer carries a skillsync banner; kept")):
				t.Errorf("Apply = %v, want the delete failed, the file kept", err)
			}
			if len(done) != 1 || done[0].Done() != c.deleted {
				t.Errorf("applied %+v, want the delete made: %v", done, c.deleted)
			}
			wantFile(t, root, a, mine)
			testkit.AssertNoTempFiles(t, root)
		})
	}
}

// A save that lands before a delete moves the file aside, and another at its
// path before the first is put back: neither is removed. Where a rename cannot
// refuse to replace (the portable Dir), the first goes back by a hard link,
// which never replaces either.
func TestTwoSavesAsADeleteIsMadeAreBothKept(t *testing.T) {
	a := ".claude/skills/a/SKILL.md"
	aside := ".claude/skills/a/.skillsync-*.tmp"
	first, second := []byte("first save\n"), []byte("second save\n")
	for name, putBack := range map[string][]workspacefs.Fault{
		"by a rename that refuses to replace": {{Op: "RenameNoReplace", Path: a}},
		"by a hard link": {
			{Op: "RenameNoReplace", Path: a, Err: workspacefs.ErrNoReplaceUnsupported, Times: 1},
			{Op: "Link", Path: a},
			{Op: "Rename", Path: a}},
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			testkit.WriteFile(t, root, a, generated(t, a, "one"))
			pl := planned(t, root, a, nil)
			faults := []workspacefs.Fault{{Op: "RenameNoReplace", Path: aside, Before: saveAt(t, root, a, first), Times: 1}}
			// The second save lands just before the step that puts the first back.
			for _, f := range putBack {
				if f.Err == nil {
					f.Before, f.Times = saveAt(t, root, a, second), 1
				}
				faults = append(faults, f)
			}
			_, err := Apply(&workspacefs.Faulty{Base: workspacefs.OS{}, Faults: faults}, root, pl)
			if err == nil || !strings.Contains(err.Error(), "it could not be put back") {
				t.Fatalf("Apply = %v, want it to say the first save could not be put back", err)
			}
			wantFile(t, root, a, second)
			wantKept(t, root, a, err, first)
		})
	}
}

// Where no name beside the path can be given to the first save (a read-only
// or full filesystem), it stays under its temp name, and the error says to move
// it away before the next run, which may take it for a leftover.
func TestASaveThatCannotBeKeptBesideIsNamedInTheError(t *testing.T) {
	root := t.TempDir()
	a := ".claude/skills/a/SKILL.md"
	testkit.WriteFile(t, root, a, generated(t, a, "one"))
	pl := planned(t, root, a, nil)
	first := append(generated(t, a, "one"), "edited\n"...)
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "RenameNoReplace", Path: ".claude/skills/a/.skillsync-*.tmp", Before: saveAt(t, root, a, first), Times: 1},
		{Op: "RenameNoReplace", Path: a, Before: saveAt(t, root, a, []byte("second save\n")), Times: 1},
		{Op: "RenameNoReplace", Path: a + ".kept-*", Err: syscall.EROFS}}}
	_, err := Apply(sys, root, pl)
	if err == nil || !strings.Contains(err.Error(), "a temp name (move it away before the next run") {
		t.Fatalf("Apply = %v, want it to say the save is under a temp name, to move away", err)
	}
	var found bool
	matches, _ := filepath.Glob(filepath.Join(root, ".claude/skills/a/.skillsync-*.tmp"))
	for _, m := range matches {
		data, _ := os.ReadFile(m)
		found = found || string(data) == string(first) && strings.Contains(err.Error(), filepath.Base(m))
	}
	if !found {
		t.Errorf("the first save is not under the temp name the error gives (%q)", matches)
	}
}

// A supporting file swapped out by an update, or moved aside by a delete, is
// a temp file the next run knows for its leftover (observed.State.CutShort,
// banner.IsStaged): the plan made from a scan at the moment before it is
// removed, what a kill there would leave, cleans it up.
func TestASupportingFileLeftAsideIsCleanedUpByTheNextRun(t *testing.T) {
	skill, ref := ".claude/skills/a/SKILL.md", ".claude/skills/a/refs/ref.md"
	old := []byte("a file of the skill\n")
	for name, action := range map[string]plan.Action{"swapped out by an update": plan.Update, "moved aside by a delete": plan.Delete} {
		t.Run(name, func(t *testing.T) {
			if action == plan.Update && !testkit.Swaps(t) {
				t.Skip("this system's Dir cannot swap two files in one step")
			}
			root := t.TempDir()
			manifest := testkit.SkillWithManifest(t, skill, map[string]string{"refs/ref.md": string(old)})
			testkit.WriteFile(t, root, skill, manifest)
			testkit.WriteFile(t, root, ref, old)
			c := plan.Change{Path: ref, Action: action, OldSum: sha256.Sum256(old), Supporting: true}
			if action == plan.Update {
				c.New = []byte("the new content\n")
			}
			var aside string
			var next plan.Plan
			sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
				{Op: "Remove", Path: ".claude/skills/a/refs/.skillsync-*.tmp", Before: func(name string) {
					want := desired.State{Files: map[string]desired.File{skill: {Path: skill, Owner: "skill/s", Bytes: manifest}}}
					aside, next = name, plan.Make(want, scan(t, root), plan.Options{})
				}}}}
			if _, err := Apply(sys, root, plan.Plan{Changes: []plan.Change{c}}); err != nil {
				t.Fatal(err)
			}
			cleaned := false
			for _, c := range next.Changes {
				cleaned = cleaned || c.Path == aside && c.Action == plan.Cleanup
			}
			if aside == "" || !cleaned {
				t.Errorf("as the file aside (%q) was removed, the plan of a scan then was %+v, want it cleaned up", aside, next.Changes)
			}
			testkit.AssertNoTempFiles(t, root)
		})
	}
}

// The edit of a person's file that a command was asked to make keeps a save
// that lands between its check and the swap.
func TestAnEditKeepsASaveThatLandsAsItIsMade(t *testing.T) {
	if !testkit.Swaps(t) {
		t.Skip("this system's Dir cannot swap two files in one step")
	}
	root := t.TempDir()
	config := "skillsync.yaml"
	old := []byte("spec: {}\n")
	testkit.WriteFile(t, root, config, old)
	mine := []byte("spec: {targets: [agents]}\n")
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "Exchange", Path: config, Before: saveAt(t, root, config, mine), Times: 1}}}
	w, err := OpenWorkspace(sys, root)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Edit(config, sha256.Sum256(old), []byte("spec: {targets: [claude-code]}\n")); err == nil || !strings.Contains(err.Error(), "changed since it was read; not written") {
		t.Errorf("Edit = %v, want it refused", err)
	}
	wantFile(t, root, config, mine)
	if temps, _ := filepath.Glob(filepath.Join(root, ".skillsync-*.tmp")); len(temps) > 0 {
		t.Errorf("temp files left: %q", temps)
	}
}

// An edit whose swap back fails after the check found a save in its way says
// what is true: its own content is in place and the save is kept beside it,
// not that nothing was written.
func TestAnEditThatCannotPutASaveBackSaysItsContentIsInPlace(t *testing.T) {
	if !testkit.Swaps(t) {
		t.Skip("this system's Dir cannot swap two files in one step")
	}
	root := t.TempDir()
	config := "skillsync.yaml"
	old, edited := []byte("spec: {}\n"), []byte("spec: {targets: [claude-code]}\n")
	testkit.WriteFile(t, root, config, old)
	mine := []byte("spec: {targets: [agents]}\n")
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "Exchange", Path: config, Before: saveAt(t, root, config, mine), Times: 1},
		{Op: "Exchange", Path: config, Err: syscall.EIO, Times: 1}}}
	w, err := OpenWorkspace(sys, root)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	err = w.Edit(config, sha256.Sum256(old), edited)
	var editedOver *EditedOverASaveError
	if !errors.As(err, &editedOver) || strings.Contains(err.Error(), "not written") || !strings.Contains(err.Error(), "the new content is in place") {
		t.Fatalf("Edit = %v, want it to say its content is in place and the save kept", err)
	}
	wantFile(t, root, config, edited)
	wantKept(t, root, config, err, mine)
}

// A file moved aside that cannot be removed goes back to its path: the delete
// fails and leaves it where it was, as a remove that fails does. Where a rename
// cannot refuse to replace (the portable Dir), it goes back by a rename, not a
// hard link, which would leave it at its temp name too, to be moved aside again
// by every run.
func TestAFileThatCannotBeRemovedGoesBack(t *testing.T) {
	a := ".claude/skills/a/SKILL.md"
	aside := ".claude/skills/a/.skillsync-*.tmp"
	for name, faults := range map[string][]workspacefs.Fault{
		"the remove fails once": {{Op: "Remove", Path: aside, Err: syscall.EACCES, Times: 1}},
		"no rename refuses to replace, and the remove always fails": {
			{Op: "RenameNoReplace", Err: workspacefs.ErrNoReplaceUnsupported},
			{Op: "Remove", Path: aside, Err: syscall.EACCES}},
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			ours := generated(t, a, "one")
			testkit.WriteFile(t, root, a, ours)
			pl := planned(t, root, a, nil)
			done, err := Apply(&workspacefs.Faulty{Base: workspacefs.OS{}, Faults: faults}, root, pl)
			if err == nil || len(done) != 1 || !errors.Is(done[0].Err, syscall.EACCES) {
				t.Errorf("Apply = %v, %+v; want the delete failed with the remove's error", err, done)
			}
			wantFile(t, root, a, ours)
			testkit.AssertNoTempFiles(t, root)
		})
	}
}

// Two supporting files of the same content in one folder go aside under the
// same staged name, so their deletes are made one after the other: the second
// is not moved aside while the first is.
func TestDeletesInOneFolderGoOneAfterTheOther(t *testing.T) {
	root := t.TempDir()
	data := []byte("the same bytes\n")
	a, b := ".claude/skills/s/refs/a.md", ".claude/skills/s/refs/b.md"
	testkit.WriteFile(t, root, a, data)
	testkit.WriteFile(t, root, b, data)
	pl := plan.Plan{Changes: []plan.Change{
		{Path: a, Action: plan.Delete, OldSum: sha256.Sum256(data), Supporting: true},
		{Path: b, Action: plan.Delete, OldSum: sha256.Sum256(data), Supporting: true}}}
	began := make(chan string, 2)
	var overlapped atomic.Bool
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "RenameNoReplace", Path: ".claude/skills/s/refs/.skillsync-*.tmp", Before: func(name string) {
			began <- name
			if len(began) == 1 {
				// The first waits a while for a second to begin beside it.
				for range 30 {
					if len(began) > 1 {
						overlapped.Store(true)
						return
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
		}}}}
	if _, err := Apply(sys, root, pl); err != nil {
		t.Fatal(err)
	}
	if overlapped.Load() {
		t.Error("the second file was moved aside while the first was")
	}
	for _, p := range []string{a, b} {
		if _, err := os.Lstat(filepath.Join(root, p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want it deleted", p, err)
		}
	}
	testkit.AssertNoTempFiles(t, root)
}

// Two supporting files of one folder updated to the same content: the second,
// staged under another name while the first held the staged name, takes that
// name before its swap, so the old file a kill leaves there is known for a
// leftover too.
func TestTheSecondOfTwoUpdatesToOneContentLeavesAKnownLeftover(t *testing.T) {
	if !testkit.Swaps(t) {
		t.Skip("this system's Dir cannot swap two files in one step")
	}
	root := t.TempDir()
	skill := ".claude/skills/a/SKILL.md"
	a, b := ".claude/skills/a/refs/a.md", ".claude/skills/a/refs/b.md"
	oldA, oldB, now := []byte("a, as it was\n"), []byte("b, as it was\n"), []byte("both, now\n")
	manifest := testkit.SkillWithManifest(t, skill, map[string]string{"refs/a.md": string(oldA), "refs/b.md": string(oldB)})
	testkit.WriteFile(t, root, skill, manifest)
	testkit.WriteFile(t, root, a, oldA)
	testkit.WriteFile(t, root, b, oldB)
	pl := plan.Plan{Changes: []plan.Change{
		{Path: a, Action: plan.Update, OldSum: sha256.Sum256(oldA), New: now, Supporting: true},
		{Path: b, Action: plan.Update, OldSum: sha256.Sum256(oldB), New: now, Supporting: true}}}
	var left []string
	var next plan.Plan
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "Remove", Path: ".claude/skills/a/refs/.skillsync-*.tmp", Before: func(name string) {
			want := desired.State{Files: map[string]desired.File{skill: {Path: skill, Owner: "skill/s", Bytes: manifest}}}
			next = plan.Make(want, scan(t, root), plan.Options{})
			left = append(left, name)
		}}}}
	if _, err := Apply(sys, root, pl); err != nil {
		t.Fatal(err)
	}
	if len(left) != 2 {
		t.Fatalf("old files removed: %q, want two", left)
	}
	cleaned := false
	for _, c := range next.Changes {
		cleaned = cleaned || c.Path == left[1] && c.Action == plan.Cleanup
	}
	if !cleaned {
		t.Errorf("as the second old file (%s) was removed, the plan of a scan then was %+v, want it cleaned up", left[1], next.Changes)
	}
	wantFile(t, root, a, now)
	wantFile(t, root, b, now)
	testkit.AssertNoTempFiles(t, root)
}
