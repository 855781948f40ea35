package observed

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// Scanning some skill directories alone finds in them exactly what a scan of the
// whole target directory finds there, whatever they hold.
func TestScanSkillDirsIsTheirPartOfScan(t *testing.T) {
	root := t.TempDir()
	dir := ".agents/skills"
	owned := dir + "/owned/SKILL.md"
	testkit.WriteFile(t, root, owned, stamp(t, owned))
	testkit.WriteFile(t, root, dir+"/owned/agents/openai.yaml", []byte("policy: mine\n"))
	edited := dir + "/edited/SKILL.md"
	testkit.WriteFile(t, root, edited, append(stamp(t, edited), "more\n"...))
	testkit.WriteFile(t, root, dir+"/mine/SKILL.md", []byte("---\nname: mine\n---\nMine.\n"))
	testkit.WriteFile(t, root, dir+"/lower/skill.md", []byte("---\nname: lower\n---\n"))
	testkit.WriteFile(t, root, dir+"/notadir", []byte("a file where a skill directory goes"))
	testkit.WriteFile(t, root, dir+"/torn/"+banner.NewTempName(), []byte("---\n"))
	if err := os.MkdirAll(filepath.Join(root, dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, dir, "sideonly/agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("owned", filepath.Join(root, dir, "inside")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(root, dir, "outside")); err != nil {
		t.Fatal(err)
	}
	names := []string{"owned", "edited", "mine", "lower", "notadir", "torn", "empty", "sideonly", "inside", "outside", "absent", "Owned"}

	whole, err := Scan(workspacefs.OS{}, root, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	for i := range names {
		for _, some := range [][]string{{names[i]}, {names[i], names[(i+5)%len(names)], names[i]}, names} {
			part, err := ScanSkillDirs(workspacefs.OS{}, root, dir, some)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := describe(part, dir, nil), describe(whole, dir, some); got != want {
				t.Errorf("%v alone:\n%s\nin the whole scan:\n%s", some, got, want)
			}
		}
	}
}

// A target directory that is a symlink is blocked when scanned in part too.
func TestScanSkillDirsBlockedTarget(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(root, ".claude/skills")); err != nil {
		t.Fatal(err)
	}
	part, err := ScanSkillDirs(workspacefs.OS{}, root, ".claude/skills", []string{"a"})
	if err != nil || part.Blocked[".claude/skills"] == "" || len(part.Escapes) != 1 {
		t.Fatalf("blocked %v, escapes %v, err %v", part.Blocked, part.Escapes, err)
	}
}

// describe is what st holds under the entries names of dir (all when nil).
func describe(st State, dir string, names []string) string {
	in := func(p string) bool {
		if names == nil {
			return true
		}
		rel := strings.TrimPrefix(p, dir+"/")
		first, _, _ := strings.Cut(rel, "/")
		return slices.Contains(names, first)
	}
	var b strings.Builder
	var paths []string
	for p := range st.Files {
		if in(p) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		f := st.Files[p]
		fmt.Fprintf(&b, "file %s %v %q %q %x %v %v %v bytes=%d\n", p, f.Ownership, f.Owner, f.Reason, f.Digest[:4], f.Obstruction, f.Converted, f.Link, len(f.Bytes))
	}
	for _, list := range []struct {
		name  string
		paths []string
	}{{"entry", st.Entries}, {"temp", st.TempFiles}, {"empty", st.EmptyDirs}, {"escape", st.Escapes}, {"handwritten", st.HandWrittenSkills()}} {
		for _, p := range list.paths {
			if in(p) {
				fmt.Fprintf(&b, "%s %s\n", list.name, path.Clean(p))
			}
		}
	}
	return b.String()
}

// An empty agents/ folder is what a run killed between deleting a side file and
// its folder leaves in a skill directory of skillsync's; in a skill a person
// wrote, it is the person's, and is no folder to clean up.
func TestAnEmptySideFileFolderIsCleanedOnlyWhereSkillsyncWroteTheSkill(t *testing.T) {
	root := t.TempDir()
	dir := ".agents/skills"
	owned := dir + "/owned/SKILL.md"
	testkit.WriteFile(t, root, owned, stamp(t, owned))
	edited := dir + "/edited/SKILL.md"
	testkit.WriteFile(t, root, edited, append(stamp(t, edited), "more\n"...))
	testkit.WriteFile(t, root, dir+"/mine/SKILL.md", []byte("---\nname: mine\ndescription: mine\n---\nMine.\n"))
	for _, d := range []string{"owned/agents", "edited/agents", "mine/agents", "mine/references", "gone/agents"} {
		if err := os.MkdirAll(filepath.Join(root, dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	st, err := Scan(workspacefs.OS{}, root, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{dir + "/edited/agents", dir + "/gone/agents", dir + "/owned/agents"}
	if !slices.Equal(st.EmptyDirs, want) {
		t.Errorf("empty folders to clean = %v, want %v: mine/agents is in a skill a person wrote", st.EmptyDirs, want)
	}
}
