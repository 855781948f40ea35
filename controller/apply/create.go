package apply

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
)

// ErrExists means a command that only creates files found one there.
var ErrExists = errors.New("already exists; nothing was written")

// ErrLeadsOut means a command that only creates files would create one
// through a symlink that leads out of the workspace, which os.Root does not
// follow.
var ErrLeadsOut = errors.New("skillsync does not follow out of the workspace; nothing was written (make it a folder, or run skillsync where it leads)")

// NewFile is a file a command creates.
type NewFile struct {
	Path       string
	Content    []byte
	Executable bool
}

// Created is what CreateAll created: the files, and the directories it made
// for them, deepest first.
type Created struct {
	w     Workspace
	files []NewFile
	dirs  []string
}

// Undo removes what was created, as long as it is as created: each file that
// still holds what was written, then each directory made for them that is
// empty, so that a command refused after creating leaves the workspace as it
// was. It returns what it kept or could not remove, and why.
func (c Created) Undo() error {
	err := c.w.Uncreate(c.files)
	for _, dir := range c.dirs {
		removeIfEmpty(c.w, dir)
	}
	return err
}

// CreateAll creates every one of files, or, when one is there already or cannot
// be written, none: those it created, and the directories it made for them,
// are removed again.
func (w Workspace) CreateAll(files []NewFile) (Created, error) {
	for _, f := range files {
		_, err := w.r.Lstat(f.Path)
		if err == nil {
			return Created{}, fmt.Errorf("%s %w", f.Path, ErrExists)
		}
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if link := w.symlinkOutOnTheWay(f.Path); link != "" {
			return Created{}, fmt.Errorf("%s: %s is a symlink %w", f.Path, link, ErrLeadsOut)
		}
		return Created{}, fmt.Errorf("%s: %w", f.Path, workspacefs.Cause(err))
	}
	created := Created{w: w, files: files, dirs: w.missingDirs(files)}
	var creates []*plan.Change
	for _, f := range files {
		creates = append(creates, &plan.Change{Path: f.Path, Action: plan.Create, New: f.Content, Executable: f.Executable})
	}
	errs, _ := w.WriteAll(creates)
	for i, err := range errs {
		if err != nil {
			return Created{}, errors.Join(fmt.Errorf("write %s: %w", creates[i].Path, workspacefs.Cause(err)), created.Undo())
		}
	}
	return created, nil
}

// symlinkOutOnTheWay is the first folder on the way to p that is a symlink
// leading out of the workspace, "" when none is (or where it leads cannot be
// told).
func (w Workspace) symlinkOutOnTheWay(p string) string {
	root, err := w.r.EvalSymlinks(".")
	if err != nil {
		return ""
	}
	prefix := ""
	for part := range strings.SplitSeq(path.Dir(p), "/") {
		prefix = path.Join(prefix, part)
		if info, err := w.r.Lstat(prefix); prefix == "." || err != nil || info.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if real, err := w.r.EvalSymlinks(prefix); err == nil && real != root && !strings.HasPrefix(real, root+string(filepath.Separator)) {
			return prefix
		}
	}
	return ""
}

// missingDirs are the directories files are in, and those above them, that
// are not there yet, deepest first.
func (w Workspace) missingDirs(files []NewFile) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		for dir := path.Dir(f.Path); dir != "." && !seen[dir]; dir = path.Dir(dir) {
			seen[dir] = true
			if _, err := w.r.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
				break
			}
			out = append(out, dir)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	return out
}

// Uncreate removes each of files that still holds exactly what was created,
// checked again once moved aside (removeChecked): a save that lands between
// the check and the remove is kept. It returns, per file, why it was kept or
// where a save it found is.
func (w Workspace) Uncreate(files []NewFile) error {
	var errs []error
	for _, f := range files {
		if err := w.uncreate(f); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.Path, err))
		}
	}
	return errors.Join(errs...)
}

func (w Workspace) uncreate(f NewFile) error {
	d, err := w.OpenDir(path.Dir(f.Path))
	if err != nil {
		return fmt.Errorf("%w; not removed", workspacefs.Cause(err))
	}
	defer d.Close()
	err = removeChecked(d, path.Base(f.Path), banner.NewTempName(), func(name string) error {
		data, err := d.ReadRegular(name, int64(len(f.Content))+1)
		switch {
		case err != nil:
			return fmt.Errorf("%w; not removed", workspacefs.Cause(err))
		case !bytes.Equal(data, f.Content):
			return errNotAsCreated
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil // removed by someone else already: nothing to take back
	}
	return err
}

var errNotAsCreated = errors.New("changed since it was created; kept")

// Edit replaces rel, a file a person owns that a command was asked to edit (a
// name added to skillsync.yaml, shown and confirmed first), with content, only
// if it is still the regular file whose bytes hash to old: the new content is
// written to a temp file beside it and made durable, and the file is checked
// again just before it is replaced, and once more after (putOver). An error
// says the file was not written, but for an *EditedOverASaveError.
func (w Workspace) Edit(rel string, old [32]byte, content []byte) error {
	err := w.edit(rel, old, content)
	var stuck *notPutBackError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &stuck):
		return &EditedOverASaveError{kept: stuck.kept, why: stuck.why, cause: stuck.cause}
	}
	return fmt.Errorf("%w; not written", err)
}

// An EditedOverASaveError is an Edit whose new content is in place, over a
// save the check after the swap found there and could not put back: the save
// is kept beside the file, and the error says where.
type EditedOverASaveError struct {
	kept       string
	why, cause error
}

func (e *EditedOverASaveError) Error() string {
	return fmt.Sprintf("%v, and the new content is in place all the same: putting the file as saved back failed (%v), so it is kept as %s", e.why, e.cause, e.kept)
}

func (w Workspace) edit(rel string, old [32]byte, content []byte) error {
	d, err := w.OpenDir(path.Dir(rel))
	if err != nil {
		return workspacefs.Cause(err)
	}
	defer d.Close()
	tmp, err := writeTemp(d, content, 0o644)
	if err != nil {
		return err
	}
	if err := d.Flush(); err != nil {
		d.Remove(tmp)
		return workspacefs.Cause(err)
	}
	return putOver(d, tmp, path.Base(rel), func(name string) error {
		data, err := d.ReadRegular(name, observed.MaxFileSize)
		switch {
		case errors.Is(err, workspacefs.ErrNotRegular):
			return errors.New("no longer a regular file")
		case err != nil:
			return workspacefs.Cause(err)
		case sha256.Sum256(data) != old:
			return errors.New("changed since it was read")
		}
		return nil
	}, sha256.Sum256(content), observed.MaxFileSize)
}
