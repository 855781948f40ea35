package state

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// UseProfile records name as the workspace's active profile in .skillsync/profile.
// The name must be a declared profile of the registry config (relative to root)
// names, and the registry must be valid.
func UseProfile(sys workspacefs.System, root, config, name string) error {
	reg, err := registry.LoadConfig(sys, root, config, nil)
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
	if err := Make(r); err != nil {
		return err
	}
	return replaceFile(r, desired.ProfileFile, []byte(name+"\n"))
}

// ReadProfile reads .skillsync/profile; "" when there is none.
func ReadProfile(r workspacefs.FS) (string, error) {
	if err := Check(r); err != nil {
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
