package workspacefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// LstatOnce answers a name from its first look, and passes every other call on.
func TestLstatOnceKeepsFirstAnswer(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	base, err := OS{}.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	r := LstatOnce(base)
	if info, err := r.Lstat("file"); err != nil || info.IsDir() {
		t.Fatalf("first Lstat: %v, %v", info, err)
	}
	if _, err := r.Lstat("missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Lstat of a missing name: %v", err)
	}
	if err := os.Remove(filepath.Join(root, "file")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "missing"), 0o755); err != nil {
		t.Fatal(err)
	}
	if info, err := r.Lstat("file"); err != nil || info.Name() != "file" {
		t.Errorf("Lstat asked again: %v, %v; want the first answer", info, err)
	}
	if _, err := r.Lstat("missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Lstat of the name missing at the first look: %v; want the first answer", err)
	}
	if _, err := r.Stat("file"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat goes to the disk: %v, want not exist", err)
	}
}
