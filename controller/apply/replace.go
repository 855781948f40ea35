package apply

import (
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"

	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// The re-check before an update or a delete and the rename or remove that
// follows are two steps: a save of a person's that lands between them would be
// replaced or removed unseen. So the file is checked a second time once it is
// out of the way, where no save reaches it, and put back if it is not what the
// plan was made from: an update swaps the new file in with Exchange (where the
// system has no such swap, it renames over the file after the first check, and
// that moment stays open, docs/ownership.md), and a delete moves the file aside
// before it removes it.

// putOver puts the staged file tmp of d in place of name, which check must find
// as the plan expects (check(name) is nil), and removes what it replaced; sum is
// the SHA-256 of what tmp holds, and limit bounds what is read of it again.
func putOver(d workspacefs.Dir, tmp, name string, check func(name string) error, sum [32]byte, limit int64) error {
	if err := check(name); err != nil {
		d.Remove(tmp)
		return err
	}
	swapped := true
	err := d.Exchange(tmp, name)
	if errors.Is(err, workspacefs.ErrExchangeUnsupported) {
		swapped, err = false, d.Rename(tmp, name)
	}
	if err != nil {
		d.Remove(tmp)
		return goneSinceTheCheck(err)
	}
	if !swapped {
		return nil
	}
	// Swapped: tmp holds what was at name, a save that landed since the check
	// included.
	if err := check(tmp); err != nil {
		return swapBack(d, tmp, name, err, sum, limit)
	}
	d.Remove(tmp)
	return nil
}

// asStaged renames tmp, a supporting file's update staged in d under another
// name because its staged name (the digest of its content, sum) was taken, to
// that name if it is free by now: another file of the folder, updated to the
// same content, has been put in place. Swapped out under it, the old file is
// one the next scan knows for a leftover, should a kill leave it there; tmp is
// kept where the name is still taken or a rename cannot refuse to replace.
func asStaged(d workspacefs.Dir, tmp string, sum [32]byte) string {
	staged := banner.StagedNameOf(sum)
	if tmp == staged || d.RenameNoReplace(tmp, staged) != nil {
		return tmp
	}
	return staged
}

// swapBack swaps tmp, found by the check after a swap not to hold what the plan
// was made from (why), back to name, where skillsync's file (sum) is; what was
// there is in place again. A save that lands at name in the moment between the
// two swaps is kept beside it (keepAside), not removed.
func swapBack(d workspacefs.Dir, tmp, name string, why error, sum [32]byte, limit int64) error {
	if err := d.Exchange(tmp, name); err != nil {
		return &notPutBackError{why: why, kept: keepAside(d, tmp, name), cause: workspacefs.Cause(err)}
	}
	if data, err := d.ReadRegular(tmp, limit); err != nil || sha256.Sum256(data) != sum {
		return fmt.Errorf("%w; a file saved there while it was put back is kept as %s", why, keepAside(d, tmp, name))
	}
	d.Remove(tmp)
	return why
}

// notPutBackError is a swap back that failed: the new file stays at its path,
// and what a person saved there, which the check after the swap found (why),
// is kept under another name (kept).
type notPutBackError struct {
	why   error
	kept  string
	cause error
}

func (e *notPutBackError) Error() string {
	return fmt.Sprintf("%v, as %s: it could not be put back (%v)", e.why, e.kept, e.cause)
}

func (e *notPutBackError) Unwrap() error { return e.why }

// keepAside gives tmp, a person's file that could not be put back at name, a
// name beside it that no run takes for a leftover of its own, as a temp name
// with a banner would be, and says where it is kept.
func keepAside(d workspacefs.Dir, tmp, name string) string {
	kept := name + ".kept-" + rand.Text()[:8]
	if err := moveAside(d, tmp, kept); err != nil {
		return tmp + ", a temp name (move it away before the next run, which may take it for a leftover of its own)"
	}
	return kept
}

// goneSinceTheCheck is the error of a swap or a move that found no file where
// the check found one.
func goneSinceTheCheck(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("changed since the scan: %w", workspacefs.Cause(err))
	}
	return workspacefs.Cause(err)
}

// removeChecked removes name from d once check finds it as the plan expects,
// moving it aside to the name aside first and checking it again there: a save
// that landed since the first check is put back, as is a file that cannot be
// removed. Where aside is taken, name is removed after the first check alone.
func removeChecked(d workspacefs.Dir, name, aside string, check func(name string) error) error {
	if err := check(name); err != nil {
		return err
	}
	switch err := moveAside(d, name, aside); {
	case errors.Is(err, fs.ErrExist):
		return workspacefs.Cause(d.Remove(name))
	case err != nil:
		return goneSinceTheCheck(err)
	}
	if err := check(aside); err != nil {
		return putBack(d, aside, name, err, true)
	}
	if err := d.Remove(aside); err != nil {
		// A file that can be renamed but not removed (read-only on Windows)
		// goes back to its path: a delete that fails leaves it where it was.
		return putBack(d, aside, name, workspacefs.Cause(err), false)
	}
	return nil
}

// moveAside renames name to aside, failing with fs.ErrExist if aside is there.
func moveAside(d workspacefs.Dir, name, aside string) error {
	err := d.RenameNoReplace(name, aside)
	if !errors.Is(err, workspacefs.ErrNoReplaceUnsupported) {
		return err
	}
	// Only skillsync names a file aside, with a name no one else gives one.
	if _, err := d.Lstat(aside); !errors.Is(err, fs.ErrNotExist) {
		return fs.ErrExist
	}
	return d.Rename(name, aside)
}

// putBack renames aside back to name, unless a file is there again, and
// returns why it is put back: the check after moving it found it not what the
// plan was made from, or it could not be removed. byLink says a hard link may
// stand in for a rename that cannot refuse to replace: not for a file that
// could not be removed, whose name aside would stay as a second link.
func putBack(d workspacefs.Dir, aside, name string, why error, byLink bool) error {
	err := d.RenameNoReplace(aside, name)
	if errors.Is(err, workspacefs.ErrNoReplaceUnsupported) {
		// A hard link never replaces either; without one, a save that lands
		// between the look and the rename is replaced.
		err = workspacefs.ErrLinksUnsupported
		if byLink {
			err = d.Link(aside, name)
		}
		if err == nil {
			d.Remove(aside)
		} else if errors.Is(err, workspacefs.ErrLinksUnsupported) {
			if _, err = d.Lstat(name); errors.Is(err, fs.ErrNotExist) {
				err = d.Rename(aside, name)
			} else {
				err = fs.ErrExist
			}
		}
	}
	if err != nil {
		return fmt.Errorf("%w, as %s: it could not be put back (%v)", why, keepAside(d, aside, name), workspacefs.Cause(err))
	}
	return why
}
