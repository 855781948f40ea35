package controller

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/skillsync/skillsync/banner"
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
	msg := fmt.Sprintf("%d change(s) could not be applied:", len(e.Failed))
	for _, f := range e.Failed {
		msg += fmt.Sprintf("\n  %s %s: %v", f.Action, f.Path, f.Err)
	}
	return msg
}

// ErrRefused means Apply was handed a plan that must not be applied.
var ErrRefused = errors.New("plan refused")

// Apply carries out a plan under root: leftovers first, then creates and updates, then
// deletes (build before prune). Every change re-reads its file right before touching
// it and leaves it alone unless it still holds exactly what the plan saw. A failed
// change does not stop the others; all failures come back in an *ApplyError.
func Apply(root string, plan Plan) ([]Applied, error) {
	if plan.Refused != "" {
		return nil, fmt.Errorf("%w: %s", ErrRefused, plan.Refused)
	}
	order := map[Action]int{Cleanup: 0, Create: 1, Update: 1, Delete: 2}
	var todo []Change
	for _, c := range plan.Changes {
		if _, ok := order[c.Action]; ok {
			todo = append(todo, c)
		}
	}
	sort.SliceStable(todo, func(i, j int) bool { return order[todo[i].Action] < order[todo[j].Action] })

	var done, failed []Applied
	for _, c := range todo {
		full := filepath.Join(root, filepath.FromSlash(c.Path))
		var err error
		switch c.Action {
		case Cleanup:
			err = removeTemp(full)
		case Create:
			err = create(full, c.New)
		case Update:
			err = update(c.Path, full, c.Old, c.New)
		case Delete:
			err = remove(c.Path, full, c.Old)
		}
		a := Applied{Change: c, Err: err}
		done = append(done, a)
		if err != nil {
			failed = append(failed, a)
		}
	}
	if len(failed) > 0 {
		return done, &ApplyError{Failed: failed}
	}
	return done, nil
}

// create writes a file that must not exist yet. The final step is a hard link, which
// fails rather than replace a file someone put there since the scan.
func create(full string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return unwrap(err)
	}
	tmp, err := writeTemp(filepath.Dir(full), data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, full)
	if errors.Is(err, fs.ErrExist) {
		return errors.New("a file appeared there since the scan; kept")
	}
	if err != nil && !linksUnsupported(err) {
		return unwrap(err)
	}
	if err != nil {
		// Without hard links (some network and FUSE filesystems) the window between
		// this check and the rename is the best there is.
		if _, statErr := os.Lstat(full); !errors.Is(statErr, fs.ErrNotExist) {
			return errors.New("a file appeared there since the scan; kept")
		}
		if err := os.Rename(tmp, full); err != nil {
			return unwrap(err)
		}
	}
	return nil
}

func linksUnsupported(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EXDEV)
}

// update replaces a generated file atomically, only if it is still what was planned on.
func update(rel, full string, old, data []byte) error {
	if err := stillAsPlanned(rel, full, old); err != nil {
		return err
	}
	tmp, err := writeTemp(filepath.Dir(full), data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, full); err != nil {
		os.Remove(tmp)
		return unwrap(err)
	}
	return nil
}

// remove deletes a generated file that is still what was planned on, then its skill
// directory if nothing else is left in it.
func remove(rel, full string, old []byte) error {
	if err := stillAsPlanned(rel, full, old); err != nil {
		return err
	}
	if err := os.Remove(full); err != nil {
		return unwrap(err)
	}
	return removeIfEmpty(filepath.Dir(full))
}

func removeTemp(full string) error {
	if !banner.IsTempName(filepath.Base(full)) {
		return fmt.Errorf("%s is not a skillsync temp file", full)
	}
	if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return unwrap(err)
	}
	return removeIfEmpty(filepath.Dir(full))
}

// removeIfEmpty removes a skill directory that nothing is left in.
func removeIfEmpty(dir string) error {
	if err := os.Remove(dir); err != nil && !isNotEmpty(err) && !errors.Is(err, fs.ErrNotExist) {
		return unwrap(err)
	}
	return nil
}

// stillAsPlanned re-reads the file: it must still carry a banner for its own path and
// hold exactly the bytes the plan was made from.
func stillAsPlanned(rel, full string, old []byte) error {
	info, err := os.Lstat(full)
	if err != nil {
		return fmt.Errorf("changed since the scan: %w", unwrap(err))
	}
	if !info.Mode().IsRegular() {
		return errors.New("no longer a regular file; kept")
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return unwrap(err)
	}
	if observed.Classify(rel, data).Ownership == observed.Unowned {
		return errors.New("no longer carries a skillsync banner; kept")
	}
	if !bytes.Equal(data, old) {
		return errors.New("changed since the scan; kept")
	}
	return nil
}

func writeTemp(dir string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, banner.TempPattern)
	if err != nil {
		return "", unwrap(err)
	}
	name := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr, os.Chmod(name, 0o644)); err != nil {
		os.Remove(name)
		return "", unwrap(err)
	}
	return name, nil
}

func isNotEmpty(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && (errors.Is(pe.Err, syscall.ENOTEMPTY) || errors.Is(pe.Err, fs.ErrExist))
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
