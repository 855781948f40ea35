package apply

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// A refused command takes back the files it created; a person's save that
// lands at one of them between the check that it is as created and its
// removal is kept, and so is the directory it is in, and Undo says so.
func TestUndoKeepsASaveThatLandsAsACreatedFileIsRemoved(t *testing.T) {
	for _, rel := range []string{"skillsync.yaml", "registry/team.yaml"} {
		t.Run(rel, func(t *testing.T) {
			root := t.TempDir()
			mine := []byte("mine now\n")
			// The save lands just after the check, before whatever the
			// removal does first.
			sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
				{Op: "RenameNoReplace", Path: "*/.skillsync-*.tmp", Times: 1, Before: saveAt(t, root, rel, mine)},
				{Op: "RenameNoReplace", Path: ".skillsync-*.tmp", Times: 1, Before: saveAt(t, root, rel, mine)},
				{Op: "Remove", Path: rel, Times: 1, Before: saveAt(t, root, rel, mine)},
			}}
			w, err := OpenWorkspace(sys, root)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			created, err := w.CreateAll([]NewFile{{Path: rel, Content: []byte("created: true\n")}})
			if err != nil {
				t.Fatal(err)
			}
			if err := created.Undo(); err == nil || err.Error() != rel+": changed since it was created; kept" {
				t.Errorf("Undo = %v, want it to say the save at %s is kept", err, rel)
			}
			wantFile(t, root, rel, mine)
			testkit.AssertNoTempFiles(t, root)
		})
	}
}

// Undo takes back a created file that is still as created, and the
// directories made for it.
func TestUndoRemovesWhatItCreated(t *testing.T) {
	root := t.TempDir()
	before := testkit.Tree(t, root)
	w, err := OpenWorkspace(workspacefs.OS{}, root)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	created, err := w.CreateAll([]NewFile{{Path: "registry/team.yaml", Content: []byte("created: true\n")}, {Path: "skillsync.yaml", Content: []byte("x\n")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "registry/team.yaml")); err != nil {
		t.Fatalf("not created: %v", err)
	}
	if err := created.Undo(); err != nil {
		t.Errorf("Undo = %v", err)
	}
	if after := testkit.Tree(t, root); !maps.Equal(after, before) {
		t.Errorf("after Undo the workspace holds %q, want %q", after, before)
	}
}

// A file to create through a symlink that leads out of the workspace is
// refused as ErrLeadsOut, naming the symlink, before anything is written: not
// where it leads, nor any other file of the command.
func TestCreateAllRefusesAFolderThatLeadsOut(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "registry")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	w, err := OpenWorkspace(workspacefs.OS{}, root)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	_, err = w.CreateAll([]NewFile{{Path: "skillsync.yaml", Content: []byte("a\n")}, {Path: "registry/team/caps.yaml", Content: []byte("b\n")}})
	if !errors.Is(err, ErrLeadsOut) || !strings.Contains(err.Error(), "registry/team/caps.yaml: registry is a symlink") {
		t.Fatalf("CreateAll = %v, want ErrLeadsOut naming registry", err)
	}
	for _, dir := range []string{root, outside} {
		if entries, _ := os.ReadDir(dir); len(entries) > 1 || len(entries) == 1 && entries[0].Name() != "registry" {
			t.Errorf("%s holds %v", dir, entries)
		}
	}
}

// A symlink that stays inside the workspace is no reason to refuse: a file
// that cannot be reached through it for another reason says that reason.
func TestCreateAllSaysWhyAFileBehindAnInsideSymlinkCannotBeReached(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "inner"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("inner", filepath.Join(root, "registry")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{{Op: "Lstat", Path: "registry/caps.yaml", Err: syscall.EACCES}}}
	w, err := OpenWorkspace(sys, root)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	_, err = w.CreateAll([]NewFile{{Path: "registry/caps.yaml", Content: []byte("b\n")}})
	if err == nil || errors.Is(err, ErrLeadsOut) || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("CreateAll = %v, want the permission error, not ErrLeadsOut", err)
	}
}
