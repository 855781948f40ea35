//go:build unix

package workspacefs

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A tree stays the same while its root leads to the same directory, and is
// another once a link on the way is swapped or the directory is moved away and
// a copy put in its place.
func TestTreeAtTellsWhereTheRootLeads(t *testing.T) {
	base := t.TempDir()
	for _, d := range []string{"one", "two"} {
		mustDo(t, os.Mkdir(filepath.Join(base, d), 0o755))
	}
	root := filepath.Join(base, "root")
	mustDo(t, os.Symlink("one", root))
	first, err := TreeAt(root)
	mustDo(t, err)
	if first.Real != filepath.Join(realDir(t, base), "one") {
		t.Errorf("Real = %s", first.Real)
	}
	if again, err := TreeAt(root); err != nil || !again.Same(first) {
		t.Errorf("the same root looked up again is another tree (%v)", err)
	}
	mustDo(t, os.Symlink("two", root+".tmp"))
	mustDo(t, os.Rename(root+".tmp", root))
	if swapped, err := TreeAt(root); err != nil || swapped.Same(first) {
		t.Errorf("a swapped link leads to the same tree (%v)", err)
	}

	moved, err := TreeAt(filepath.Join(base, "one"))
	mustDo(t, err)
	mustDo(t, os.Rename(filepath.Join(base, "one"), filepath.Join(base, "one.old")))
	if _, err := TreeAt(filepath.Join(base, "one")); err == nil {
		t.Error("a root moved away still leads to a tree")
	}
	mustDo(t, os.Mkdir(filepath.Join(base, "one"), 0o755))
	if copied, err := TreeAt(filepath.Join(base, "one")); err != nil || copied.Same(moved) {
		t.Errorf("the directory put in a moved one's place is the same tree (%v)", err)
	}
	mustWrite(t, filepath.Join(base, "file"), "x")
	if _, err := TreeAt(filepath.Join(base, "file")); err == nil {
		t.Error("a file is a tree")
	}
}

// The directories that decide where a root leads: the one holding each link on
// the way, whatever the link's form, and the parent of where it ends.
func TestRootHoldersNameEveryLinkOnTheWay(t *testing.T) {
	base := realDir(t, t.TempDir())
	for _, d := range []string{"git/.worktrees/abc", "mnt"} {
		mustDo(t, os.MkdirAll(filepath.Join(base, d), 0o755))
	}
	mustDo(t, os.Symlink(".worktrees/abc", filepath.Join(base, "git/root")))
	mustDo(t, os.Symlink(filepath.Join(base, "git"), filepath.Join(base, "mnt/git")))
	got, err := RootHolders(filepath.Join(base, "mnt/git/root"))
	mustDo(t, err)
	want := map[string][]string{
		filepath.Join(base, "mnt"):            {"git"},
		filepath.Join(base, "git"):            {"root"},
		filepath.Join(base, "git/.worktrees"): {"abc"},
	}
	if len(got) != len(want) {
		t.Errorf("holders %v, want %v", got, want)
	}
	for dir, names := range want {
		if !slices.Equal(got[dir], names) {
			t.Errorf("holders %v, want %v", got, want)
		}
	}
	if got, err := RootHolders("/"); err != nil || len(got) != 0 {
		t.Errorf("the top of the volume has holders %v (%v)", got, err)
	}
}

// Links counts the hard links of the file a name leads to.
func TestLinksCountsTheFileANameLeadsTo(t *testing.T) {
	root := workspaceWithFile(t)
	elsewhere := filepath.Join(t.TempDir(), "other")
	mustDo(t, os.Link(filepath.Join(root, "dir/file"), elsewhere))
	mustDo(t, os.Symlink("dir/file", filepath.Join(root, "link")))
	for _, sys := range []System{OS{}, NewReadOnly(OS{})} {
		f, err := sys.Open(root)
		mustDo(t, err)
		for name, want := range map[string]uint64{"dir/file": 2, "link": 2, "dir": 1} {
			if n, err := f.Links(name); err != nil || n != want {
				t.Errorf("Links(%s) = %d, %v; want %d", name, n, err, want)
			}
		}
		f.Close()
	}
}

func realDir(t *testing.T, dir string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	mustDo(t, err)
	return real
}
