package state

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// UnwrittenFile lists, a workspace-relative path a line, the supporting files
// a SKILL.md skillsync put in place names before skillsync put them there. Only
// the manifest proves a supporting file skillsync's; a file that a person puts
// at such a path meanwhile (a run stopped between the two, or the moment
// between them) would otherwise read as skillsync's edited by hand.
const UnwrittenFile = Dir + "/unwritten"

// maxUnwritten bounds what ReadUnwritten reads.
const maxUnwritten = 64 << 20

// ReadUnwritten reads UnwrittenFile; none is an empty set.
func ReadUnwritten(sys workspacefs.System, root string) (map[string]bool, error) {
	r, err := sys.Open(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return readUnwritten(r)
}

func readUnwritten(r workspacefs.FS) (map[string]bool, error) {
	data, err := r.ReadFile(UnwrittenFile, maxUnwritten)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return map[string]bool{}, nil
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", UnwrittenFile, workspacefs.Cause(err))
	}
	paths := map[string]bool{}
	for line := range strings.Lines(string(data)) {
		if p := strings.TrimSuffix(line, "\n"); p != "" {
			paths[p] = true
		}
	}
	return paths, nil
}

// WriteUnwritten makes UnwrittenFile list paths, its content synced before it
// is renamed into place, ahead of the SKILL.md renamed next (journaling
// filesystems keep renames in order, which the steps of a run rely on too), or
// removes it when paths is empty. A list as it is is not written again.
func WriteUnwritten(sys workspacefs.System, root string, paths map[string]bool) error {
	r, err := sys.Open(root)
	if err != nil {
		return err
	}
	defer r.Close()
	now, err := readUnwritten(r)
	if err != nil {
		return err
	}
	if maps.Equal(now, paths) {
		return nil
	}
	if len(paths) == 0 {
		if err := r.Remove(UnwrittenFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", UnwrittenFile, workspacefs.Cause(err))
		}
		return nil
	}
	if err := Make(r); err != nil {
		return err
	}
	return replaceFileWith(r, UnwrittenFile, true, func(w io.Writer) error {
		for _, p := range slices.Sorted(maps.Keys(paths)) {
			if _, err := io.WriteString(w, p+"\n"); err != nil {
				return err
			}
		}
		return nil
	})
}
