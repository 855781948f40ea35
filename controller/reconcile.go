package controller

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/observed"
)

// Request is one reconcile pass over a workspace.
type Request struct {
	Root        string
	ProfileFlag string
	ProfileEnv  string
	Check       bool // plan and report; write nothing
	Options
}

// Inputs is the validated registry and what it makes of the workspace.
type Inputs struct {
	Registry *registry.Registry
	Profile  desired.Profile
	Desired  desired.State
}

// Outcome is everything one pass found and did.
type Outcome struct {
	Inputs
	Observed observed.State
	Plan     Plan
	Applied  []Applied
	// Problems holds invalid input; when set, nothing was planned or written.
	Problems registry.Problems
	// Err is any other failure: I/O, a refused plan, changes that failed.
	Err error
}

// LoadInputs reads and validates the registry and resolves the active profile. Any
// problem with the inputs comes back as registry.Problems.
func LoadInputs(root, profileFlag, profileEnv string) (Inputs, error) {
	reg, err := registry.Load(root)
	if err != nil {
		return Inputs{}, err
	}
	fileProfile, err := readProfileFile(reg.Root)
	if err != nil {
		return Inputs{Registry: reg}, err
	}
	profile, problem := desired.ResolveProfile(reg, desired.ProfileSources{Flag: profileFlag, Env: profileEnv, ProfileFile: fileProfile})
	if problem != nil {
		return Inputs{Registry: reg}, registry.Problems{*problem}
	}
	want, err := desired.Build(reg, profile)
	if err != nil {
		return Inputs{Registry: reg}, err
	}
	return Inputs{Registry: reg, Profile: profile, Desired: want}, nil
}

// Reconcile runs one full pass: load, build, scan, plan and, unless Check, apply. It
// fails closed: with any problem in the inputs nothing is planned or written.
func Reconcile(req Request) Outcome {
	var out Outcome
	in, err := LoadInputs(req.Root, req.ProfileFlag, req.ProfileEnv)
	out.Inputs = in
	var problems registry.Problems
	if errors.As(err, &problems) {
		out.Problems = problems
		return out
	}
	if err != nil {
		out.Err = err
		return out
	}
	out.Observed, err = observed.Scan(in.Registry.Root, scanDirs())
	if err != nil {
		out.Err = err
		return out
	}
	out.Plan = MakePlan(in.Desired, out.Observed, req.Options)
	if req.Check || out.Plan.Refused != "" {
		return out
	}
	out.Applied, out.Err = Apply(in.Registry.Root, out.Plan)
	return out
}

// scanDirs is every target directory, enabled or not, so that files generated for a
// target that has since been disabled are found and pruned as orphans.
func scanDirs() []string {
	var dirs []string
	for _, d := range desired.TargetDirs() {
		dirs = append(dirs, d)
	}
	return dirs
}

// readProfileFile reads .skillsync/profile, which must be a regular file: a symlink
// could make skillsync read outside the workspace.
func readProfileFile(root string) (string, error) {
	full := filepath.Join(root, filepath.FromSlash(desired.ProfileFile))
	info, err := os.Lstat(full)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err == nil && !info.Mode().IsRegular() {
		return "", registry.Problems{{Pos: registry.Position{File: desired.ProfileFile}, Message: "is not a regular file",
			Hint: "run skillsync profile use NAME to rewrite it"}}
	}
	var data []byte
	if err == nil {
		data, err = os.ReadFile(full)
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", desired.ProfileFile, err)
	}
	return string(data), nil
}
