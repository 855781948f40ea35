package controller

import (
	"errors"
	"io/fs"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/internal/parallel"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
)

type scanResult struct {
	state observed.State
	err   error
}

// scansAhead is how many target directories are scanned ahead of the one being
// planned: the first three that exist (in the order of their names), as many as
// a workspace usually has, are scanned while the inputs load, and each next one
// while those before it are planned, holding the observed state of at most four
// targets, not of the whole workspace.
const scansAhead = 3

// targetScans are the scans of the target directories of a workspace, taken in
// order. A directory that exists is scanned in the background, scansAhead ahead;
// one that did not exist when the scans began is scanned when it is taken, so the
// nine or ten known directories a workspace has no use for hold no place ahead
// of the ones it has. Every target is scanned either way: a directory made since
// it was found missing is scanned like any other.
type targetScans struct {
	sys     workspacefs.System
	root    string
	targets []string
	// slot is each target's index among the scans ahead, -1 for one scanned
	// when taken.
	slot  []int
	ahead *parallel.Ahead[scanResult]
}

// scanTargets starts scanning the directories of targets of the workspace at root.
func scanTargets(sys workspacefs.System, root string, targets []string) *targetScans {
	ts := &targetScans{sys: sys, root: root, targets: targets, slot: make([]int, len(targets))}
	var present []string
	for i, exists := range targetsExist(sys, root, targets) {
		ts.slot[i] = -1
		if exists {
			ts.slot[i] = len(present)
			present = append(present, targets[i])
		}
	}
	ts.ahead = parallel.StartAhead(len(present), scansAhead, 1, func(i int) scanResult {
		st, err := scanRoot(sys, root, clients.Dir(present[i]))
		return scanResult{st, err}
	})
	return ts
}

// Take is the scan of the i-th target.
func (ts *targetScans) Take(i int) scanResult {
	if ts.slot[i] >= 0 {
		return ts.ahead.Take(ts.slot[i])
	}
	st, err := scanRoot(ts.sys, ts.root, clients.Dir(ts.targets[i]))
	return scanResult{st, err}
}

// Close stops the scans ahead and waits for the one under way.
func (ts *targetScans) Close() { ts.ahead.Close() }

// targetsExist says of each target whether its directory may exist: anything
// but a plain "not there" (a symlink, an error) counts as existing, for its scan
// to judge.
func targetsExist(sys workspacefs.System, root string, targets []string) []bool {
	exists := make([]bool, len(targets))
	for i := range exists {
		exists[i] = true
	}
	real, err := workspacefs.RealPath(root)
	if err != nil {
		return exists
	}
	r, err := sys.Open(real)
	if err != nil {
		return exists
	}
	defer r.Close()
	for i, t := range targets {
		_, err := r.Lstat(clients.Dir(t))
		exists[i] = !errors.Is(err, fs.ErrNotExist)
	}
	return exists
}

// scanRoot scans dir of the workspace at root the way the loader finds it: through
// its real path, so the two agree on what Root is.
func scanRoot(sys workspacefs.System, root, dir string) (observed.State, error) {
	real, err := workspacefs.RealPath(root)
	if err != nil {
		return observed.State{}, err
	}
	return observed.Scan(sys, real, []string{dir})
}
