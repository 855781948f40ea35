package controller

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"

	"github.com/skillsync/skillsync/banner"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// StateDir holds skillsync's local state: the chosen profile, the record of the
// last apply and the lock.
const StateDir = registry.StateDir

const stateIgnore = StateDir + "/.gitignore"

// UseProfile records name as the workspace's active profile in .skillsync/profile.
// The name must be a declared profile; the registry must be valid.
func UseProfile(sys workspacefs.System, root, name string) error {
	reg, err := registry.LoadFrom(sys, root)
	if err != nil {
		return err
	}
	if _, problem := desired.LookupProfile(reg, name, "profile use", registry.Position{File: "profile use " + name}); problem != nil {
		return registry.Problems{*problem}
	}
	r, err := sys.Open(reg.Root)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := makeStateDir(r); err != nil {
		return err
	}
	return replaceFile(r, desired.ProfileFile, []byte(name+"\n"))
}

// makeStateDir creates .skillsync/ with its .gitignore, unless something other
// than a directory is in its place.
func makeStateDir(r workspacefs.FS) error {
	if err := checkStateDir(r); err != nil {
		return err
	}
	if err := r.MkdirAll(StateDir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", StateDir, workspacefs.Cause(err))
	}
	if err := ensureIgnored(r); err != nil {
		return err
	}
	return nil
}

// checkStateDir refuses a .skillsync that is not a plain directory: writing or
// reading through a symlink there could reach outside the workspace.
func checkStateDir(r workspacefs.FS) error {
	info, err := r.Lstat(StateDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("read %s: %w", StateDir, workspacefs.Cause(err))
	case !info.IsDir():
		return registry.Problems{{Pos: registry.Position{File: StateDir}, Message: "is a symlink or a file, not a directory",
			Hint: "remove it; skillsync recreates .skillsync/ as a directory"}}
	}
	return nil
}

// ensureIgnored gives an existing .skillsync/ a .gitignore of "*", so local state
// never reaches git.
func ensureIgnored(r workspacefs.FS) error {
	if _, err := r.Lstat(stateIgnore); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return replaceFile(r, stateIgnore, []byte("*\n"))
}

// replaceFile writes a state file atomically.
func replaceFile(r workspacefs.FS, rel string, data []byte) error {
	return replaceFileWith(r, rel, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// replaceFileWith writes a state file atomically, as write produces it: a large
// one is written as it is made, not built in memory first.
func replaceFileWith(r workspacefs.FS, rel string, write func(io.Writer) error) error {
	d, err := r.OpenDir(path.Dir(rel))
	if err != nil {
		return fmt.Errorf("write %s: %w", rel, workspacefs.Cause(err))
	}
	defer d.Close()
	tmp := tempName()
	f, err := d.CreateNew(tmp, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", rel, workspacefs.Cause(err))
	}
	buffered := bufio.NewWriter(f)
	err = errors.Join(write(buffered), buffered.Flush(), f.Close())
	if err == nil {
		err = d.Rename(tmp, path.Base(rel))
	}
	if err != nil {
		d.Remove(tmp)
		return fmt.Errorf("write %s: %w", rel, workspacefs.Cause(err))
	}
	return nil
}

// removeStateTemps removes the temp files a killed run left in .skillsync/, where
// nothing but skillsync writes.
func removeStateTemps(r workspacefs.FS) {
	entries, _ := r.ReadDir(StateDir)
	for _, e := range entries {
		if e.Type().IsRegular() && banner.IsTempName(e.Name()) {
			r.Remove(path.Join(StateDir, e.Name()))
		}
	}
}

// readProfileFile reads .skillsync/profile; "" when there is none.
func readProfileFile(r workspacefs.FS) (string, error) {
	if err := checkStateDir(r); err != nil {
		return "", err
	}
	data, err := r.ReadRegular(desired.ProfileFile, 4096)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case errors.Is(err, workspacefs.ErrNotRegular) || errors.Is(err, workspacefs.ErrTooLarge):
		return "", registry.Problems{{Pos: registry.Position{File: desired.ProfileFile}, Message: "is not a regular file of one line",
			Hint: "run skillsync profile use NAME to rewrite it"}}
	case err != nil && !workspacefs.OutOfResources(err):
		return "", registry.Problems{{Pos: registry.Position{File: desired.ProfileFile}, Message: "cannot be read: " + workspacefs.Cause(err).Error(),
			Hint: "make it readable, or run skillsync profile use NAME to rewrite it"}}
	case err != nil:
		return "", fmt.Errorf("read %s: %w", desired.ProfileFile, workspacefs.Explain(workspacefs.Cause(err)))
	}
	return string(data), nil
}
