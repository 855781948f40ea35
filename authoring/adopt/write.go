package adopt

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/apply"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
)

// Apply hands skills people wrote over to skillsync: it creates files (the
// registry documents declaring them, and their body files) and then removes each
// hand-written SKILL.md of replaces, for the next reconcile to generate in its
// place. Every hand-written file must still be exactly as it was read, a regular
// file in a real directory; the registry must load with the new files, or they
// are removed again and nothing has changed.
func Apply(sys workspacefs.System, root, config string, files []apply.NewFile, replaces []Skill) error {
	w, err := apply.OpenWorkspace(sys, root)
	if err != nil {
		return err
	}
	defer w.Close()
	for _, sk := range replaces {
		if err := stillHandWritten(w, sk); err != nil {
			return err
		}
	}
	// A skill directory is adopted whole, as it is: one there already would
	// add what else it holds to the skill.
	for _, f := range files {
		if dir := path.Dir(f.Path); path.Base(f.Path) == desired.SkillFile {
			if _, err := w.FS().Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("%s %w", dir, apply.ErrExists)
			}
		}
	}
	created, err := w.CreateAll(files)
	if err != nil {
		return err
	}
	in, err := controller.LoadInputs(controller.Request{System: sys, Root: root, ConfigFile: config})
	if err != nil {
		return &NotLoadedError{Err: err, Undo: created.Undo()}
	}
	want := desired.Build(in.Registry, in.Profile)
	for _, sk := range replaces {
		if !wantsAll(want, sk) {
			return errors.Join(fmt.Errorf("the registry would not write %s back at %s (the name is disabled, its target is not enabled, or the profile withholds it: see skillsync explain %s), so nothing was adopted",
				sk.Name, sk.Path, sk.Name), created.Undo())
		}
	}
	for _, sk := range replaces {
		if err := removeHandWritten(w, sk); err != nil {
			return fmt.Errorf("%s: %w (the registry already declares it: remove the file by hand, then reconcile)", sk.Path, err)
		}
	}
	return nil
}

// wantsAll says the registry in want writes every file of sk back where it is.
func wantsAll(want desired.State, sk Skill) bool {
	for _, p := range append(supportPaths(sk), sk.Path) {
		if _, ok := want.Files[p]; !ok {
			return false
		}
	}
	return true
}

// supportPaths are the workspace paths of sk's supporting files.
func supportPaths(sk Skill) []string {
	out := make([]string, len(sk.Files))
	for i, f := range sk.Files {
		out[i] = path.Join(path.Dir(sk.Path), f.Path)
	}
	return out
}

// stillHandWritten checks that sk's files are what was read: regular files, in
// directories reached without a symlink, with the same bytes, the SKILL.md no
// generated one.
func stillHandWritten(w apply.Workspace, sk Skill) error {
	d, err := w.OpenDir(path.Dir(sk.Path))
	if err != nil {
		return fmt.Errorf("%s: %w; nothing was adopted", sk.Path, workspacefs.Cause(err))
	}
	defer d.Close()
	if err := checkHandWritten(d, sk); err != nil {
		return err
	}
	for i, p := range supportPaths(sk) {
		if err := checkSupporting(w, p, sk.Files[i].Sum); err != nil {
			return fmt.Errorf("%w; nothing was adopted", err)
		}
	}
	return nil
}

// checkSupporting checks that the file p is still the regular file whose bytes
// hash to sum.
func checkSupporting(w apply.Workspace, p string, sum [32]byte) error {
	d, err := w.OpenDir(path.Dir(p))
	if err != nil {
		return fmt.Errorf("%s: %w", p, workspacefs.Cause(err))
	}
	defer d.Close()
	data, err := d.ReadRegular(path.Base(p), banner.MaxSupportingFileSize)
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", p, workspacefs.Cause(err))
	case sha256.Sum256(data) != sum:
		return fmt.Errorf("%s changed since it was read", p)
	}
	return nil
}

func checkHandWritten(d workspacefs.Dir, sk Skill) error {
	data, err := d.ReadRegular(path.Base(sk.Path), observed.MaxFileSize)
	switch {
	case errors.Is(err, workspacefs.ErrNotRegular):
		return fmt.Errorf("%s is not a regular file; nothing was adopted", sk.Path)
	case err != nil:
		return fmt.Errorf("%s: %w; nothing was adopted", sk.Path, workspacefs.Cause(err))
	case sha256.Sum256(data) != sk.Sum:
		return fmt.Errorf("%s changed since it was read; nothing was adopted", sk.Path)
	case !observed.Classify(sk.Path, data).HandWritten():
		return fmt.Errorf("%s is skillsync's own file, not a skill a person wrote; nothing was adopted", sk.Path)
	}
	return nil
}

// removeHandWritten removes sk's files, each only while it is still what was
// read: the supporting files first and then the folders they leave empty, so
// that a removal stopped half way still shows a skill a person wrote.
func removeHandWritten(w apply.Workspace, sk Skill) error {
	folders := map[string]bool{}
	for i, p := range supportPaths(sk) {
		if err := checkSupporting(w, p, sk.Files[i].Sum); err != nil {
			return err
		}
		if err := w.FS().Remove(p); err != nil {
			return fmt.Errorf("%s: %w", p, workspacefs.Cause(err))
		}
		for dir := path.Dir(p); dir != path.Dir(sk.Path); dir = path.Dir(dir) {
			folders[dir] = true
		}
	}
	// The deepest first: a folder is empty once those below it are gone.
	for _, dir := range slices.Backward(slices.Sorted(maps.Keys(folders))) {
		w.FS().Remove(dir) // a folder that still holds something stays
	}
	d, err := w.OpenDir(path.Dir(sk.Path))
	if err != nil {
		return workspacefs.Cause(err)
	}
	defer d.Close()
	if err := checkHandWritten(d, sk); err != nil {
		return err
	}
	return workspacefs.Cause(d.Remove(path.Base(sk.Path)))
}

// A NotLoadedError is an adoption the registry would not load with (Err, which
// may name the files the adoption would write): nothing was adopted, and the
// files it had created are taken back, but for what Undo says.
type NotLoadedError struct {
	Err, Undo error
}

func (e *NotLoadedError) Error() string {
	return errors.Join(fmt.Errorf("the registry does not load with the adopted skills, so nothing was adopted: %w", e.Err), e.Undo).Error()
}

func (e *NotLoadedError) Unwrap() error { return e.Err }
