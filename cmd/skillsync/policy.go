package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// policyEnv names the organisation's policy file in place of the one in the
// user's configuration directory.
const policyEnv = "SKILLSYNC_POLICY"

// orgPolicy is the organisation's policy file: where $SKILLSYNC_POLICY names
// it, else skillsync/policy.yaml in the user's configuration directory; nil
// when there is none. A policy that cannot be read is an error, never no
// policy.
func orgPolicy() (*registry.Policy, error) {
	file := os.Getenv(policyEnv)
	named := file != ""
	if !named {
		dir, err := os.UserConfigDir()
		if err != nil {
			return nil, nil
		}
		file = filepath.Join(dir, "skillsync", registry.PolicyName)
	}
	// Only the file in the configuration directory may be missing: one that
	// $SKILLSYNC_POLICY names must be there.
	missing := func(err error) bool { return !named && errors.Is(err, fs.ErrNotExist) }
	root, err := (workspacefs.OS{}).Open(filepath.Dir(file))
	if missing(err) {
		return nil, nil
	}
	if err != nil {
		return nil, &os.PathError{Op: "read the organisation's policy", Path: file, Err: workspacefs.Cause(err)}
	}
	defer root.Close()
	data, err := root.ReadRegular(filepath.Base(file), 1<<20)
	if missing(err) {
		return nil, nil
	}
	if err != nil {
		return nil, &os.PathError{Op: "read the organisation's policy", Path: file, Err: workspacefs.Cause(err)}
	}
	read := func(name string) ([]byte, error) {
		data, err := root.ReadFile(name, 1<<20)
		return data, workspacefs.Cause(err)
	}
	p, ps := registry.ParsePolicy(file, data, read)
	if len(ps) > 0 {
		return nil, ps
	}
	return &p, nil
}
