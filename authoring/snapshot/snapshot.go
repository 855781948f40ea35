package snapshot

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/apply"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
)

// Write writes content, an MCP snapshot, at rel: a new file, or in place
// of one skillsync wrote there before. A file a person wrote, or one edited by
// hand without force, is kept and is an error. It returns what was there, nil for
// nothing, for the caller to put back with Restore, and whether it wrote:
// a snapshot the same as the one there is left alone.
func Write(sys workspacefs.System, root, rel string, content []byte, force bool) (old []byte, wrote bool, err error) {
	w, err := apply.OpenWorkspace(sys, root)
	if err != nil {
		return nil, false, err
	}
	defer w.Close()
	data, err := w.FS().ReadRegular(rel, observed.MaxFileSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		_, err := w.CreateAll([]apply.NewFile{{Path: rel, Content: content}})
		return nil, err == nil, err
	case err != nil:
		return nil, false, fmt.Errorf("%s: %w", rel, workspacefs.Cause(err))
	case bytes.Equal(data, content):
		return data, false, nil
	}
	switch f := observed.Classify(rel, data); {
	case f.Ownership == observed.Unowned:
		return nil, false, fmt.Errorf("%s is not a snapshot skillsync wrote (%s); kept: give the source another snapshot path, or remove the file", rel, f.Reason)
	case f.Ownership == observed.Modified && !force:
		return nil, false, &EditedError{Path: rel}
	}
	update := &plan.Change{Path: rel, Action: plan.Update, New: content, OldSum: sha256.Sum256(data)}
	if errs, _ := w.WriteAll([]*plan.Change{update}); errs[0] != nil {
		return nil, false, fmt.Errorf("write %s: %w", rel, workspacefs.Cause(errs[0]))
	}
	return data, true, nil
}

// Restore puts back at rel what Write found there (old), or
// removes what it created when there was nothing (old is nil), if rel still
// holds written.
func Restore(sys workspacefs.System, root, rel string, old, written []byte) error {
	w, err := apply.OpenWorkspace(sys, root)
	if err != nil {
		return err
	}
	defer w.Close()
	if old == nil {
		return w.Uncreate([]apply.NewFile{{Path: rel, Content: written}})
	}
	back := &plan.Change{Path: rel, Action: plan.Update, New: old, OldSum: sha256.Sum256(written)}
	if errs, _ := w.WriteAll([]*plan.Change{back}); errs[0] != nil {
		return fmt.Errorf("put back %s: %w", rel, workspacefs.Cause(errs[0]))
	}
	return nil
}

// EditedError is a snapshot edited by hand, kept: forcing the write
// replaces it.
type EditedError struct{ Path string }

func (e *EditedError) Error() string {
	return e.Path + " was edited by hand; kept (declare an override in another registry file instead)"
}

// RejectedError is a snapshot the registry does not load with: what was
// there was put back as it was, or, where there was nothing, nothing was
// written; Problems say why.
type RejectedError struct {
	Path     string
	New      bool // there was no snapshot at Path
	Problems registry.Problems
	Err      error // a failure to load or to put back, when not Problems
}

func (e *RejectedError) Error() string {
	if e.New {
		return "the registry does not load with what the server lists, so " + e.Path + " was not written"
	}
	return "the registry does not load with what the server lists, so " + e.Path + " is as it was"
}

func (e *RejectedError) Unwrap() error { return e.Err }

// Record writes content at rel, as Write does, and keeps it only
// if the registry loads with it: otherwise what was there is put back and the
// error is a RejectedError. Problems that are not the snapshot's (a
// person's file that does not load, another source's snapshot) neither keep it
// out nor are reported here:
// they are the workspace's, and every other command reports them. A snapshot
// already as content is checked the same way, so that one that no longer loads
// (its selector changed) is never called unchanged.
func Record(sys workspacefs.System, root, config, rel string, content []byte, force bool) (wrote bool, err error) {
	old, wrote, err := Write(sys, root, rel, content, force)
	if err != nil {
		return wrote, err
	}
	in, loadErr := controller.LoadInputs(controller.Request{System: workspacefs.NewReadOnly(sys), Root: root, ConfigFile: config})
	rejected := &RejectedError{Path: rel, New: wrote && old == nil}
	var ps registry.Problems
	switch {
	case loadErr == nil:
		return wrote, nil
	case errors.As(loadErr, &ps) && in.Registry != nil:
		rejected.Problems = in.Registry.OfSnapshot(rel, ps)
		if len(rejected.Problems) == 0 {
			return wrote, nil
		}
	default:
		rejected.Err = loadErr
	}
	if wrote {
		if err := Restore(sys, root, rel, old, content); err != nil {
			rejected.Err = errors.Join(rejected.Err, err)
		}
	}
	return false, rejected
}
