package controller

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/skillsync/skillsync/banner"
	"github.com/skillsync/skillsync/internal/parallel"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
	"golang.org/x/sys/unix"
)

// Applied is one change of the plan as carried out, or the error that stopped it.
type Applied struct {
	*Change
	Err error
}

// ApplyError lists the changes that could not be made; the others were made.
type ApplyError struct{ Failed []Applied }

func (e *ApplyError) Error() string {
	msg := fmt.Sprintf("%d change(s) could not be applied; fix the cause and run again:", len(e.Failed))
	for _, f := range e.Failed {
		msg += fmt.Sprintf("\n  %s %s: %v", f.Action, f.Path, f.Err)
	}
	return msg
}

// ErrRefused means Apply was handed a plan that must not be applied.
var ErrRefused = errors.New("plan refused")

// Apply carries out a plan under root: leftovers first, then creates and updates, then
// deletes (build before prune). Every operation goes through an *os.Root, so nothing
// outside the workspace is touched even if a directory is swapped for a symlink
// mid-run. Every change re-reads its file right before touching it and leaves it
// alone unless it still holds exactly what the plan saw. A failed change does not
// stop the others; all failures come back in an *ApplyError.
func Apply(root string, plan Plan) ([]Applied, error) {
	if plan.Refused != "" {
		return nil, fmt.Errorf("%w: %s", ErrRefused, plan.Refused)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	// Each phase finishes before the next starts; within one, every change has a
	// path of its own, so they run a few at a time.
	phases := map[Action]int{Cleanup: 0, Create: 1, Update: 1, Delete: 2}
	byPhase := make([][]*Change, 3)
	for i := range plan.Changes {
		if p, ok := phases[plan.Changes[i].Action]; ok {
			byPhase[p] = append(byPhase[p], &plan.Changes[i])
		}
	}
	var done, failed []Applied
	for phase, todo := range byPhase {
		var errs []error
		if phase == 1 {
			errs = writeAll(r, todo)
		} else {
			errs = make([]error, len(todo))
			parallel.Each(len(todo), func(i int) error {
				errs[i] = removeOne(r, *todo[i])
				return nil
			})
		}
		for i, c := range todo {
			a := Applied{Change: c, Err: errs[i]}
			done = append(done, a)
			if a.Err != nil {
				failed = append(failed, a)
			}
		}
	}
	if len(failed) > 0 {
		return done, &ApplyError{Failed: failed}
	}
	return done, nil
}

func removeOne(r *os.Root, c Change) error {
	if c.Action == Cleanup {
		return cleanup(r, c.Path)
	}
	return remove(r, c.Path, c.OldSum)
}

// writeAll makes the creates and updates durable in one go: every new content is
// written to a temp file first, one syncfs then flushes them all, and only then is
// each put in place, by a hard link (create) or a rename (update). So a power loss
// leaves every SKILL.md old or new, never empty, at the cost of one sync per run
// rather than one per file.
func writeAll(r *os.Root, changes []*Change) []error {
	errs := make([]error, len(changes))
	dirs := openParents(r, changes)
	defer dirs.close()
	temps := make([]string, len(changes))
	parallel.Each(len(changes), func(i int) error {
		temps[i], errs[i] = dirs.stage(*changes[i])
		return nil
	})
	if err := syncFilesystem(r); err != nil {
		for i := range errs {
			if temps[i] != "" {
				r.Remove(temps[i])
				errs[i] = fmt.Errorf("not put in place: %w", err)
			}
		}
		return errs
	}
	parallel.Each(len(changes), func(i int) error {
		if temps[i] != "" {
			errs[i] = dirs.commit(*changes[i], temps[i])
		}
		return nil
	})
	return errs
}

// parentDirs holds the parent of every directory the changes write into open (for
// a skill file, its target directory), so that a change costs a few system calls in
// its own directory.
type parentDirs struct {
	open   map[string]*workspacefs.Dir
	failed map[string]error
}

// dirOf splits the directory holding p into its parent and its name in that parent.
func dirOf(p string) (parent, name string) {
	dir := path.Dir(p)
	if dir == "." {
		return ".", "."
	}
	return path.Dir(dir), path.Base(dir)
}

func openParents(r *os.Root, changes []*Change) parentDirs {
	t := parentDirs{open: map[string]*workspacefs.Dir{}, failed: map[string]error{}}
	for _, c := range changes {
		parent, _ := dirOf(c.Path)
		if t.open[parent] != nil || t.failed[parent] != nil {
			continue
		}
		var err error
		if c.Action == Create && parent != "." {
			err = r.MkdirAll(parent, 0o755)
		}
		var d *workspacefs.Dir
		if err == nil {
			d, err = workspacefs.OpenDir(r, parent)
		}
		if err != nil {
			t.failed[parent] = workspacefs.Cause(err)
			continue
		}
		t.open[parent] = d
	}
	return t
}

func (t parentDirs) close() {
	for _, d := range t.open {
		d.Close()
	}
}

// dir opens the directory holding p, creating it if asked.
func (t parentDirs) dir(p string, create bool) (*workspacefs.Dir, error) {
	parent, name := dirOf(p)
	if err := t.failed[parent]; err != nil {
		return nil, err
	}
	pd := t.open[parent]
	if create && name != "." {
		if err := pd.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, workspacefs.Cause(err)
		}
	}
	d, err := pd.Sub(name)
	if err != nil {
		return nil, workspacefs.Cause(err)
	}
	return d, nil
}

// stage writes a change's content to a temp file in its directory, creating the
// directory for a create, and returns the temp file's workspace path.
func (t parentDirs) stage(c Change) (string, error) {
	data, err := c.Content()
	if err != nil {
		return "", err
	}
	d, err := t.dir(c.Path, c.Action == Create)
	if err != nil {
		return "", err
	}
	defer d.Close()
	tmp, err := writeTemp(d, data)
	if err != nil {
		return "", err
	}
	return path.Join(path.Dir(c.Path), tmp), nil
}

// commit puts a staged temp file in place. A create ends with a hard link, which
// fails rather than replace a file someone put there since the scan; an update
// re-checks that the file is still what was planned on, then renames over it.
func (t parentDirs) commit(c Change, tmp string) error {
	d, err := t.dir(c.Path, false)
	if err != nil {
		return err // the temp file is in a directory no longer there, or not reachable
	}
	defer d.Close()
	name, tmpName := path.Base(c.Path), path.Base(tmp)
	defer d.Remove(tmpName) // after a link; after a rename it is gone already
	if c.Action == Update {
		if err := stillAsPlanned(d, name, c.Path, c.OldSum); err != nil {
			return err
		}
		if err := d.Rename(tmpName, name); err != nil {
			return workspacefs.Cause(err)
		}
		return nil
	}
	err = d.Link(tmpName, name)
	if errors.Is(err, fs.ErrExist) {
		return errAppeared
	}
	if err != nil && !linksUnsupported(err) {
		return workspacefs.Cause(err)
	}
	if err != nil {
		// Without hard links (some network and FUSE filesystems) the window between
		// this check and the rename is the best there is.
		if _, statErr := d.Lstat(name); !errors.Is(statErr, fs.ErrNotExist) {
			return errAppeared
		}
		if err := d.Rename(tmpName, name); err != nil {
			return workspacefs.Cause(err)
		}
	}
	return nil
}

var errAppeared = errors.New("a file appeared there since the scan (on a case-insensitive filesystem, perhaps under another case); kept")

func linksUnsupported(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EXDEV)
}

// remove deletes a generated file that is still what was planned on, then its skill
// directory if nothing else is left in it.
func remove(r *os.Root, rel string, old [32]byte) error {
	if err := stillAsPlanned(rootFiles{r}, rel, rel, old); err != nil {
		return err
	}
	if err := r.Remove(rel); err != nil {
		return workspacefs.Cause(err)
	}
	return removeIfEmpty(r, path.Dir(rel))
}

// cleanup removes what an interrupted run left: a temp file, or an empty skill
// directory (rmdir cannot remove anything that has since been put in it).
func cleanup(r *os.Root, rel string) error {
	if info, err := r.Lstat(rel); err == nil && info.IsDir() {
		return removeIfEmpty(r, rel)
	}
	return removeTemp(r, rel)
}

// removeTemp removes what an interrupted run left, if it still looks like that.
func removeTemp(r *os.Root, rel string) error {
	data, err := workspacefs.ReadRegular(r, rel, observed.MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return workspacefs.Cause(err)
	}
	if !banner.IsTempName(path.Base(rel)) || !banner.IsPartial(data) {
		return errors.New("no longer looks like a skillsync temp file; kept")
	}
	if err := r.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return workspacefs.Cause(err)
	}
	return removeIfEmpty(r, path.Dir(rel))
}

// removeIfEmpty removes a skill directory that nothing is left in.
func removeIfEmpty(r *os.Root, dir string) error {
	err := r.Remove(dir)
	if err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
		return nil
	}
	return workspacefs.Cause(err)
}

// regularFiles reads regular files: a *workspacefs.Dir, or an *os.Root as rootFiles.
type regularFiles interface {
	ReadRegular(name string, limit int64) ([]byte, error)
}

type rootFiles struct{ r *os.Root }

func (f rootFiles) ReadRegular(name string, limit int64) ([]byte, error) {
	return workspacefs.ReadRegular(f.r, name, limit)
}

// stillAsPlanned re-reads the file name in dir, which is rel in the workspace: it
// must still be a regular file carrying a banner for rel and hold exactly the bytes
// the plan was made from (their SHA-256 is old).
func stillAsPlanned(dir regularFiles, name, rel string, old [32]byte) error {
	data, err := dir.ReadRegular(name, observed.MaxFileSize)
	switch {
	case errors.Is(err, workspacefs.ErrNotRegular):
		return errors.New("no longer a regular file; kept")
	case err != nil:
		return fmt.Errorf("changed since the scan: %w", workspacefs.Cause(err))
	case observed.Classify(rel, data).Ownership == observed.Unowned:
		return errors.New("no longer carries a skillsync banner; kept")
	case sha256.Sum256(data) != old:
		return errors.New("changed since the scan; kept")
	}
	return nil
}

// writeTemp writes data to a new temp file directly in d and returns its name.
func writeTemp(d *workspacefs.Dir, data []byte) (string, error) {
	name := tempName()
	if err := d.WriteNew(name, data, 0o644); err != nil {
		return "", workspacefs.Cause(err)
	}
	return name, nil
}

// tempName is a fresh name of banner.TempPattern.
func tempName() string {
	var random [8]byte
	rand.Read(random[:])
	return strings.Replace(banner.TempPattern, "*", hex.EncodeToString(random[:]), 1)
}

// syncFilesystem flushes the filesystem holding the workspace (syncfs), where the
// kernel has it.
func syncFilesystem(r *os.Root) error {
	dir, err := r.Open(".")
	if err != nil {
		return workspacefs.Cause(err)
	}
	defer dir.Close()
	if err := unix.Syncfs(int(dir.Fd())); err != nil && !errors.Is(err, syscall.ENOSYS) {
		return fmt.Errorf("syncfs: %w", err)
	}
	return nil
}
