package workspacefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// everyWrite calls every writing operation of an FS and of a Dir opened from it,
// on a workspace holding dir/file ("x"), and returns their errors by name.
func everyWrite(t *testing.T, f FS) map[string]error {
	t.Helper()
	d, err := f.OpenDir("dir")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	errs := map[string]error{
		"MkdirAll":        f.MkdirAll("new/deep", 0o755),
		"Remove":          f.Remove("dir/file"),
		"Mkdir":           d.Mkdir("sub", 0o755),
		"WriteNew":        d.WriteNew("new", []byte("x"), 0o644),
		"Link":            d.Link("file", "linked"),
		"Rename":          d.Rename("file", "renamed"),
		"RenameNoReplace": d.RenameNoReplace("file", "renamed2"),
		"Exchange":        d.Exchange("file", "sub"),
		"Dir.Remove":      d.Remove("file"),
		"Rmdir":           d.Rmdir("file"),
		"Flush":           d.Flush(),
	}
	if file, err := d.CreateNew("created", 0o644); err == nil {
		file.Close()
	} else {
		errs["CreateNew"] = err
	}
	if file, err := d.OpenFile("file", os.O_RDWR, 0); err == nil {
		file.Close()
	} else {
		errs["OpenFile for writing"] = err
	}
	return errs
}

func workspaceWithFile(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	mustDo(t, os.Mkdir(filepath.Join(root, "dir"), 0o755))
	mustWrite(t, filepath.Join(root, "dir", "file"), "x")
	return root
}

func TestReadOnlyRefusesEveryWriteAndRecordsIt(t *testing.T) {
	root := workspaceWithFile(t)
	sys := NewReadOnly(OS{})
	f, err := sys.Open(root)
	mustDo(t, err)
	defer f.Close()
	errs := everyWrite(t, f)
	if len(errs) != 13 {
		t.Errorf("%d writes tried, want 13", len(errs))
	}
	for op, err := range errs {
		if !errors.Is(err, ErrReadOnly) {
			t.Errorf("%s through ReadOnly: %v, want ErrReadOnly", op, err)
		}
	}
	if err := sys.MkdirAll(filepath.Join(root, "elsewhere"), 0o755); !errors.Is(err, ErrReadOnly) {
		t.Errorf("System.MkdirAll: %v", err)
	}
	if got := len(sys.Attempts()); got != 14 {
		t.Errorf("%d attempts recorded, want 14: %q", got, sys.Attempts())
	}
	if !slices.Contains(sys.Attempts(), "WriteNew dir/new") {
		t.Errorf("attempts %q do not name WriteNew dir/new", sys.Attempts())
	}
	// Nothing changed on disk.
	entries, _ := os.ReadDir(filepath.Join(root, "dir"))
	if len(entries) != 1 {
		t.Errorf("dir holds %d entries, want only file", len(entries))
	}
	wantContent(t, filepath.Join(root, "dir", "file"), "x")
	if _, err := os.Lstat(filepath.Join(root, "new")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("MkdirAll made new/: %v", err)
	}

	// Reads pass.
	d, err := f.OpenDir("dir")
	mustDo(t, err)
	defer d.Close()
	if data, err := d.ReadRegular("file", 10); err != nil || string(data) != "x" {
		t.Errorf("ReadRegular through ReadOnly = %q, %v", data, err)
	}
	if file, err := d.OpenFile("file", os.O_RDONLY, 0); err != nil {
		t.Errorf("OpenFile for reading through ReadOnly: %v", err)
	} else {
		file.Close()
	}
	if data, err := f.ReadFile("dir/file", 10); err != nil || string(data) != "x" {
		t.Errorf("ReadFile through ReadOnly = %q, %v", data, err)
	}
}

// Without a decorator the same writes reach the disk: the test above would see
// them.
func TestEveryWriteReachesTheDisk(t *testing.T) {
	root := workspaceWithFile(t)
	f, err := OS{}.Open(root)
	mustDo(t, err)
	defer f.Close()
	everyWrite(t, f)
	for _, p := range []string{"new/deep", "dir/sub", "dir/new", "dir/created"} {
		if _, err := os.Lstat(filepath.Join(root, p)); err != nil {
			t.Errorf("%s was not made: %v", p, err)
		}
	}
}

func TestFaultyInjectsErrors(t *testing.T) {
	root := workspaceWithFile(t)
	changed := 0
	sys := &Faulty{Base: OS{}, Faults: []Fault{
		{Op: "WriteNew", Path: "dir/*", Err: syscall.ENOSPC},
		{Op: "ReadRegular", Path: "dir/file", Err: syscall.EIO, Times: 1},
		{Op: "Rename", Before: func(string) { changed++ }},
	}}
	f, err := sys.Open(root)
	mustDo(t, err)
	defer f.Close()
	d, err := f.OpenDir("dir")
	mustDo(t, err)
	defer d.Close()

	if err := d.WriteNew("new", []byte("x"), 0o644); !errors.Is(err, syscall.ENOSPC) || !OutOfResources(err) {
		t.Errorf("WriteNew = %v, want ENOSPC", err)
	}
	if _, err := os.Lstat(filepath.Join(root, "dir", "new")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the failed write left a file: %v", err)
	}
	if _, err := d.ReadRegular("file", 10); !errors.Is(err, syscall.EIO) {
		t.Errorf("first ReadRegular = %v, want EIO", err)
	}
	if data, err := d.ReadRegular("file", 10); err != nil || string(data) != "x" {
		t.Errorf("second ReadRegular = %q, %v: Times 1 strikes once", data, err)
	}
	mustDo(t, d.Rename("file", "moved"))
	if changed != 1 {
		t.Errorf("Before ran %d times, want 1", changed)
	}
	wantContent(t, filepath.Join(root, "dir", "moved"), "x")
	if err := d.Mkdir("sub", 0o755); err != nil {
		t.Errorf("an operation no fault names failed: %v", err)
	}
}
