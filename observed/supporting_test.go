package observed

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// withManifest is a generated SKILL.md at path naming files, each with the
// digest of its content.
func withManifest(t *testing.T, path string, files map[string]string) []byte {
	t.Helper()
	out, err := banner.Open(nil, "skill/s", path)
	if err != nil {
		t.Fatal(err)
	}
	var entries []banner.ManifestEntry
	for p, content := range files {
		sum := sha256.Sum256([]byte(content))
		entries = append(entries, banner.ManifestEntry{Path: p, Digest: hex.EncodeToString(sum[:])})
	}
	if out, err = banner.AppendManifest(out, entries); err != nil {
		t.Fatal(err)
	}
	out = append(out, "name: s\ndescription: d\n---\n\nbody\n"...)
	if err := banner.Seal(out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestScanTellsSupportingFilesFromAPersons(t *testing.T) {
	root := t.TempDir()
	dir := ".agents/skills/s"
	testkit.WriteFile(t, root, dir+"/SKILL.md", withManifest(t, dir+"/SKILL.md", map[string]string{
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
	skill := withManifest(t, dir+"/SKILL.md", map[string]string{"notes.md": "mine\n"})
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
	testkit.WriteFile(t, root, dir+"/SKILL.md", withManifest(t, dir+"/SKILL.md", map[string]string{"agents/notes.md": "named\n"}))
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
