package controller

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
)

// ErrExists means init found a file it would have written.
var ErrExists = errors.New("already exists; init only starts new workspaces")

// Started is what Init did.
type Started struct {
	Files []string
	// InUse are the clients found in use, with the evidence of each.
	InUse map[string][]string
	// Targets are the targets written into the config: those recommended for
	// the clients in use, or for every measured client when none is.
	Targets clients.Recommendation
}

// Init writes a starter workspace into dir, creating dir if needed, with the
// targets that reach the clients in use there. It touches no existing file and
// writes nothing outside dir, symlinks included. lookPath is exec.LookPath in
// production.
func Init(sys workspacefs.System, dir string, lookPath func(string) (string, error)) (Started, error) {
	if err := sys.MkdirAll(dir, 0o755); err != nil {
		return Started{}, err
	}
	w, err := openWorkspace(sys, dir)
	if err != nil {
		return Started{}, err
	}
	defer w.close()
	r := w.r
	started := Started{InUse: map[string][]string{}}
	var inUse []string
	evidence := observed.Evidence(r, lookPath)
	for _, c := range clients.All {
		if found := evidence[c.Name]; len(found) > 0 {
			started.InUse[c.Name] = found
			inUse = append(inUse, c.Name)
		}
	}
	if len(inUse) == 0 {
		inUse = clients.Measured()
	}
	started.Targets = clients.Recommend(inUse)
	files := registry.StarterFiles(started.Targets.Targets)
	for _, f := range files {
		_, err := r.Lstat(f.Path)
		if err == nil {
			return Started{}, fmt.Errorf("%s %w", f.Path, ErrExists)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return Started{}, fmt.Errorf("%s: %w", f.Path, workspacefs.Cause(err))
		}
		started.Files = append(started.Files, f.Path)
	}
	var creates []*Change
	for _, f := range files {
		creates = append(creates, &Change{Path: f.Path, Action: Create, New: []byte(f.Content)})
	}
	errs, _ := writeAll(w, creates)
	for i, err := range errs {
		if err != nil {
			return Started{}, fmt.Errorf("write %s: %w", creates[i].Path, workspacefs.Cause(err))
		}
	}
	return started, nil
}
