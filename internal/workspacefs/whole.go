package workspacefs

import (
	"crypto/rand"
	"path"
)

// WriteWhole writes data at rel in root under a temporary name beside it, then
// renames it into place, making its folder if missing: a reader sees the old
// file or the new one, never part of either. Nothing is synced; it is for
// files outside a workspace (caches, a published site) that a crash may lose.
func WriteWhole(root FS, rel string, data []byte) error {
	if err := root.MkdirAll(path.Dir(rel), 0o755); err != nil {
		return Cause(err)
	}
	d, err := root.OpenDir(path.Dir(rel))
	if err != nil {
		return Cause(err)
	}
	defer d.Close()
	tmp := ".tmp-" + rand.Text()
	if err := d.WriteNew(tmp, data, 0o644); err != nil {
		return Cause(err)
	}
	if err := d.Rename(tmp, path.Base(rel)); err != nil {
		d.Remove(tmp)
		return Cause(err)
	}
	return nil
}
