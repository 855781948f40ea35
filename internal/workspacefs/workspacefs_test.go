package workspacefs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestReadRegular(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("hello"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o644)
	os.Symlink(filepath.Join(dir, "f"), filepath.Join(dir, "inner-link"))
	os.Symlink("f", filepath.Join(dir, "relative-link"))
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink("../f", filepath.Join(dir, "sub", "relative-link"))
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "outer-link"))
	os.Symlink(outside, filepath.Join(dir, "outer-dir"))
	makeFIFO(t, filepath.Join(dir, "fifo"))
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if got, err := ReadRegular(root, "f", 5); err != nil || string(got) != "hello" {
		t.Errorf("regular file: %q %v", got, err)
	}
	// os.Root follows a symlink that stays inside the root even with O_NOFOLLOW; a
	// relative link to a file beside it must be refused all the same.
	for name, want := range map[string]error{"f": ErrTooLarge, "inner-link": ErrNotRegular, "outer-link": ErrNotRegular, "fifo": ErrNotRegular,
		"relative-link": ErrNotRegular, "sub/relative-link": ErrNotRegular} {
		limit := int64(100)
		if name == "f" {
			limit = 4
		}
		if _, err := ReadRegular(root, name, limit); !errors.Is(err, want) {
			t.Errorf("%s: error %v, want %v", name, err, want)
		}
	}
	if _, err := ReadRegular(root, "outer-dir/secret", 100); err == nil {
		t.Error("read through a symlinked directory out of the root")
	}
	if _, err := ReadRegular(root, "../"+filepath.Base(outside)+"/secret", 100); err == nil {
		t.Error("read through ..")
	}
}
