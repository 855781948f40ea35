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
)

// Applied is one change as carried out, or the error that stopped it.
type Applied struct {
	Change
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
	byPhase := make([][]Change, 3)
	for _, c := range plan.Changes {
		if p, ok := phases[c.Action]; ok {
			byPhase[p] = append(byPhase[p], c)
		}
	}
	var done, failed []Applied
	for _, todo := range byPhase {
		results := make([]Applied, len(todo))
		parallel.Each(len(todo), func(i int) error {
			results[i] = Applied{Change: todo[i], Err: applyOne(r, todo[i])}
			return nil
		})
		for _, a := range results {
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

func applyOne(r *os.Root, c Change) error {
	switch c.Action {
	case Cleanup:
		return cleanup(r, c.Path)
	case Delete:
		return remove(r, c.Path, c.OldSum)
	}
	data, err := c.Content()
	if err != nil {
		return err
	}
	if c.Action == Create {
		return create(r, c.Path, data)
	}
	return update(r, c.Path, c.OldSum, data)
}

var errAppeared = errors.New("a file appeared there since the scan (on a case-insensitive filesystem, perhaps under another case); kept")

// create writes a file that must not exist yet. The final step is a hard link, which
// fails rather than replace a file someone put there since the scan.
func create(r *os.Root, rel string, data []byte) error {
	if err := r.Mkdir(path.Dir(rel), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		if err := r.MkdirAll(path.Dir(rel), 0o755); err != nil {
			return workspacefs.Cause(err)
		}
	}
	// The skill directory's own root makes each step below one system call.
	d, err := r.OpenRoot(path.Dir(rel))
	if err != nil {
		return workspacefs.Cause(err)
	}
	defer d.Close()
	name := path.Base(rel)
	tmp, err := writeTemp(d, data)
	if err != nil {
		return err
	}
	defer d.Remove(tmp)
	err = d.Link(tmp, name)
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
		if err := d.Rename(tmp, name); err != nil {
			return workspacefs.Cause(err)
		}
	}
	return nil
}

func linksUnsupported(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EXDEV)
}

// update replaces a generated file atomically, only if it is still what was planned on.
func update(r *os.Root, rel string, old [32]byte, data []byte) error {
	d, err := r.OpenRoot(path.Dir(rel))
	if err != nil {
		return workspacefs.Cause(err)
	}
	defer d.Close()
	name := path.Base(rel)
	if err := stillAsPlanned(d, name, rel, old); err != nil {
		return err
	}
	tmp, err := writeTemp(d, data)
	if err != nil {
		return err
	}
	if err := d.Rename(tmp, name); err != nil {
		d.Remove(tmp)
		return workspacefs.Cause(err)
	}
	return nil
}

// remove deletes a generated file that is still what was planned on, then its skill
// directory if nothing else is left in it.
func remove(r *os.Root, rel string, old [32]byte) error {
	if err := stillAsPlanned(r, rel, rel, old); err != nil {
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

// stillAsPlanned re-reads the file name under r, which is rel in the workspace: it
// must still be a regular file carrying a banner for rel and hold exactly the bytes
// the plan was made from (their SHA-256 is old).
func stillAsPlanned(r *os.Root, name, rel string, old [32]byte) error {
	data, err := workspacefs.ReadRegular(r, name, observed.MaxFileSize)
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

// writeTemp writes data to a new temp file directly under r and returns its name.
func writeTemp(r *os.Root, data []byte) (string, error) {
	var random [8]byte
	rand.Read(random[:])
	name := strings.Replace(banner.TempPattern, "*", hex.EncodeToString(random[:]), 1)
	f, err := r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", workspacefs.Cause(err)
	}
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Close()); err != nil {
		r.Remove(name)
		return "", workspacefs.Cause(err)
	}
	return name, nil
}
