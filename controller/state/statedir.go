package state

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// Dir is the state directory, relative to the workspace root. The loader refuses
// inputs inside it, so it is named where the loader is.
const Dir = registry.StateDir

// IgnoreFile keeps the state directory out of git.
const IgnoreFile = Dir + "/.gitignore"

// Make creates .skillsync/ with its .gitignore, unless something other than a
// directory is in its place.
func Make(r workspacefs.FS) error {
	if err := Check(r); err != nil {
		return err
	}
	if err := r.MkdirAll(Dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", Dir, workspacefs.Cause(err))
	}
	if err := ensureIgnored(r); err != nil {
		return err
	}
	return nil
}

// Check refuses a .skillsync that is not a plain directory: writing or reading
// through a symlink there could reach outside the workspace.
func Check(r workspacefs.FS) error {
	info, err := r.Lstat(Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("read %s: %w", Dir, workspacefs.Cause(err))
	case !info.IsDir():
		return registry.Problems{{Pos: registry.Position{File: Dir}, Message: "is a symlink or a file, not a directory",
			Hint: "remove it; skillsync recreates .skillsync/ as a directory"}}
	}
	return nil
}

// Ignore gives a .skillsync/ that a host or a person created the .gitignore
// skillsync would have written; it makes no directory that is not there.
func Ignore(sys workspacefs.System, root string) error {
	r, err := sys.Open(root)
	if err != nil {
		return err
	}
	defer r.Close()
	if info, err := r.Lstat(Dir); err != nil || !info.IsDir() {
		return nil
	}
	return ensureIgnored(r)
}

// ensureIgnored gives an existing .skillsync/ a .gitignore of "*", so local state
// never reaches git.
func ensureIgnored(r workspacefs.FS) error {
	if _, err := r.Lstat(IgnoreFile); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return replaceFile(r, IgnoreFile, []byte("*\n"))
}

// replaceFile writes a state file atomically.
func replaceFile(r workspacefs.FS, rel string, data []byte) error {
	return replaceFileWith(r, rel, false, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// replaceFileWith writes a state file atomically, as write produces it: a large
// one is written as it is made, not built in memory first. synced makes its
// content durable before it is renamed into place.
func replaceFileWith(r workspacefs.FS, rel string, synced bool, write func(io.Writer) error) error {
	d, err := r.OpenDir(path.Dir(rel))
	if err != nil {
		return fmt.Errorf("write %s: %w", rel, workspacefs.Cause(err))
	}
	defer d.Close()
	tmp := banner.NewTempName()
	f, err := d.CreateNew(tmp, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", rel, workspacefs.Cause(err))
	}
	buffered := bufio.NewWriter(f)
	err = write(buffered)
	if err == nil {
		err = buffered.Flush()
	}
	if err == nil && synced {
		err = f.Sync()
	}
	err = errors.Join(err, f.Close())
	if err == nil {
		err = d.Rename(tmp, path.Base(rel))
	}
	if err != nil {
		d.Remove(tmp)
		return fmt.Errorf("write %s: %w", rel, workspacefs.Cause(err))
	}
	return nil
}

// removeTemps removes the temp files a killed run left in .skillsync/, where
// nothing but skillsync writes.
func removeTemps(r workspacefs.FS) {
	entries, _ := r.ReadDir(Dir)
	for _, e := range entries {
		if e.Type().IsRegular() && banner.IsTempName(e.Name()) {
			r.Remove(path.Join(Dir, e.Name()))
		}
	}
}
