package controller

import (
	"context"
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/skillsync/skillsync/banner"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
)

// fallbackPoll is how often directories inotify cannot watch are polled.
const fallbackPoll = time.Second

// changeSource turns changes on disk into triggers. Directories are watched with
// inotify (through fsnotify) and polled, with a cheap fingerprint of their listing,
// where inotify does not reach: all of them under --poll or when inotify cannot be
// had at all, and each one a watch could not be added for (the user's inotify
// watch limit reached), so the watcher is never blind while it reports ready.
// Events caused by the watcher's own writes are recognised and dropped.
type changeSource struct {
	o       WatchOptions
	q       *Queue
	root    *os.Root
	fsw     *fsnotify.Watcher // nil when every directory is polled
	every   time.Duration     // the poll interval
	pollSet chan polledDirs   // the polled directories, handed to the poller

	mu      sync.Mutex
	watched map[string]bool // directories inotify watches
	polled  []string        // directories polled, sorted
	inputs  inputPaths      // which paths are inputs, as of the last refresh
	// own is what this process's last run left at each path it wrote; an event
	// for such a path, which still holds just that, is the run's own.
	own map[string]ownState
	// running is set while a run is under way; the paths of events meanwhile wait
	// in pending, to be judged against what the run leaves.
	running bool
	pending map[string]bool
	// baseline is the poller's first fingerprint of each directory, taken before
	// the first run.
	baseline map[string]string
	// watchedAs is the directory each inotify watch was added for; only refresh,
	// on the run loop, uses it.
	watchedAs map[string]fs.FileInfo
}

// polledDirs are the directories the poller lists, and which of them hold inputs.
type polledDirs struct {
	dirs  []string
	input map[string]bool
}

func newChangeSource(o WatchOptions, q *Queue) (*changeSource, error) {
	r, err := os.OpenRoot(o.Root)
	if err != nil {
		return nil, err
	}
	s := &changeSource{o: o, q: q, root: r, every: o.Poll, pollSet: make(chan polledDirs, 1), watched: map[string]bool{}, watchedAs: map[string]fs.FileInfo{}}
	if s.every <= 0 {
		s.every = fallbackPoll
	}
	if o.Poll == 0 {
		if s.fsw, err = fsnotify.NewWatcher(); err != nil {
			o.Log.Warn("inotify is not available, polling every watched directory instead", "err", err, "pollMs", s.every.Milliseconds())
			s.fsw = nil
		}
	}
	// Watch before the first run lists anything, so no change after this point can
	// fall between a scan and its watch. A registry with problems still names its
	// files and directories.
	reg, _ := registry.Load(o.Root)
	s.refresh(reg)
	s.baseline = map[string]string{}
	for _, d := range s.polled {
		s.baseline[d] = fingerprint(r, d)
	}
	return s, nil
}

func (s *changeSource) close() {
	if s.fsw != nil {
		s.fsw.Close()
	}
	s.root.Close()
}

// refresh moves the watches to the directories that matter now. With inputs that do
// not load (reg is nil), the directories watched so far stay watched, so that fixing
// them is seen. A directory inotify cannot watch is polled instead.
func (s *changeSource) refresh(reg *registry.Registry) {
	want := map[string]bool{}
	for _, d := range watchDirs(s.root, reg) {
		want[d] = true
	}
	s.mu.Lock()
	if reg == nil {
		for d := range s.watched {
			want[d] = true
		}
		for _, d := range s.polled {
			want[d] = true
		}
	}
	before := len(s.polled)
	s.mu.Unlock()

	watched := map[string]bool{}
	var polled []string
	var addErr error
	if s.fsw == nil {
		polled = sortedKeys(want)
	} else {
		// Ask fsnotify what it watches: a directory deleted or renamed away lost its
		// watch, and must get a new one when it is back.
		active := map[string]bool{}
		for _, p := range s.fsw.WatchList() {
			active[p] = true
		}
		for p := range active {
			if rel, err := filepath.Rel(s.o.Root, p); err == nil && !want[filepath.ToSlash(rel)] {
				s.fsw.Remove(p)
			}
		}
		for _, d := range sortedKeys(want) {
			// A directory removed and made again under its name is another inode: its
			// watch went with the old one, whatever fsnotify has yet to notice.
			now, _ := s.root.Stat(d)
			if active[s.abs(d)] && now != nil && s.watchedAs[d] != nil && os.SameFile(now, s.watchedAs[d]) {
				watched[d] = true
				continue
			}
			err := s.fsw.Add(s.abs(d))
			switch {
			case err == nil:
				watched[d] = true
				s.watchedAs[d] = now
			case workspacefs.OutOfResources(err):
				// The watch limit (ENOSPC) or the instance's memory: poll instead.
				polled = append(polled, d)
				if addErr == nil {
					addErr = err
				}
			}
			// Anything else (the directory vanished since it was listed) is picked up
			// by the run its removal triggers, and the refresh after it.
		}
	}
	s.mu.Lock()
	s.watched, s.polled = watched, polled
	s.inputs = inputsOf(s.root, reg)
	s.mu.Unlock()
	if s.fsw != nil && before == 0 && len(polled) > 0 {
		s.o.Log.Warn("cannot watch every directory with inotify; polling those instead", "polled", len(polled), "dir", polled[0],
			"err", addErr, "pollMs", s.every.Milliseconds(),
			"hint", "raise fs.inotify.max_user_watches (see docs/operations.md)")
	}
	if s.fsw != nil && before > 0 && len(polled) == 0 {
		s.o.Log.Info("every directory is watched with inotify again", "watched", len(watched))
	}
	s.o.Health.SetWatch(WatchState{Inotify: len(watched), Polled: len(polled), PollMS: s.every.Milliseconds()})
	input := map[string]bool{}
	for _, d := range inputDirs(s.root, reg) {
		input[d] = true
	}
	select { // replace a set the poller has not taken yet
	case <-s.pollSet:
	default:
	}
	s.pollSet <- polledDirs{dirs: polled, input: input}
}

func (s *changeSource) abs(rel string) string {
	return filepath.Join(s.o.Root, filepath.FromSlash(rel))
}

func (s *changeSource) run(ctx context.Context) {
	go s.poll(ctx)
	if s.fsw == nil {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-s.fsw.Events:
			if !ok {
				return
			}
			rel, ok := s.relevant(ev.Name)
			if !ok {
				continue
			}
			input, output := s.kind(rel)
			if (input || output) && s.triggers(rel) {
				if input {
					s.o.history.changed(time.Now())
				}
				s.q.Add()
			}
		case err, ok := <-s.fsw.Errors:
			if !ok {
				return
			}
			// An overflow means events were lost, of inputs too for all it tells: only a
			// full run is safe, and deletes wait as after a change.
			s.o.Log.Error("watcher error, reconciling in full", "overflow", errors.Is(err, fsnotify.ErrEventOverflow), "err", err)
			s.o.history.changed(time.Now())
			s.q.Add()
		}
	}
}

// relevant drops events for skillsync's own temp files and lock, and gives the
// workspace-relative path of the others.
func (s *changeSource) relevant(name string) (string, bool) {
	if banner.IsTempName(filepath.Base(name)) {
		return "", false
	}
	rel, err := filepath.Rel(s.o.Root, name)
	if err != nil {
		return name, true
	}
	rel = filepath.ToSlash(rel)
	return rel, rel != LockFile
}

// poll fingerprints the polled directories every interval and triggers a run when
// one changes; a change in a directory that holds inputs also makes deletes wait,
// as an event there would. Under --poll a run's own writes change a fingerprint
// too: they cause one more run, which finds nothing to do.
func (s *changeSource) poll(ctx context.Context) {
	var set polledDirs
	last := s.baseline
	tick := time.NewTicker(s.every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case set = <-s.pollSet:
			continue
		case <-tick.C:
		}
		changed, inputChanged := false, false
		now := map[string]string{}
		for _, d := range set.dirs {
			now[d] = fingerprint(s.root, d)
			if now[d] != last[d] {
				changed = true
				inputChanged = inputChanged || set.input[d]
			}
		}
		if inputChanged {
			s.o.history.changed(time.Now())
		}
		if changed {
			s.q.Add()
		}
		last = now
	}
}

// ownState is what a run left at a path: nothing, a directory (which one: a
// directory removed and made again under the same name is another), or a file
// with the digest of its content.
type ownState struct {
	kind fs.FileMode // fs.ModeDir, 0 for a regular file, fs.ModeIrregular for nothing
	file Content     // a file's
	dir  fs.FileInfo // the directory, for os.SameFile
}

// same tells whether now is what o records.
func (o ownState) same(now ownState) bool {
	if o.kind != now.kind || o.file.Sum != now.file.Sum {
		return false
	}
	return o.dir == nil || now.dir != nil && os.SameFile(o.dir, now.dir)
}

// stillThere tells, from its metadata alone, whether rel may still hold what o
// records: the right kind of entry, a file of the size written, the same directory.
func (o ownState) stillThere(r *os.Root, rel string) bool {
	info, err := r.Lstat(rel)
	switch {
	case err != nil:
		return o.kind == fs.ModeIrregular
	case info.IsDir():
		return o.kind == fs.ModeDir && (o.dir == nil || os.SameFile(o.dir, info))
	case info.Mode().IsRegular():
		return o.kind == 0 && info.Size() == o.file.Size
	}
	return false
}

var (
	absent     = ownState{kind: fs.ModeIrregular}
	unreadable = ownState{kind: fs.ModeIrregular, file: Content{Sum: [32]byte{1}}} // the same as nothing a run leaves
)

// runStarting holds back the events of the run about to start: they are judged
// once it has ended, against what it left.
func (s *changeSource) runStarting() {
	s.mu.Lock()
	s.running, s.pending = true, map[string]bool{}
	s.mu.Unlock()
}

// runEnded records what the run wrote, then judges the events that came during it.
func (s *changeSource) runEnded(out Outcome) {
	own := map[string]ownState{}
	observe := func(p string) {
		if _, seen := own[p]; !seen {
			own[p] = s.stateOf(p)
		}
	}
	for _, a := range out.Applied {
		if !a.Done() {
			continue
		}
		switch a.Action {
		case Create, Update:
			own[a.Path] = ownState{file: a.Written}
		default:
			own[a.Path] = absent
		}
		for dir := path.Dir(a.Path); dir != "."; dir = path.Dir(dir) {
			observe(dir)
		}
	}
	for _, p := range []string{StateDir, stateIgnore} {
		observe(p)
	}
	if out.Recorded {
		// What the run wrote, not what is there by now: an accept landing meanwhile
		// is a person's.
		own[AppliedFile] = ownState{file: Content{Sum: out.RecordSum, Size: -1}}
	}
	s.mu.Lock()
	s.own, s.running = own, false
	pending := s.pending
	s.pending = nil
	s.mu.Unlock()
	// A directory the run made was not watched until the refresh before this: a
	// file removed or changed in it meanwhile sent no event. Every path written is
	// looked at once more, by its metadata, now that the watches are in place.
	trigger := false
	for p, want := range own {
		if want.file.Size >= 0 && !want.stillThere(s.root, p) {
			trigger = true
			break
		}
	}
	for p := range pending {
		if input, output := s.kind(p); (input || output) && s.triggers(p) {
			trigger = true
			if input {
				s.o.history.changed(time.Now())
			}
		}
	}
	if trigger {
		s.q.Add()
	}
}

// kind says whether rel is an input path (see inputPaths) and whether it is where
// skillsync writes; an event for a path that is neither is dropped.
func (s *changeSource) kind(rel string) (input, output bool) {
	s.mu.Lock()
	inputs := s.inputs
	s.mu.Unlock()
	return inputs.holds(rel), outputPath(rel)
}

// triggers tells whether an event for rel calls for a run. It does not when rel is
// a path the last run wrote and still holds what that run left there: the event is
// the run's own. During a run an event waits for the run to end, to be judged then.
func (s *changeSource) triggers(rel string) bool {
	s.mu.Lock()
	if s.running {
		s.pending[rel] = true
		s.mu.Unlock()
		return false
	}
	want, wrote := s.own[rel]
	s.mu.Unlock()
	return !wrote || !want.same(s.stateOf(rel))
}

// stateOf reads what is at rel now, never following a symlink.
func (s *changeSource) stateOf(rel string) ownState {
	info, err := s.root.Lstat(rel)
	switch {
	case err != nil:
		return absent
	case info.IsDir():
		return ownState{kind: fs.ModeDir, dir: info}
	case !info.Mode().IsRegular():
		return ownState{kind: info.Mode().Type()}
	}
	data, err := workspacefs.ReadRegular(s.root, rel, max(observed.MaxFileSize, maxAppliedSize))
	if err != nil {
		return unreadable
	}
	return ownState{file: Content{Sum: sha256.Sum256(data), Size: int64(len(data))}}
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
