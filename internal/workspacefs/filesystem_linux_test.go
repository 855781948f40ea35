//go:build linux

package workspacefs

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Filesystem names the filesystem each entry is on, not its directory's: a
// directory mounted on, and a file in it, are on the mounted one; a symlink to
// it is on its directory's. Through ReadOnly too, since it only reads.
func TestFilesystemNamesWhatEachEntryIsOn(t *testing.T) {
	root := t.TempDir()
	mnt := filepath.Join(root, "mnt")
	mustDo(t, os.Mkdir(mnt, 0o755))
	if out, err := exec.Command("mount", "-t", "ramfs", "ramfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount ramfs here (needs root): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if exec.Command("umount", mnt).Run() != nil {
			exec.Command("umount", "-l", mnt).Run()
		}
	})
	mustWrite(t, filepath.Join(mnt, "file"), "x")
	mustDo(t, os.Symlink("mnt", filepath.Join(root, "link")))
	f, err := NewReadOnly(OS{}).Open(root)
	mustDo(t, err)
	defer f.Close()
	d, err := f.OpenDir(".")
	mustDo(t, err)
	defer d.Close()
	own, err := d.Filesystem(".")
	if err != nil || own == "" || own == "ramfs" {
		t.Fatalf("the temporary directory is on %q (%v)", own, err)
	}
	sub, err := d.Sub("mnt")
	mustDo(t, err)
	defer sub.Close()
	for _, c := range []struct {
		in   Dir
		name string
		want string
	}{{d, "mnt", "ramfs"}, {sub, ".", "ramfs"}, {sub, "file", "ramfs"}, {d, "link", own}} {
		if got, err := c.in.Filesystem(c.name); got != c.want || err != nil {
			t.Errorf("%s is on %q (%v), want %q", c.name, got, err, c.want)
		}
	}
	if _, err := d.Filesystem("missing"); err == nil {
		t.Error("a missing name is on a filesystem")
	}
}
