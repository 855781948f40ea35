package forget

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/controller/apply"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
)

// File is a generated file as read, and what it becomes once handed over.
type File struct {
	Path  string
	Sum   [32]byte // of the file as read, checked again before it is replaced
	Owner string   // the declaration its banner names
	Yours []byte   // the file without its banner
}

// HandOver is f, a generated file of path as read, without its banner. ok is
// false when it carries no banner, or one naming no owner of owners.
func HandOver(path string, data []byte, owners []string) (f File, ok bool) {
	mark, _, err := banner.Parse(data)
	if err != nil || !slices.Contains(owners, mark.Owner) {
		return File{}, false
	}
	yours, err := banner.Remove(data)
	if err != nil {
		return File{}, false
	}
	return File{Path: path, Sum: sha256.Sum256(data), Owner: mark.Owner, Yours: yours}, true
}

// Generated reads through fsys the files among paths that skillsync generated
// for the skill name: those in a skill directory called name whose banner names
// one of owners. A path with no regular file on it is skipped, since nothing of
// skillsync's is there to hand over.
func Generated(fsys workspacefs.FS, paths []string, name string, owners []string) []File {
	var files []File
	for _, p := range paths {
		if path.Base(clients.SkillDirOf(p)) != name {
			continue
		}
		data, err := fsys.ReadRegular(p, observed.MaxFileSize)
		if err != nil {
			continue
		}
		if f, ok := HandOver(p, data, owners); ok {
			files = append(files, f)
		}
	}
	return files
}

// Apply takes the banner off each of files, every one replaced only if it still
// holds what was read, and then, when config is not nil, writes it over
// skillsync.yaml, which must still hold what configSum says. The banners go
// first: a watcher that sees them gone before the name is disabled finds
// people's files where the skill would go, a conflict that writes and deletes
// nothing, while a name disabled first would make every generated copy an
// orphan to delete.
func Apply(sys workspacefs.System, root string, files []File, configFile string, configSum [32]byte, config []byte) error {
	w, err := apply.OpenWorkspace(sys, root)
	if err != nil {
		return err
	}
	defer w.Close()
	var updates []*plan.Change
	for _, f := range files {
		updates = append(updates, &plan.Change{Path: f.Path, Action: plan.Update, New: f.Yours, OldSum: f.Sum})
	}
	errs, _ := w.WriteAll(updates)
	var failed []error
	var done []string
	for i, err := range errs {
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", updates[i].Path, workspacefs.Cause(err)))
		} else {
			done = append(done, updates[i].Path)
		}
	}
	if failed != nil {
		yours := ""
		switch len(done) {
		case 0:
		case 1:
			yours = fmt.Sprintf("; %s is yours already, without the banner", done[0])
		default:
			yours = fmt.Sprintf("; %s are yours already, without the banner", strings.Join(done, ", "))
		}
		return fmt.Errorf("%w%s; %s was not changed (run forget again once every file can be written)", errors.Join(failed...), yours, configFile)
	}
	if config == nil {
		return nil
	}
	var editedOver *apply.EditedOverASaveError
	switch err := w.Edit(configFile, configSum, config); {
	case errors.As(err, &editedOver):
		return fmt.Errorf("%s: %w; the files are yours already and the name is in spec.disabled: bring back by hand what was saved", configFile, err)
	case err != nil:
		return fmt.Errorf("%s: %w; the files are yours already: add the name to spec.disabled by hand", configFile, err)
	}
	return nil
}
