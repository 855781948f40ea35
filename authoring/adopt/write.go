package adopt

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"path"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/apply"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
)

// Apply hands skills people wrote over to skillsync: it creates files (the
// registry documents declaring them, and their body files) and then removes each
// hand-written SKILL.md of replaces, for the next reconcile to generate in its
// place. Every hand-written file must still be exactly as it was read, a regular
// file in a real directory; the registry must load with the new files, or they
// are removed again and nothing has changed.
func Apply(sys workspacefs.System, root string, files []apply.NewFile, replaces []Skill) error {
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
	if err := w.CreateAll(files); err != nil {
		return err
	}
	in, err := controller.LoadInputs(sys, root, "", "")
	if err != nil {
		w.Uncreate(files)
		return fmt.Errorf("the registry does not load with the adopted skills, so nothing was adopted: %w", err)
	}
	want := desired.Build(in.Registry, in.Profile)
	for _, sk := range replaces {
		if _, ok := want.Files[sk.Path]; !ok {
			w.Uncreate(files)
			return fmt.Errorf("the registry would not write %s back at %s (the name is disabled, its target is not enabled, or the profile withholds it: see skillsync explain %s), so nothing was adopted",
				sk.Name, sk.Path, sk.Name)
		}
	}
	for _, sk := range replaces {
		if err := removeHandWritten(w, sk); err != nil {
			return fmt.Errorf("%s: %w (the registry already declares it: remove the file by hand, then reconcile)", sk.Path, err)
		}
	}
	return nil
}

// stillHandWritten checks that sk's file is what was read: a regular file, in a
// directory reached without a symlink, with the same bytes, and no generated one.
func stillHandWritten(w apply.Workspace, sk Skill) error {
	d, err := w.OpenDir(path.Dir(sk.Path))
	if err != nil {
		return fmt.Errorf("%s: %w; nothing was adopted", sk.Path, workspacefs.Cause(err))
	}
	defer d.Close()
	return checkHandWritten(d, sk)
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

func removeHandWritten(w apply.Workspace, sk Skill) error {
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
