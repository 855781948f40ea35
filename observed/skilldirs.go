package observed

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// ScanSkillDirs scans the entries called names of the target directory dir alone,
// and finds in them what Scan of dir finds there: a watcher that knows which skill
// directories changed reads only those. A name with nothing under it adds
// nothing; a target directory that must not be used is Blocked, as in Scan.
func ScanSkillDirs(sys workspacefs.System, root, dir string, names []string) (State, error) {
	r, err := sys.Open(root)
	if err != nil {
		return State{}, err
	}
	defer r.Close()
	st := newState()
	exists, link, reason, err := plainDirectory(r, dir)
	switch {
	case err != nil:
		return State{}, err
	case reason != "":
		st.block(dir, link, reason)
	case exists:
		if err := st.scanNamed(r, dir, names); err != nil {
			return State{}, err
		}
	}
	st.finish(r)
	return st, nil
}

// scanNamed scans the entries called names of the target directory dir.
func (st *State) scanNamed(root workspacefs.FS, dir string, names []string) error {
	target, err := root.OpenDir(dir)
	if err != nil {
		return fmt.Errorf("read %s: %w", dir, workspacefs.Cause(err))
	}
	defer target.Close()
	var entries []workspacefs.Entry
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		typ, err := target.Lstat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, workspacefs.ErrNotOneElement):
			continue
		case err != nil:
			return fmt.Errorf("read %s: %w", dir, workspacefs.Cause(err))
		}
		entries = append(entries, workspacefs.Entry{Name: name, Type: typ})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return st.scanEntries(target, dir, entries)
}
