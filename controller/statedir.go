package controller

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
)

// StateDir holds skillsync's local state: the chosen profile (and later the lock).
const StateDir = ".skillsync"

// UseProfile records name as the workspace's active profile in .skillsync/profile.
// The name must be a declared profile; the registry must be valid.
func UseProfile(root, name string) error {
	reg, err := registry.Load(root)
	if err != nil {
		return err
	}
	if _, problem := desired.LookupProfile(reg, name, "profile use", registry.Position{File: "profile use " + name}); problem != nil {
		return registry.Problems{*problem}
	}
	if err := ensureStateDir(reg.Root); err != nil {
		return err
	}
	return replaceFile(filepath.Join(reg.Root, filepath.FromSlash(desired.ProfileFile)), []byte(name+"\n"))
}

// ensureStateDir creates .skillsync/ with a .gitignore of "*", so local state never
// reaches git.
func ensureStateDir(root string) error {
	dir := filepath.Join(root, StateDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ignore := filepath.Join(dir, ".gitignore")
	if _, err := os.Lstat(ignore); errors.Is(err, fs.ErrNotExist) {
		return replaceFile(ignore, []byte("*\n"))
	}
	return nil
}

// replaceFile writes a state file atomically.
func replaceFile(full string, data []byte) error {
	tmp, err := writeTemp(filepath.Dir(full), data)
	if err != nil {
		return fmt.Errorf("write %s: %w", full, err)
	}
	if err := os.Rename(tmp, full); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", full, unwrap(err))
	}
	return nil
}

// Init writes a starter workspace into dir. It refuses to touch an existing file.
func Init(dir string) ([]string, error) {
	files := registry.StarterFiles()
	names := make([]string, 0, len(files))
	for _, f := range files {
		full := filepath.Join(dir, filepath.FromSlash(f.Path))
		if _, err := os.Lstat(full); err == nil {
			return nil, fmt.Errorf("%s already exists; init only starts new workspaces", full)
		}
		names = append(names, f.Path)
	}
	for _, f := range files {
		full := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := create(full, []byte(f.Content)); err != nil {
			return nil, fmt.Errorf("write %s: %w", full, err)
		}
	}
	return names, nil
}
