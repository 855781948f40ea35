package apply

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
)

// newFolders are the folders one skill directory's supporting files are created
// in that are not there yet, the skill directory itself among them, as a step
// that stages them ahead of their SKILL.md makes them. A folder made before a
// manifest names a file in it would be nobody's if the run stopped there, so
// each is made under a temp name (a leftover of skillsync's by its name, as a
// temp file is, with all it holds), its files staged in it, and put in place by
// one rename once all are staged; from then on it holds staged files, which the
// next run cleans up, and the folders with them.
type newFolders struct {
	w Workspace
	// whole says a new skill directory is made whole: every file of its step is
	// written in it under its own name (its SKILL.md under a temp name until
	// then), and it is put in place only once they are durable (newFolder.whole).
	whole   bool
	byPlace map[string]*newFolder
	order   []*newFolder
	// opened counts the directories stageInto opened, which the caller holds
	// until the folders are put in place.
	opened int
}

// newFolder is one folder made under a temp name: place and temp are workspace
// paths, made the folders made inside temp, staged how many files were staged in
// it, err why it is not to be put in place.
//
// A whole one is a new skill directory all of whose files the step creates:
// each but its SKILL.md is written under its own name, so no rename per file
// puts it in place, and the folder is renamed into place after the flush
// instead of before it (putWholeInPlace). Until then it is a leftover of
// skillsync's by its name with every file in it, which the next run cleans up;
// files are the indices of the changes written in it. Its SKILL.md waits under the temp name
// manifest until the folder is put in place, so that a client that looks into
// a folder of a temp name finds no skill there, even one a kill left.
type newFolder struct {
	place, temp string
	made        []string
	staged      int
	err         error
	whole       bool
	files       []int
	manifest    string
}

// record counts a file staged in nf (under the name temp), or takes the error
// that stopped one as nf's: a folder put in place with a file missing could
// keep a folder no manifest names.
func (nf *newFolder) record(temp string, err error) {
	switch {
	case nf == nil:
	case err != nil:
		nf.err = err
	case temp != "":
		nf.staged++
	}
}

var errNothingStaged = errors.New("nothing was staged in it")

// stagedGroup is a directory's changes of one step, staged through d, in folder
// when that is one the step made.
type stagedGroup struct {
	d      workspacefs.Dir
	group  []int
	folder *newFolder
}

// stageInto opens the folder dir, which is not there, as it is while its files
// are staged: inside the temp-named folder made for the highest folder missing on
// its way, the skill directory itself or one in it.
func (f *newFolders) stageInto(dir string) (workspacefs.Dir, *newFolder, error) {
	top, err := f.firstMissing(dir)
	if err != nil {
		return nil, nil, err
	}
	nf := f.byPlace[top]
	if nf != nil && nf.whole && nf.err != nil {
		return nil, nil, nf.err // nothing more is written in a folder that will not be put in place
	}
	if nf == nil {
		parent, err := f.w.OpenDir(path.Dir(top))
		if errors.Is(err, fs.ErrNotExist) && top == clients.SkillDirOf(top) {
			// The target directory, which skillsync makes and never removes.
			if err = f.w.r.MkdirAll(path.Dir(top), 0o755); err == nil {
				parent, err = f.w.OpenDir(path.Dir(top))
			}
		}
		if err != nil {
			return nil, nil, workspacefs.Cause(err)
		}
		temp := banner.NewTempName()
		err = parent.Mkdir(temp, 0o755)
		parent.Close()
		if err != nil {
			return nil, nil, workspacefs.Cause(err)
		}
		nf = &newFolder{place: top, temp: path.Join(path.Dir(top), temp), whole: f.whole && top == clients.SkillDirOf(top)}
		if f.byPlace == nil {
			f.byPlace = map[string]*newFolder{}
		}
		f.byPlace[top] = nf
		f.order = append(f.order, nf)
	}
	if !nf.whole && f.opened >= maxHeldFolders {
		return nil, nil, errTooManyFolders
	}
	// Whatever fails from here keeps the folder from being put in place: it
	// could hold an empty folder that no manifest names.
	rel := strings.TrimPrefix(strings.TrimPrefix(dir, top), "/")
	for sub := path.Join(nf.temp, rel); sub != nf.temp && !slices.Contains(nf.made, sub); sub = path.Dir(sub) {
		nf.made = append(nf.made, sub)
	}
	d, err := f.openMaking(nf.temp, rel)
	if err != nil {
		nf.err = err
		return nil, nil, err
	}
	if !nf.whole {
		f.opened++
	}
	return d, nf, nil
}

// openMaking opens the folder rel ("" for temp itself) of the temp folder
// temp, making each folder on the way that is not there yet from the one above
// it, not by a walk from the workspace root for each.
func (f *newFolders) openMaking(temp, rel string) (workspacefs.Dir, error) {
	d, err := f.w.OpenDir(temp)
	if err != nil || rel == "" {
		return d, err
	}
	for _, name := range strings.Split(rel, "/") {
		err = d.Mkdir(name, 0o755)
		var sub workspacefs.Dir
		if err == nil || errors.Is(err, fs.ErrExist) {
			sub, err = d.Sub(name)
		}
		d.Close()
		if err != nil {
			return nil, workspacefs.Cause(err)
		}
		d = sub
	}
	return d, nil
}

// stagedAbove is the folder made under a temp name that dir is or is in, or
// "": it is not in place until every file of its skill directory is staged, so
// dir is not there yet.
func (f *newFolders) stagedAbove(dir string) string {
	skill := clients.SkillDirOf(dir)
	if skill == "" {
		return ""
	}
	for at := dir; ; at = path.Dir(at) {
		if f.byPlace[at] != nil {
			return at
		}
		if at == skill || at == "." || at == "/" {
			return ""
		}
	}
}

// maxHeldFolders bounds the directories of new folders one skill directory's
// step holds open until they are put in place; the files of further ones wait
// for their SKILL.md, as in a folder that could not be made.
const maxHeldFolders = 16

var errTooManyFolders = errors.New("too many new folders at once")

// firstMissing is the highest folder on the way to dir, from its skill
// directory down, that is not there.
func (f *newFolders) firstMissing(dir string) (string, error) {
	skill := clients.SkillDirOf(dir)
	if skill == "" || skill != dir && !strings.HasPrefix(dir, skill+"/") {
		return "", fs.ErrNotExist
	}
	if top := f.stagedAbove(dir); top != "" {
		return top, nil
	}
	at := skill
	for _, name := range strings.Split(strings.TrimPrefix(dir, skill), "/") {
		at = path.Join(at, name)
		_, err := f.w.r.Lstat(at)
		if errors.Is(err, fs.ErrNotExist) {
			return at, nil
		}
		if err != nil {
			return "", workspacefs.Cause(err)
		}
	}
	return "", fs.ErrExist // there after all: made by someone else meanwhile
}

// putInPlace renames each folder but the whole ones to its place.
func (f *newFolders) putInPlace() {
	for _, nf := range f.order {
		if !nf.whole {
			nf.putInPlace(f.w)
		}
	}
}

// putInPlace renames nf to its place, never over anything there.
func (nf *newFolder) putInPlace(w Workspace) {
	if nf.err == nil && nf.staged == 0 {
		nf.err = errNothingStaged
	}
	if nf.err != nil {
		return
	}
	parent, err := w.OpenDir(path.Dir(nf.place))
	if err != nil {
		nf.err = err
		return
	}
	defer parent.Close()
	nf.err = renameNoReplace(parent, path.Base(nf.temp), path.Base(nf.place))
}

// renameNoReplace renames from to to in d, never over anything there.
func renameNoReplace(d workspacefs.Dir, from, to string) error {
	err := d.RenameNoReplace(from, to)
	if errors.Is(err, workspacefs.ErrNoReplaceUnsupported) {
		// The window between this check and the rename is the best there
		// is; a rename of a folder replaces at most an empty one.
		if _, err = d.Lstat(to); errors.Is(err, fs.ErrNotExist) {
			err = d.Rename(from, to)
		} else if err == nil {
			err = fs.ErrExist
		}
	}
	return workspacefs.Cause(err)
}

// removeLeft removes each folder but the whole ones that could not be put in
// place, emptied of its staged files (stagedGroup.unstage), and those made in
// it.
func (f *newFolders) removeLeft() {
	for _, nf := range f.order {
		if nf.err != nil && !nf.whole {
			nf.removeFolders(f.w)
		}
	}
}

// removeFolders removes nf and the folders made in it, each once empty.
func (nf *newFolder) removeFolders(w Workspace) {
	made := slices.Clone(nf.made)
	slices.SortFunc(made, func(a, b string) int { return len(b) - len(a) }) // deepest first
	for _, p := range append(made, nf.temp) {
		if parent, err := w.OpenDir(path.Dir(p)); err == nil {
			parent.Rmdir(path.Base(p))
			parent.Close()
		}
	}
}

// wholeFolders are the whole new folders of f (newFolder.whole).
func (f *newFolders) wholeFolders() []*newFolder {
	var out []*newFolder
	for _, nf := range f.order {
		if nf.whole {
			out = append(out, nf)
		}
	}
	return out
}

// putWholeInPlace renames each whole new skill directory into place, its
// SKILL.md first within it, once the flush made every file in it durable
// (flushed is the flush's error). One that cannot be put in place is removed
// with every file written in it, and each of its changes fails: a run stopped
// first leaves it for the next to clean up.
func (w Workspace) putWholeInPlace(st *staged, whole []*newFolder, flushed error) {
	for _, nf := range whole {
		var why error
		switch {
		case flushed != nil:
			nf.err = flushed
			why = fmt.Errorf("not put in place: %w", flushed)
		default:
			if nf.err == nil && nf.manifest != "" {
				nf.err = renameWithin(w, nf.temp, nf.manifest, observed.SkillFile)
			}
			nf.putInPlace(w)
			why = fmt.Errorf("its skill directory could not be put in place: %w", nf.err)
		}
		if nf.err == nil {
			continue
		}
		nf.removeWritten(w, st)
		for _, i := range nf.files {
			if st.errs[i] == nil {
				st.errs[i] = why
			}
		}
		nf.removeFolders(w)
	}
}

// renameWithin renames from to to in the folder dir, never over anything there.
func renameWithin(w Workspace, dir, from, to string) error {
	d, err := w.OpenDir(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return renameNoReplace(d, from, to)
}

// removeWritten removes the files written in the whole folder nf, each through
// its folder opened afresh from the root, which follows no symlink: a folder
// someone swapped for a link to their own files meanwhile keeps them.
func (nf *newFolder) removeWritten(w Workspace, st *staged) {
	for _, i := range nf.files {
		p := path.Join(nf.temp, strings.TrimPrefix(st.changes[i].Path, nf.place+"/"))
		d, err := w.OpenDir(path.Dir(p))
		if err != nil {
			continue
		}
		d.Remove(path.Base(p))
		if clients.IsSkillFile(st.changes[i].Path) {
			d.Remove(nf.manifest) // still under its temp name unless renamed
		}
		d.Close()
	}
}

// unstage removes what the group staged: a supporting file's create is staged
// again later, once its SKILL.md is in place; any other change fails with its
// folder's error, to be made by the next run.
func (g stagedGroup) unstage(st *staged) {
	for _, i := range g.group {
		if st.temps[i] != "" {
			g.d.Remove(st.temps[i])
			st.temps[i], st.newFolder[i] = "", ""
			if c := st.changes[i]; c.Action == plan.Create && c.Supporting {
				st.later[i] = true
			} else {
				st.errs[i] = fmt.Errorf("its skill directory could not be put in place: %w", g.folder.err)
			}
		}
	}
}
