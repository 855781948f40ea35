package apply

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/parallel"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
)

// Applied is one change of the plan as carried out, or the error that stopped it.
type Applied struct {
	*plan.Change
	Err error
	// Kept says what of a change that succeeded was left as it is, and why: an
	// emptied skill directory that the permissions of its parent keep in place.
	// Undone says the change itself was housekeeping the permissions left undone.
	Kept   string
	Undone bool
	// Written is what a create or update wrote.
	Written Content
}

// Content describes the bytes a change wrote: their SHA-256 and length.
type Content struct {
	Sum  [32]byte
	Size int64
}

// Done tells whether the change was made: not when it failed, nor when it was
// housekeeping that the permissions of its directory left undone.
func (a Applied) Done() bool {
	return a.Err == nil && !a.Undone
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

// Apply carries out a plan under root: leftovers first, then creates and updates,
// then deletes (build before prune). Every step opens each directory afresh from
// the workspace root and follows no symlink, and checks it is still there after
// staging into it, so nothing outside the workspace is kept even if a directory
// is swapped for a symlink mid-run. Every change re-reads its file right before
// touching it and leaves it alone unless it still holds exactly what the plan saw.
// A failed change does not stop the others; all failures come back in an
// *ApplyError.
func Apply(sys workspacefs.System, root string, pl plan.Plan) ([]Applied, error) {
	return ApplyGated(sys, root, pl, nil)
}

// ApplyGated is Apply where the deletes are carried out only if mayDelete, asked
// once before anything is written, says so; otherwise they are left undone, and
// so is every change of a skill directory with a supporting file to delete.
func ApplyGated(sys workspacefs.System, root string, pl plan.Plan, mayDelete func() bool) ([]Applied, error) {
	return ApplyJournaled(sys, root, pl, mayDelete, nil)
}

// ApplyJournaled is ApplyGated that has unwritten, when not nil, record the
// supporting files whose SKILL.md names them before they are in place: called
// before any such SKILL.md is put in place with the files still to be (add),
// and once the plan is carried out with those that are not in place after all
// (add) and every supporting file it put in place (remove). A SKILL.md whose
// files cannot be recorded so is not put in place.
func ApplyJournaled(sys workspacefs.System, root string, pl plan.Plan, mayDelete func() bool, unwritten func(add, remove []string) error) ([]Applied, error) {
	if pl.Refused != "" {
		return nil, fmt.Errorf("%w: %s", ErrRefused, pl.Refused)
	}
	w, err := OpenWorkspace(sys, root)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	// Each step finishes before the next starts; within one, every change has a
	// path of its own, so they run a few at a time.
	o := orderOf(pl)
	// A cold run records a change per file. The record is made at its full size,
	// so that it is not copied as it grows, and only when the first change is
	// recorded, so that a run without leftovers to clean up does not hold it
	// empty beside the staged writes of the largest step.
	var done []Applied
	var failed []Applied
	notDone := map[string]bool{} // skill directories whose supporting files did not all change
	record := func(c *plan.Change, err error, written Content) {
		if done == nil {
			done = make([]Applied, 0, len(pl.Changes))
		}
		a := Applied{Change: c, Err: err, Written: written}
		var kept *keptError
		if errors.As(a.Err, &kept) {
			a.Err, a.Kept, a.Undone = nil, kept.Error(), kept.undone
		}
		done = append(done, a)
		if a.Err != nil {
			failed = append(failed, a)
			notDone[skillDirOf(c.Path)] = true
		}
	}
	removeAll := func(todo []*plan.Change) {
		errs := make([]error, len(todo))
		// One directory at a time: two files of the same content there go
		// aside under the same staged name (remove).
		groups := byDirectory(todo, upTo(len(todo)))
		parallel.Each(len(groups), func(g int) error {
			for _, i := range groups[g] {
				errs[i] = removeOne(w, *todo[i])
			}
			return nil
		})
		for i, c := range todo {
			record(c, errs[i], Content{})
		}
	}
	// Whether deletes may be made is asked first: a skill directory whose
	// supporting files' deletes wait keeps every change of its files for later,
	// so that nothing is written that its manifest cannot name.
	deleting := len(o.supportDeletes)+len(o.deletes) == 0 || mayDelete == nil || mayDelete()
	if !deleting {
		for _, c := range o.supportDeletes {
			notDone[skillDirOf(c.Path)] = true
		}
	}
	removeAll(o.cleanups)
	// The writes are staged and made durable at once, then put in place step by
	// step; a step whose skill directory failed before it discards its own. A
	// supporting file's create is staged ahead only where that leaves nothing
	// behind that no manifest explains: in a directory that exists or that its
	// SKILL.md is staged into, under its own staged name. The others wait for
	// their SKILL.md, and for the deletes that can make room for them (a file
	// that becomes a folder), and are staged then, with a second flush.
	writes, manifests, creates := o.ready(o.writes, notDone), o.ready(o.manifests, notDone), o.ready(o.supportCreates, notDone)
	createsWait := deleting && len(o.supportDeletes) > 0
	first := slices.Concat(writes, manifests)
	if !createsWait {
		first = append(first, creates...)
	}
	st := w.stageAll(first, true)
	commitStep := func(st *staged, from, to int) {
		var todo []int
		for i := from; i < to; i++ {
			switch {
			case st.later[i]:
			case notDone[skillDirOf(st.changes[i].Path)]:
				st.discard(w, i)
			default:
				todo = append(todo, i)
			}
		}
		w.commitAll(st, todo)
		for _, i := range todo {
			record(st.changes[i], st.errs[i], st.written[i])
		}
	}
	commitStep(st, 0, len(writes))
	if deleting {
		removeAll(o.supportDeletes)
	}
	var pending []*plan.Change
	if unwritten != nil {
		pending = notPlacedYet(o.ready(o.supportCreates, notDone), st)
		if err := unwritten(pathsOf(pending), nil); err != nil && len(pending) > 0 {
			waits := map[string]bool{}
			for _, c := range pending {
				waits[skillDirOf(c.Path)] = true
			}
			for _, c := range manifests {
				if waits[skillDirOf(c.Path)] && !notDone[skillDirOf(c.Path)] {
					record(c, fmt.Errorf("not put in place: its new files could not be recorded: %w", err), Content{})
				}
			}
		}
	}
	commitStep(st, len(writes), len(writes)+len(manifests))
	if createsWait {
		creates = o.ready(creates, notDone)
	} else {
		commitStep(st, len(writes)+len(manifests), len(st.changes))
		creates = nil
		for i := len(writes) + len(manifests); i < len(st.changes); i++ {
			if st.later[i] {
				creates = append(creates, st.changes[i])
			}
		}
		creates = o.ready(creates, notDone)
	}
	if len(creates) > 0 {
		st = w.stageAll(creates, false)
		commitStep(st, 0, len(st.changes))
	}
	if deleting {
		removeAll(o.ready(o.deletes, notDone))
	}
	if unwritten != nil {
		// A list that cannot be shortened keeps paths whose files are in place
		// now, which only makes a later edit of one of those count as a
		// person's file: the safe side.
		unwritten(pathsOf(notPlaced(pending, done)), supportingPlaced(done))
	}
	if len(failed) > 0 {
		return done, &ApplyError{Failed: failed}
	}
	return done, nil
}

// notPlacedYet are the creates of todo that a step has still to put in place:
// all but those staged into a new skill directory already put in place whole.
func notPlacedYet(todo []*plan.Change, st *staged) []*plan.Change {
	placed := map[*plan.Change]bool{}
	for i, c := range st.changes {
		if c.Action == plan.Create && c.Supporting && st.temps[i] == "" && st.errs[i] == nil && !st.later[i] {
			placed[c] = true
		}
	}
	var out []*plan.Change
	for _, c := range todo {
		if !placed[c] {
			out = append(out, c)
		}
	}
	return out
}

// notPlaced are the changes of pending that done does not record as made.
func notPlaced(pending []*plan.Change, done []Applied) []*plan.Change {
	made := map[*plan.Change]bool{}
	for _, a := range done {
		if a.Err == nil && a.Kept == "" {
			made[a.Change] = true
		}
	}
	var out []*plan.Change
	for _, c := range pending {
		if !made[c] {
			out = append(out, c)
		}
	}
	return out
}

// supportingPlaced are the paths of the supporting files done puts in place.
func supportingPlaced(done []Applied) []string {
	var out []string
	for _, a := range done {
		if a.Err == nil && a.Kept == "" && a.Change.Supporting && (a.Change.Action == plan.Create || a.Change.Action == plan.Update) {
			out = append(out, a.Change.Path)
		}
	}
	return out
}

func pathsOf(changes []*plan.Change) []string {
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = c.Path
	}
	return out
}

func removeOne(w Workspace, c plan.Change) error {
	if c.Action == plan.Cleanup && c.Supporting {
		return removeCutShort(w, c)
	}
	if c.Action == plan.Cleanup {
		return cleanup(w, c.Path)
	}
	return remove(w, c.Path, c.OldSum, c.Supporting)
}

// WriteAll makes the creates and updates durable before any is put in place: every
// new content is written to a temp file first, one flush makes them all durable
// (on Linux one syncfs for the run rather than one fsync per file), and only then
// is each put in place by a rename (see commit). So a power loss leaves every
// SKILL.md old or new, never empty.
func (w Workspace) WriteAll(changes []*plan.Change) ([]error, []Content) {
	st := w.stageAll(changes, false)
	w.commitAll(st, upTo(len(changes)))
	return st.errs, st.written
}

// staged are changes whose contents are written to temp files beside their
// places and made durable, each with its temp file's name, what it holds, or
// why it could not be staged or put in place; or left for later.
type staged struct {
	changes []*plan.Change
	temps   []string
	written []Content
	errs    []error
	// later are the supporting files' creates that staging ahead left alone:
	// each would have been staged under a name its content does not give
	// (another file of the step staged the same bytes), or in a folder that
	// could not be made as newFolders makes it, and a killed run's leftover
	// would not be known as skillsync's.
	later []bool
	// newFolder is the folder its step made for the change, which goes with it,
	// and the folders in it on the way, if it is discarded; "" for none.
	newFolder []string
}

// stageAll writes every change's content to a temp file in its directory, then
// makes them all durable with one flush. Each directory is opened once for all
// its changes, afresh from the root, so a skill's files cost one open, not one
// each. ahead says the supporting files' creates among them are staged before
// their SKILL.md is in place: those in a folder that is not there yet are
// staged in the folder newFolders makes for them, and a few are left for later
// (staged.later).
func (w Workspace) stageAll(changes []*plan.Change, ahead bool) *staged {
	n := len(changes)
	st := &staged{changes: changes, temps: make([]string, n), written: make([]Content, n), errs: make([]error, n),
		later: make([]bool, n), newFolder: make([]string, n)}
	supportCreate := func(i int) bool { return changes[i].Action == plan.Create && changes[i].Supporting }
	skills := bySkillDirectory(changes, upTo(n))
	stopWritingBack := func() {}
	if n > syncEachUpTo {
		stopWritingBack = w.writeBackAhead()
	}
	wholes := make([][]*newFolder, len(skills))
	parallel.Each(len(skills), func(k int) error {
		var inNew []stagedGroup
		// A new skill directory that supporting files are staged in is made under
		// a temp name too, as a new folder in one is: a kill can cut a staged
		// file short, and only there is that one known as skillsync's by a run
		// that no longer wants it. One whose every file is new is made whole.
		stagesSupport := ahead && slices.ContainsFunc(skills[k], func(group []int) bool { return slices.ContainsFunc(group, supportCreate) })
		folders := newFolders{w: w, whole: stagesSupport && allCreates(changes, skills[k])}
		for _, group := range skills[k] {
			create, onlySupport := false, true
			for _, i := range group {
				create = create || changes[i].Action == plan.Create
				onlySupport = onlySupport && supportCreate(i)
			}
			p := changes[group[0]].Path
			var d workspacefs.Dir
			var folder *newFolder
			var err error
			if ahead && onlySupport || create && stagesSupport {
				if folders.stagedAbove(path.Dir(p)) == "" {
					d, err = w.OpenDir(path.Dir(p))
				}
				if d == nil && (err == nil || errors.Is(err, fs.ErrNotExist)) {
					d, folder, err = folders.stageInto(path.Dir(p))
				}
			}
			switch {
			case err != nil && ahead && onlySupport:
				for _, i := range group {
					st.later[i] = true
				}
				continue
			case err != nil && folders.whole:
				// A new skill directory to be made whole is never begun in place:
				// its changes fail, and the next run writes it.
			case d == nil:
				d, err = w.dirOf(p, create)
			}
			if err == nil && n <= syncEachUpTo {
				d = syncingDir{d}
			}
			for _, i := range group {
				st.errs[i] = err
				if err == nil && folder != nil && folder.whole {
					name := path.Base(changes[i].Path)
					if clients.IsSkillFile(changes[i].Path) {
						name = banner.NewTempName()
						folder.manifest = name
					}
					st.written[i], st.errs[i] = stageAsIs(d, *changes[i], name)
					folder.files = append(folder.files, i)
					folder.record(name, st.errs[i])
				} else if err == nil {
					st.temps[i], st.written[i], st.errs[i] = stage(d, *changes[i], !(ahead && supportCreate(i)))
					if folder != nil {
						st.newFolder[i] = folder.place
					}
					if errors.Is(st.errs[i], errStagedNameTaken) {
						st.later[i], st.errs[i] = true, nil
					}
					folder.record(st.temps[i], st.errs[i])
				}
			}
			switch {
			case err != nil:
			case folder != nil && folder.whole:
				d.Close() // put in place by its path once the flush is made
			case folder != nil:
				inNew = append(inNew, stagedGroup{d: d, group: group, folder: folder}) // until its folder is in place
			default:
				w.unstageIfMoved(d, st, group)
				d.Close()
			}
		}
		folders.putInPlace()
		for _, g := range inNew {
			if g.folder.err != nil {
				g.unstage(st) // its folder could not be put in place: staged again later
			} else {
				w.unstageIfMoved(g.d, st, g.group)
			}
			g.d.Close()
		}
		folders.removeLeft()
		wholes[k] = folders.wholeFolders()
		return nil
	})
	stopWritingBack()
	whole := slices.Concat(wholes...)
	if len(whole) == 0 && !slices.ContainsFunc(st.temps, func(t string) bool { return t != "" }) {
		return st
	}
	err := w.root.Flush()
	if err != nil {
		for i := range changes {
			if st.temps[i] != "" {
				st.discard(w, i)
				st.errs[i] = fmt.Errorf("not put in place: %w", err)
			}
		}
	}
	w.putWholeInPlace(st, whole, err)
	return st
}

// allCreates says every change of a skill directory's groups is a create.
func allCreates(changes []*plan.Change, groups [][]int) bool {
	for _, group := range groups {
		for _, i := range group {
			if changes[i].Action != plan.Create {
				return false
			}
		}
	}
	return true
}

// syncEachUpTo is how many files a step syncs one by one as it writes them,
// rather than with one flush of the whole filesystem once all are written. On
// Linux the flush is syncfs, which also waits for every other process's data on
// that filesystem: a save of a few files while another process wrote gigabytes
// there took 2–4 times as long as with an fdatasync each, and as long when
// nothing else wrote; for thousands of files one syncfs is twice as fast
// (docs/performance.md, "Durability").
const syncEachUpTo = 64

// writeBackEvery is how often writeBackAhead asks the disk to write back what
// a step staged: often enough that it keeps pace with the step, seldom enough
// that asking with nothing written costs nothing.
const writeBackEvery = 20 * time.Millisecond

// writeBackAhead has the disk write back what a step stages while the step
// stages more, until the function it returns is called, which waits for the
// write-back under way: the flush that then makes every file durable before any
// is put in place waits for the last ones only. A cold run of a thousand whole
// skills took 5 % less (docs/decisions.md, "Writes are synced once per run").
func (w Workspace) writeBackAhead() (stop func()) {
	done := make(chan struct{})
	var writing sync.WaitGroup
	writing.Go(func() {
		tick := time.NewTicker(writeBackEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				w.root.WriteBack()
			}
		}
	})
	return func() {
		close(done)
		writing.Wait()
	}
}

// syncingDir is a Dir whose WriteNew syncs each file it writes.
type syncingDir struct{ workspacefs.Dir }

func (d syncingDir) WriteNew(name string, data []byte, perm uint32) error {
	return d.Dir.WriteNewSynced(name, data, perm)
}

// unstageIfMoved removes the temp files of which, staged through d, if d is no
// longer the directory at their path: one moved out of the workspace while its
// files were staged keeps none of them.
func (w Workspace) unstageIfMoved(d workspacefs.Dir, st *staged, which []int) {
	first := slices.IndexFunc(which, func(i int) bool { return st.temps[i] != "" })
	if first < 0 {
		return
	}
	c := st.changes[which[first]]
	if now, err := w.OpenDir(path.Dir(c.Path)); err == nil {
		_, err = now.Lstat(st.temps[which[first]])
		now.Close()
		if err == nil {
			return
		}
	}
	for _, i := range which {
		if st.temps[i] != "" {
			d.Remove(st.temps[i])
			st.temps[i], st.errs[i] = "", errDirMoved
		}
	}
}

var errDirMoved = errors.New("its directory was moved or replaced while it was written; nothing was put in place")

// discard removes the temp file of change i, which is not to be put in place,
// and the folders its step made for it once they are empty.
func (st *staged) discard(w Workspace, i int) {
	if st.temps[i] != "" {
		w.r.Remove(path.Join(path.Dir(st.changes[i].Path), st.temps[i]))
		st.temps[i] = ""
		if top := st.newFolder[i]; top != "" {
			for dir := path.Dir(st.changes[i].Path); dir == top || strings.HasPrefix(dir, top+"/"); dir = path.Dir(dir) {
				removeIfEmpty(w, dir)
			}
		}
	}
}

// commitAll puts the staged changes which in place, a directory at a time,
// each directory opened afresh from the root.
func (w Workspace) commitAll(st *staged, which []int) {
	groups := byDirectory(st.changes, which)
	parallel.Each(len(groups), func(g int) error {
		var d workspacefs.Dir
		var err error
		for _, i := range groups[g] {
			if st.temps[i] == "" {
				continue
			}
			if d == nil && err == nil {
				if d, err = w.OpenDir(path.Dir(st.changes[i].Path)); err != nil {
					d = nil
				}
			}
			if err != nil {
				st.errs[i] = err // the temp file is in a directory no longer there, or not reachable
				continue
			}
			st.errs[i] = commit(d, *st.changes[i], st.temps[i], st.written[i].Sum)
		}
		if d != nil {
			d.Close()
		}
		return nil
	})
}

// bySkillDirectory groups which, indices of changes, by the skill directory of
// each change (skillDirOf), and within one by byDirectory, the skill directory's
// own directory first and each folder before those in it.
func bySkillDirectory(changes []*plan.Change, which []int) [][][]int {
	skills := groupBy(changes, which, skillDirOf)
	out := make([][][]int, len(skills))
	for k, skill := range skills {
		out[k] = byDirectory(changes, skill)
		slices.SortStableFunc(out[k], func(a, b []int) int {
			return strings.Count(path.Dir(changes[a[0]].Path), "/") - strings.Count(path.Dir(changes[b[0]].Path), "/")
		})
	}
	return out
}

// byDirectory groups which, indices of changes, by the directory of each
// change, in the order each directory first appears.
func byDirectory(changes []*plan.Change, which []int) [][]int {
	return groupBy(changes, which, path.Dir)
}

// groupBy groups which, indices of changes, by key of each change's path, in
// the order each key first appears.
func groupBy(changes []*plan.Change, which []int, key func(string) string) [][]int {
	at := map[string]int{}
	var groups [][]int
	for _, i := range which {
		k := key(changes[i].Path)
		g, ok := at[k]
		if !ok {
			g = len(groups)
			at[k] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

// upTo is 0, 1, …, n-1.
func upTo(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// Workspace opens the directory of each change afresh from the workspace root,
// in one system call that follows no symlink (workspacefs.Dir.Beneath), and works
// inside it a system call per step.
type Workspace struct {
	r    workspacefs.FS
	root workspacefs.Dir
}

// OpenWorkspace opens the workspace at root for writing; Close releases it.
func OpenWorkspace(sys workspacefs.System, root string) (Workspace, error) {
	r, err := sys.Open(root)
	if err != nil {
		return Workspace{}, err
	}
	d, err := r.OpenDir(".")
	if err != nil {
		r.Close()
		return Workspace{}, err
	}
	return Workspace{r: r, root: d}, nil
}

// FS is the workspace as read and written through the System it was opened on.
func (w Workspace) FS() workspacefs.FS { return w.r }

// Close releases the workspace's open directories.
func (w Workspace) Close() {
	w.root.Close()
	w.r.Close()
}

// OpenDir opens the workspace directory rel, following no symlink on the way.
func (w Workspace) OpenDir(rel string) (workspacefs.Dir, error) {
	var d workspacefs.Dir
	var err error
	if rel == "." {
		d, err = w.root.Sub(".")
	} else {
		d, err = w.root.Beneath(rel)
	}
	if err != nil {
		return nil, workspacefs.Cause(err)
	}
	return d, nil
}

// dirOf opens the directory holding p; for a create, it makes the directory first,
// and its parents if they are missing. A skill directory's files are created
// into it one by one, so it is opened first and made only when it is missing.
func (w Workspace) dirOf(p string, create bool) (workspacefs.Dir, error) {
	dir := path.Dir(p)
	d, err := w.OpenDir(dir)
	if !create || dir == "." || !errors.Is(err, fs.ErrNotExist) {
		return d, err
	}
	parentPath, name := path.Dir(dir), path.Base(dir)
	parent, err := w.OpenDir(parentPath)
	if errors.Is(err, fs.ErrNotExist) {
		if err := w.r.MkdirAll(parentPath, 0o755); err != nil {
			return nil, workspacefs.Cause(err)
		}
		parent, err = w.OpenDir(parentPath)
	}
	if err != nil {
		return nil, err
	}
	defer parent.Close()
	if err := parent.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, workspacefs.Cause(err)
	}
	d, err = parent.Sub(name)
	if err != nil {
		return nil, workspacefs.Cause(err)
	}
	return d, nil
}

// stage writes a change's content to a temp file in d, its directory, and
// returns the temp file's name and what it holds. A supporting file whose
// staged name is taken goes under a random name if anyName, else fails with
// errStagedNameTaken.
func stage(d workspacefs.Dir, c plan.Change, anyName bool) (string, Content, error) {
	data, perm, err := contentOf(c)
	if err != nil {
		return "", Content{}, err
	}
	sum := c.ContentSum(data)
	var name string
	if c.Supporting {
		name, err = writeStaged(d, data, sum, perm, anyName)
	} else {
		name, err = writeTemp(d, data, perm)
	}
	return name, Content{Sum: sum, Size: int64(len(data))}, err
}

// stageAsIs writes a change's content under the name given in d, a folder of
// the new skill directory made whole under a temp name (newFolder.whole), and
// returns what it holds.
func stageAsIs(d workspacefs.Dir, c plan.Change, name string) (Content, error) {
	data, perm, err := contentOf(c)
	if err != nil {
		return Content{}, err
	}
	if err := d.WriteNew(name, data, perm); err != nil {
		return Content{}, workspacefs.Cause(err)
	}
	return Content{Sum: c.ContentSum(data), Size: int64(len(data))}, nil
}

// contentOf is what a change writes, and the mode of the file it writes.
func contentOf(c plan.Change) ([]byte, uint32, error) {
	data, err := c.Content()
	perm := uint32(0o644)
	if c.Executable {
		perm = 0o755
	}
	return data, perm, err
}

// commit puts the staged temp file tmpName of d, the change's directory, in
// place; sum is the SHA-256 of what it holds. A create is a rename that fails
// rather than replace a file someone put there since the scan (a hard link where
// the filesystem cannot rename so); an update re-checks that the file is still
// what was planned on, then puts the new one over it (putOver).
func commit(d workspacefs.Dir, c plan.Change, tmpName string, sum [32]byte) error {
	name := path.Base(c.Path)
	if c.Action == plan.Create {
		err := d.RenameNoReplace(tmpName, name)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, fs.ErrExist):
			d.Remove(tmpName)
			return errAppeared
		case !errors.Is(err, workspacefs.ErrNoReplaceUnsupported):
			d.Remove(tmpName)
			return workspacefs.Cause(err)
		}
	}
	if c.Action == plan.Update {
		if c.Supporting {
			tmpName = asStaged(d, tmpName, sum)
		}
		return putOver(d, tmpName, name, func(name string) error {
			return stillAsPlanned(d, name, c.Path, c.OldSum, c.Supporting)
		}, sum, readLimit(c.Supporting))
	}
	defer d.Remove(tmpName) // after a link; after a rename it is gone already
	err := d.Link(tmpName, name)
	if errors.Is(err, fs.ErrExist) {
		return errAppeared
	}
	if err != nil && !errors.Is(err, workspacefs.ErrLinksUnsupported) {
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

// remove deletes a generated file that is still what was planned on, then its skill
// directory if nothing else is left in it.
func remove(w Workspace, rel string, old [32]byte, supporting bool) error {
	d, err := w.OpenDir(path.Dir(rel))
	if err != nil {
		return fmt.Errorf("changed since the scan: %w", err)
	}
	defer d.Close()
	// A supporting file goes aside under its staged name, which tells a later
	// run that a kill left it there; any other has its banner to tell.
	aside := banner.NewTempName()
	if supporting {
		aside = banner.StagedNameOf(old)
	}
	if err := removeChecked(d, path.Base(rel), aside, func(name string) error {
		return stillAsPlanned(d, name, rel, old, supporting)
	}); err != nil {
		return err
	}
	return removeEmptyUpward(w, path.Dir(rel))
}

// removeEmptyUpward removes dir if nothing is left in it, and so on up to the
// skill directory it is in: a side file sits in a directory of its own inside it.
// A directory in no skill directory (a target directory, which a git file or a
// temp file is in) stays: clients look for it, and it may be a person's.
func removeEmptyUpward(w Workspace, dir string) error {
	skill := clients.SkillDirOf(dir)
	if skill == "" {
		return nil
	}
	for {
		if err := removeIfEmpty(w, dir); err != nil {
			return err
		}
		if dir == skill || !strings.HasPrefix(dir, skill+"/") {
			return nil
		}
		dir = path.Dir(dir)
	}
}

// keptError is the outcome of housekeeping that could not be done and need not be:
// an empty skill directory, or a temp file an interrupted run left, that the
// permissions of its directory keep in place holds nothing a client reads, so
// leaving it is no failure, and a run that leaves it succeeds.
type keptError struct {
	what string
	why  error
	// undone says what was kept is what the change was to remove, so nothing was
	// done; otherwise the change was made and only what it emptied was kept.
	undone bool
}

func (k *keptError) Error() string {
	return fmt.Sprintf("%s is left in place (%v)", k.what, k.why)
}

func notPermitted(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// cleanup removes what an interrupted run left: a temp file, or an empty skill
// directory (rmdir cannot remove anything that has since been put in it).
func cleanup(w Workspace, rel string) error {
	parent, err := w.OpenDir(path.Dir(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer parent.Close()
	if mode, err := parent.Lstat(path.Base(rel)); err == nil && mode.IsDir() {
		err := removeEmptyUpward(w, rel)
		var kept *keptError
		if errors.As(err, &kept) {
			kept.undone = true
		}
		return err
	}
	return removeTemp(w, parent, rel)
}

// removeTemp removes what an interrupted run left in dir, if it still looks like that.
func removeTemp(w Workspace, dir workspacefs.Dir, rel string) error {
	name := path.Base(rel)
	data, err := dir.ReadRegular(name, banner.MaxSupportingFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return workspacefs.Cause(err)
	}
	if !banner.IsTempName(name) || !banner.IsPartial(data) && !banner.IsStaged(name, data) {
		return errors.New("no longer looks like a skillsync temp file; kept")
	}
	if err := dir.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		if notPermitted(err) {
			return &keptError{what: "the temp file", why: workspacefs.Cause(err), undone: true}
		}
		return workspacefs.Cause(err)
	}
	return removeEmptyUpward(w, path.Dir(rel))
}

// removeCutShort removes a staged file a kill left, perhaps cut short, which
// the plan proved one by its bytes or by the folder it is in, if it still holds
// those bytes.
func removeCutShort(w Workspace, c plan.Change) error {
	d, err := w.OpenDir(path.Dir(c.Path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer d.Close()
	data, err := d.ReadRegular(path.Base(c.Path), banner.MaxSupportingFileSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return workspacefs.Cause(err)
	case !banner.IsTempName(path.Base(c.Path)) && !observed.InStagedFolder(c.Path) || sha256.Sum256(data) != c.OldSum:
		return errors.New("changed since the scan; kept")
	}
	if err := d.Remove(path.Base(c.Path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		if notPermitted(err) {
			return &keptError{what: "the temp file", why: workspacefs.Cause(err), undone: true}
		}
		return workspacefs.Cause(err)
	}
	return removeEmptyUpward(w, path.Dir(c.Path))
}

// removeIfEmpty removes a skill directory that nothing is left in; whatever is
// there instead by then (a file, a symlink) stays.
func removeIfEmpty(w Workspace, dir string) error {
	parent, err := w.OpenDir(path.Dir(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer parent.Close()
	err = parent.Rmdir(path.Base(dir))
	switch {
	case err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTDIR):
		return nil
	case notPermitted(err):
		return &keptError{what: "the empty directory", why: workspacefs.Cause(err)}
	}
	return workspacefs.Cause(err)
}

// stillAsPlanned re-reads the file name in dir, which is rel in the workspace: it
// must still be a regular file carrying a banner for rel (unless it is a
// supporting file, which carries none) and hold exactly the bytes the plan was
// made from (their SHA-256 is old).
func stillAsPlanned(dir workspacefs.Dir, name, rel string, old [32]byte, supporting bool) error {
	data, err := dir.ReadRegular(name, readLimit(supporting))
	switch {
	case errors.Is(err, workspacefs.ErrNotRegular):
		return errors.New("no longer a regular file; kept")
	case err != nil:
		return fmt.Errorf("changed since the scan: %w", workspacefs.Cause(err))
	case !supporting && observed.Classify(rel, data).Ownership == observed.Unowned:
		return errors.New("no longer carries a skillsync banner; kept")
	case sha256.Sum256(data) != old:
		return errors.New("changed since the scan; kept")
	}
	return nil
}

// writeStaged writes a supporting file's data, whose SHA-256 is sum, to a new
// temp file in d named by its content (banner.StagedName), which is how a
// leftover of it is known, and returns its name; under a random name if that
// one is taken and anyName, else errStagedNameTaken.
func writeStaged(d workspacefs.Dir, data []byte, sum [32]byte, perm uint32, anyName bool) (string, error) {
	name := banner.StagedNameOf(sum)
	err := d.WriteNew(name, data, perm)
	switch {
	case errors.Is(err, fs.ErrExist) && anyName:
		return writeTemp(d, data, perm)
	case errors.Is(err, fs.ErrExist):
		return "", errStagedNameTaken
	case err != nil:
		return "", workspacefs.Cause(err)
	}
	return name, nil
}

var errStagedNameTaken = errors.New("its staged name is taken")

// readLimit bounds what is read of a generated file: a supporting file's is a
// skill's file copied as it is, larger than any file skillsync renders.
func readLimit(supporting bool) int64 {
	if supporting {
		return banner.MaxSupportingFileSize
	}
	return observed.MaxFileSize
}

// writeTemp writes data to a new temp file directly in d and returns its name.
func writeTemp(d workspacefs.Dir, data []byte, perm uint32) (string, error) {
	name := banner.NewTempName()
	if err := d.WriteNew(name, data, perm); err != nil {
		return "", workspacefs.Cause(err)
	}
	return name, nil
}
