package observed

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

func TestScanTellsSupportingFilesFromAPersons(t *testing.T) {
	root := t.TempDir()
	dir := ".agents/skills/s"
	testkit.WriteFile(t, root, dir+"/SKILL.md", testkit.SkillWithManifest(t, dir+"/SKILL.md", map[string]string{
		"scripts/run.sh": "#!/bin/sh\n", "edited.md": "as written\n", "refs/gone.md": "x\n"}))
	testkit.WriteFile(t, root, dir+"/scripts/run.sh", []byte("#!/bin/sh\n"))
	testkit.WriteFile(t, root, dir+"/edited.md", []byte("changed by hand\n"))
	testkit.WriteFile(t, root, dir+"/mine.md", []byte("a person's\n"))
	staged := []byte("a supporting file, staged\n")
	testkit.WriteFile(t, root, dir+"/scripts/"+banner.StagedName(staged), staged)
	testkit.WriteFile(t, root, dir+"/scripts/.skillsync-0123456789abcdef.tmp", []byte("a person's, named like a temp file\n"))
	testkit.WriteFile(t, root, dir+"/drafts/.keep", nil)
	for _, d := range []string{dir + "/refs", dir + "/empty"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}

	st, err := Scan(workspacefs.OS{}, root, dirs)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Ownership{dir + "/SKILL.md": Owned, dir + "/scripts/run.sh": Owned, dir + "/edited.md": Modified,
		dir + "/mine.md": Unowned, dir + "/drafts/.keep": Unowned}
	for p, o := range want {
		if got, ok := st.Files[p]; !ok || got.Ownership != o {
			t.Errorf("%s: %v (present %v), want %v", p, got.Ownership, ok, o)
		}
	}
	if f := st.Files[dir+"/scripts/run.sh"]; !f.Supporting || f.Owner != "skill/s" {
		t.Errorf("a named file is a supporting file of its skill: %+v", f)
	}
	if f := st.Files[dir+"/mine.md"]; f.Supporting || f.Bytes != nil {
		t.Errorf("a file no manifest names is a person's, and not read: %+v", f)
	}
	if len(st.TempFiles) != 1 || st.TempFiles[0] != dir+"/scripts/"+banner.StagedName(staged) {
		t.Errorf("leftovers = %v, want only the staged file whose name its content gives", st.TempFiles)
	}
	if len(st.EmptyDirs) != 1 || st.EmptyDirs[0] != dir+"/refs" {
		t.Errorf("empty folders to clean = %v, want only refs, which a named file was in", st.EmptyDirs)
	}
	if !st.Folders[dir+"/drafts"] || !st.Folders[dir+"/scripts"] {
		t.Errorf("folders = %v", st.Folders)
	}
}

func TestScanTrustsNoManifestOfAnEditedSkillFile(t *testing.T) {
	root := t.TempDir()
	dir := ".agents/skills/s"
	skill := testkit.SkillWithManifest(t, dir+"/SKILL.md", map[string]string{"notes.md": "mine\n"})
	testkit.WriteFile(t, root, dir+"/SKILL.md", append(skill, "edited\n"...))
	testkit.WriteFile(t, root, dir+"/notes.md", []byte("mine\n"))
	st, err := Scan(workspacefs.OS{}, root, dirs)
	if err != nil {
		t.Fatal(err)
	}
	if f := st.Files[dir+"/notes.md"]; f.Ownership != Unowned || f.Supporting || f.Bytes == nil {
		t.Errorf("a file an edited manifest names is a person's, read for --force to compare: %+v", f)
	}
}

func TestASideFileDirectoryIsListedOnce(t *testing.T) {
	root := t.TempDir()
	dir := ".agents/skills/s"
	testkit.WriteFile(t, root, dir+"/SKILL.md", testkit.SkillWithManifest(t, dir+"/SKILL.md", map[string]string{"agents/notes.md": "named\n"}))
	testkit.WriteFile(t, root, dir+"/agents/notes.md", []byte("named\n"))
	testkit.WriteFile(t, root, dir+"/agents/mine.md", []byte("a person's\n"))
	testkit.WriteFile(t, root, dir+"/agents/openai.yaml", []byte("a person's side file\n"))
	var mu sync.Mutex
	listed := map[string]int{}
	count := func(name string) {
		mu.Lock()
		defer mu.Unlock()
		listed[name]++
	}
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{{Op: "Entries", Before: count}}}
	st, err := Scan(sys, root, dirs)
	if err != nil {
		t.Fatal(err)
	}
	if n := listed[dir+"/agents"]; n != 1 {
		t.Errorf("%s/agents was listed %d times, want once", dir, n)
	}
	want := map[string]Ownership{dir + "/agents/notes.md": Owned, dir + "/agents/mine.md": Unowned, dir + "/agents/openai.yaml": Unowned}
	for p, o := range want {
		if got, ok := st.Files[p]; !ok || got.Ownership != o {
			t.Errorf("%s: %v (present %v), want %v", p, got.Ownership, ok, o)
		}
	}
	if f := st.Files[dir+"/agents/notes.md"]; !f.Supporting {
		t.Errorf("a file the manifest names in the side-file directory is a supporting file: %+v", f)
	}
}

// The scan stamps every skill directory it lists, from the directory it opened,
// before listing it, as it stamps what it reads: an index of the pass need not
// stamp them again.
func TestTheScanStampsTheSkillDirectoriesItLists(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, root, ".claude/skills/a/SKILL.md", []byte("a person's\n"))
	testkit.WriteFile(t, root, ".agents/skills/b/agents/openai.yaml", []byte("a person's\n"))
	st, err := Scan(workspacefs.OS{}, root, dirs)
	if err != nil {
		t.Fatal(err)
	}
	r, err := workspacefs.OS{}.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	stamped := map[string]workspacefs.Stamp{}
	for _, s := range st.Read {
		stamped[s.Path] = s.Stamp
	}
	for _, dir := range []string{".claude/skills/a", ".agents/skills/b", ".agents/skills/b/agents"} {
		info, err := r.Lstat(dir)
		if err != nil {
			t.Fatal(err)
		}
		want := workspacefs.StampOf(info)
		if got, ok := stamped[dir]; !ok || got != want {
			t.Errorf("%s: stamped %v (%+v), want %+v", dir, ok, got, want)
		}
	}
}

// A skill directory's scan closes the side-file directories it kept open for
// the walk, and keeps nothing of them in what it returns.
func TestAScannedSkillDirectoryHoldsNoListedDirectory(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, root, ".agents/skills/b/agents/openai.yaml", []byte("a person's\n"))
	r, err := workspacefs.OS{}.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	target, err := r.OpenDir(".agents/skills")
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	sd := scanSkillDir(target, ".agents/skills", workspacefs.Entry{Name: "b", Type: fs.ModeDir})
	if sd.err != nil {
		t.Fatal(sd.err)
	}
	if len(sd.listed) != 0 {
		t.Errorf("the scan of b returned %d listed directories, want none", len(sd.listed))
	}
}

// A listed path's supporting file that is not the content named is a person's;
// skillsync's own content there stays skillsync's, and the state scanned is
// not changed.
func TestNotWrittenYetTakesOnlyOtherContentForAPersons(t *testing.T) {
	st := State{Files: map[string]File{
		"d/edited.md": {Path: "d/edited.md", Ownership: Modified, Supporting: true, Owner: "skill/s"},
		"d/placed.md": {Path: "d/placed.md", Ownership: Owned, Supporting: true, Owner: "skill/s"},
		"d/other.md":  {Path: "d/other.md", Ownership: Modified, Supporting: true, Owner: "skill/s"},
	}}
	got := st.NotWrittenYet(map[string]bool{"d/edited.md": true, "d/placed.md": true})
	if f := got.Files["d/edited.md"]; f.Ownership != Unowned || f.Supporting || f.Reason == "" {
		t.Errorf("listed, other content: %+v, want a person's", f)
	}
	if got.Files["d/placed.md"].Ownership != Owned || got.Files["d/other.md"].Ownership != Modified {
		t.Errorf("unlisted or skillsync's content changed: %+v", got.Files)
	}
	if st.Files["d/edited.md"].Ownership != Modified {
		t.Error("the state scanned was changed in place")
	}
}

// The old file an update swapped out, which a kill left under the staged name
// of the new content now at its path, is known by its bytes, which an intact
// manifest names for that path, and by that name: a leftover whatever the plan
// wants. The same bytes under another name, other bytes under that name, or a
// manifest edited by hand, prove nothing.
func TestScanKnowsTheOldFileAnUpdateSwappedOut(t *testing.T) {
	root := t.TempDir()
	old, now := "# a reference\n", "# the reference, updated\n"
	swapped := "/refs/" + banner.StagedName([]byte(now))
	intact, edited := ".agents/skills/s", ".agents/skills/e"
	for _, dir := range []string{intact, edited} {
		skill := testkit.SkillWithManifest(t, dir+"/SKILL.md", map[string]string{"refs/ref.md": old})
		if dir == edited {
			skill = append(skill, "edited\n"...)
		}
		testkit.WriteFile(t, root, dir+"/SKILL.md", skill)
		testkit.WriteFile(t, root, dir+"/refs/ref.md", []byte(now))
	}
	cases := []struct {
		path, content string
		swapped       bool
	}{
		{intact + swapped, old, true},
		{intact + "/refs/.skillsync-00000000000000a2.tmp", old, false}, // the old bytes under another name
		{intact + "/" + banner.StagedName([]byte(now)), old, false},    // in another folder
		{edited + swapped, old, false},                                 // named by a manifest edited by hand
	}
	for _, c := range cases {
		testkit.WriteFile(t, root, c.path, []byte(c.content))
	}
	st, err := Scan(workspacefs.OS{}, root, []string{".agents/skills"})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, f := range st.CutShort {
		found[f.Path] = f.Supporting
	}
	for _, c := range cases {
		if found[c.path] != c.swapped {
			t.Errorf("%s: known as the old file swapped out: %v, want %v", c.path, found[c.path], c.swapped)
		}
	}
}
