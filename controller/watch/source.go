package watch

import (
	"context"
	"errors"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/skillsync/skillsync/controller/state"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// fallbackPoll is how often directories inotify cannot watch are polled.
const fallbackPoll = time.Second

// changeSource turns changes on disk into triggers. Directories are watched with
// inotify (through fsnotify) and polled, by a cheap summary of their listing,
// where inotify does not reach: all of them under --poll or when inotify cannot be
// had at all, and each one a watch could not be added for (the user's inotify
// watch limit reached), so the watcher is never blind while it reports ready.
// Events caused by the watcher's own writes are recognised and dropped.
type changeSource struct {
	o       Options
	q       *queue
	root    workspacefs.FS
	fsw     *fsnotify.Watcher // nil when every directory is polled
	every   time.Duration     // the poll interval
	pollSet chan polledDirs   // the polled directories, handed to the poller

	mu sync.Mutex
	// watched are the directories inotify watches; only the run loop changes it.
	watched map[string]bool
	polled  []string   // directories polled, sorted
	inputs  inputPaths // which paths are inputs, as of the last refresh
	// again are the directories events named as made, removed or renamed since
	// the last refresh, whose watches are added again: a directory made again
	// under its name, even with the old inode number, lost its watch with the old
	// one. againAll says events were lost, and every watch is added again.
	again    map[string]bool
	againAll bool
	// inputFiles are the files the inputs were read from at the last refresh, and
	// inputsMoved says an event in an input directory came since: either may
	// move the input directories to watch.
	inputFiles  []string
	inputsMoved bool
	// own is what this process's last run left at each path it wrote; an event
	// for such a path, which still holds just that, is the run's own.
	own map[string]ownState
	// running is set while a run is under way; the paths of events meanwhile wait
	// in pending (true for a removal or rename), to be judged against what the
	// run leaves.
	running bool
	pending map[string]bool
	// baseline is the poller's first listing of each directory, taken before the
	// first run.
	baseline map[string]map[string]string
	// seen, when set, is told the path of every event once it has been noted:
	// a test waits on it for the events of what it changed.
	seen func(rel string)

	// tree is where the root leads, checked on the events of rootNames (the
	// directories that decide it and the names in them that do), or at every poll
	// when pollRoot says those could not be watched; nil leaves the root alone.
	tree      *rootTree
	rootNames map[string]bool
	pollRoot  bool
	// linked are the input files with more than one hard link, polled since a
	// write through another name sends no event here, with what each held at
	// the last refresh; nil before the first. Making a link sends none either:
	// inputEvent says an event for an input came since the last refresh, so the
	// refresh after the run it caused looks for links again.
	linked     map[string]string
	inputEvent bool
}

// polledDirs are what the poller looks at: the directories it lists, and which of
// them hold inputs; the input files it stats, with what each held when handed
// over; and whether it checks where the root leads.
type polledDirs struct {
	dirs  []string
	input map[string]bool
	files map[string]string
	root  bool
}

// newChangeSource watches the workspace at o.Root, the directory tree leads to
// when tree is not nil.
func newChangeSource(o Options, q *queue, tree *rootTree) (*changeSource, error) {
	r, err := o.System.Open(o.Root)
	if err != nil {
		return nil, err
	}
	s := &changeSource{o: o, q: q, root: r, every: o.Poll, pollSet: make(chan polledDirs, 1), watched: map[string]bool{}, again: map[string]bool{},
		tree: tree}
	if s.every <= 0 {
		s.every = fallbackPoll
	}
	if o.Poll == 0 {
		if s.fsw, err = fsnotify.NewWatcher(); err != nil {
			o.Log.Warn("inotify is not available, polling every watched directory instead", "err", err, "pollMs", s.every.Milliseconds())
			s.fsw = nil
		} else if !s.eventsArrive() {
			o.Log.Warn("file events do not arrive in this workspace, polling every watched directory instead", "pollMs", s.every.Milliseconds(),
				"hint", noEventsHint(o.PollFlag))
			s.fsw.Close()
			s.fsw = nil
		}
	}
	s.watchRoot()
	// Watch before the first run lists anything, so no change after this point can
	// fall between a scan and its watch. A registry with problems still names its
	// files and directories.
	reg, _ := registry.LoadConfig(o.System, o.Root, o.Config(), nil)
	s.refresh(reg)
	s.baseline = map[string]map[string]string{}
	for _, d := range s.polled {
		s.baseline[d] = listing(r, d)
	}
	return s, nil
}

// eventsArrive probes, once at start, whether the file events of the workspace
// reach fsnotify at all: it writes the lock file again, which changes nothing else
// in the workspace, and waits for that write's event. The watch it adds to the
// state directory goes again at the first refresh unless the directory is one to
// watch anyway. Without the lock (a caller that took none) it cannot tell.
func (s *changeSource) eventsArrive() bool {
	if s.o.Lock == nil {
		return true
	}
	if err := s.fsw.Add(s.abs(state.Dir)); err != nil {
		return true
	}
	return eventsArrive(s.o.Lock.Touch, s.abs(state.LockFile), s.fsw.Events, eventProbeWait)
}

// watchRoot watches the directories that decide where the root leads, so that
// the watcher sees it lead elsewhere; what cannot be watched (no inotify, a
// directory it may not read) has the poller check the root instead.
func (s *changeSource) watchRoot() {
	if s.tree == nil {
		return
	}
	holders, err := workspacefs.RootHolders(s.tree.path)
	s.pollRoot = err != nil || s.fsw == nil
	s.rootNames = map[string]bool{}
	for dir, names := range holders {
		s.rootNames[filepath.Clean(dir)] = true
		for _, name := range names {
			s.rootNames[filepath.Join(dir, name)] = true
		}
		if s.fsw != nil && s.fsw.Add(dir) != nil {
			s.pollRoot = true
		}
	}
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
	dirs := watchDirs(s.root, s.o.Config(), reg)
	s.mu.Lock()
	if reg == nil {
		for d := range s.watched {
			dirs = append(dirs, d)
		}
		dirs = append(dirs, s.polled...)
		slices.Sort(dirs)
		dirs = slices.Compact(dirs)
	}
	before := len(s.polled)
	again, all := s.takeAgain()
	s.mu.Unlock()

	watched := make(map[string]bool, len(dirs))
	var polled []string
	var addErr error
	if s.fsw == nil {
		polled = dirs
	} else {
		for d := range s.watched {
			if _, wanted := slices.BinarySearch(dirs, d); !wanted {
				s.fsw.Remove(s.abs(d))
			}
		}
		for _, d := range dirs {
			if s.watched[d] && !again[d] && !all {
				watched[d] = true
				continue
			}
			err := s.fsw.Add(s.abs(d))
			switch {
			case err == nil:
				watched[d] = true
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
	s.inputs, s.inputFiles, s.inputsMoved = inputsOf(s.root, reg), inputFilesOf(reg), false
	s.mu.Unlock()
	s.relink(reg)
	if s.fsw != nil && before == 0 && len(polled) > 0 {
		s.o.Log.Warn("cannot watch every directory with inotify; polling those instead", "polled", len(polled), "dir", polled[0],
			"err", addErr, "pollMs", s.every.Milliseconds(),
			"hint", watchLimitHint(s.o.PollFlag))
	}
	if s.fsw != nil && before > 0 && len(polled) == 0 {
		s.o.Log.Info("every directory is watched with inotify again", "watched", len(watched))
	}
	s.o.Health.setWatch(watchState{Inotify: len(watched), Polled: len(polled), PollMS: s.every.Milliseconds(), Asked: s.o.Poll > 0})
	s.handPollSet(polled, inputDirs(s.root, s.o.Config(), reg))
}

// takeAgain takes the directories whose watches are to be added again, or all;
// s.mu is held.
func (s *changeSource) takeAgain() (map[string]bool, bool) {
	again, all := s.again, s.againAll
	s.again, s.againAll = map[string]bool{}, false
	return again, all
}

// relink finds the input files of reg with more than one hard link, for the
// poller, with what each holds now. One linked since the last refresh is read
// again at once: a write through its other name after the run read it sent no
// event. Inputs that do not load keep the files polled so far. It tells
// whether the poller has linked files to look at, or had.
func (s *changeSource) relink(reg *registry.Registry) bool {
	s.mu.Lock()
	before := s.linked
	if s.linked == nil {
		s.linked = map[string]string{}
	}
	s.inputEvent = false
	s.mu.Unlock()
	if reg == nil {
		return len(before) > 0
	}
	linked := map[string]string{}
	for _, f := range linkedInputs(s.root, reg) {
		linked[f] = fileState(s.root, f)
	}
	s.mu.Lock()
	s.linked = linked
	s.mu.Unlock()
	for f := range linked {
		if _, known := before[f]; !known && before != nil {
			s.o.informer.InputChanged(f, false)
			s.q.Add()
		}
	}
	return len(before) > 0 || len(linked) > 0
}

// handPollSet gives the poller the directories to poll, and which hold inputs,
// the linked input files and whether to check the root.
func (s *changeSource) handPollSet(polled, inputDirs []string) {
	input := map[string]bool{}
	for _, d := range inputDirs {
		input[d] = true
	}
	s.mu.Lock()
	files := maps.Clone(s.linked)
	s.mu.Unlock()
	select { // replace a set the poller has not taken yet
	case <-s.pollSet:
	default:
	}
	s.pollSet <- polledDirs{dirs: polled, input: input, files: files, root: s.pollRoot}
}

func (s *changeSource) abs(rel string) string {
	return filepath.Join(s.o.Root, filepath.FromSlash(rel))
}

// run turns events and polls into triggers until ctx ends.
func (s *changeSource) run(ctx context.Context) {
	var polling sync.WaitGroup
	polling.Go(func() { s.poll(ctx) })
	defer polling.Wait()
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
			if s.holderEvent(ev.Name) {
				if s.tree.check() {
					s.q.Add()
				}
				continue
			}
			rel := s.rel(ev.Name)
			if rel == ".." || strings.HasPrefix(rel, "../") {
				continue // beside a name that decides where the root leads
			}
			// Even a temp file's event is noted: one a killed writer left is cleaned
			// up by the next pass that reads its directory.
			s.o.informer.Note(rel)
			if s.seen != nil {
				s.seen(rel)
			}
			if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				s.mu.Lock()
				s.again[rel] = true
				s.mu.Unlock()
			}
			if !relevant(rel) {
				continue
			}
			if s.judge(rel, ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) {
				s.q.Add()
			}
		case err, ok := <-s.fsw.Errors:
			if !ok {
				return
			}
			// An overflow means events were lost, of inputs too for all it tells: only a
			// full run is safe, and deletes wait as after a change.
			s.o.Log.Error("watcher error, reconciling in full", "overflow", errors.Is(err, fsnotify.ErrEventOverflow), "err", err)
			s.o.informer.NoteAll()
			s.mu.Lock()
			s.againAll = true
			s.mu.Unlock()
			s.o.informer.InputEvent(time.Now())
			s.q.Add()
		}
	}
}

// handedOver are the states the poller compares the linked files with: its own
// for those it polled already (a change since its last look must not pass for
// the baseline), the state handed over for the others.
func handedOver(last, files map[string]string) map[string]string {
	out := make(map[string]string, len(files))
	for f, state := range files {
		if was, ok := last[f]; ok {
			state = was
		}
		out[f] = state
	}
	return out
}

// pollFiles stats each linked input file and, for one that changed, has its
// bytes read again, as an event for it would.
func (s *changeSource) pollFiles(last map[string]string) {
	changed := false
	for f, was := range last {
		now := fileState(s.root, f)
		if now == was {
			continue
		}
		last[f] = now
		s.o.informer.InputChanged(f, false)
		changed = true
	}
	if changed {
		s.o.informer.InputEvent(time.Now())
		s.q.Add()
	}
}

// rel is the workspace-relative path of an event's name.
func (s *changeSource) rel(name string) string {
	rel, err := filepath.Rel(s.o.Root, name)
	if err != nil {
		return name
	}
	return filepath.ToSlash(rel)
}

// relevant drops the events of skillsync's own temp files and folders, and
// what is in those (a new skill directory is written in one before it is put
// in place), and of its lock, which call for no pass.
func relevant(rel string) bool {
	return !slices.ContainsFunc(strings.Split(rel, "/"), banner.IsTempName) && rel != state.LockFile
}

// poll lists the polled directories every interval and triggers a run when an
// entry of one changes, naming the entry as an event would; a change in a
// directory that holds inputs also makes deletes wait, as an event there would.
// Under --poll a run's own writes change an entry too: they cause one more run,
// which finds nothing to do.
func (s *changeSource) poll(ctx context.Context) {
	var set polledDirs
	last := s.baseline
	lastFiles := map[string]string{}
	// With nothing to poll the ticker is stopped: an idle watcher wakes for
	// nothing.
	tick := time.NewTicker(s.every)
	tick.Stop()
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case set = <-s.pollSet:
			lastFiles = handedOver(lastFiles, set.files)
			if len(set.dirs) > 0 || len(set.files) > 0 || set.root {
				tick.Reset(s.every)
			} else {
				tick.Stop()
			}
			continue
		case <-tick.C:
		}
		if set.root && s.tree.check() {
			s.q.Add()
		}
		s.pollFiles(lastFiles)
		changed, inputChanged := false, false
		now := map[string]map[string]string{}
		for _, d := range set.dirs {
			now[d] = listing(s.root, d)
			names := changedEntries(last[d], now[d])
			for _, name := range names {
				s.o.informer.Note(path.Join(d, name))
			}
			if len(names) > 0 {
				changed = true
				inputChanged = inputChanged || set.input[d]
			}
		}
		if inputChanged {
			s.o.informer.InputChanged(".", true) // a listing names no change of content
			s.mu.Lock()
			s.inputsMoved = true
			s.mu.Unlock()
			s.o.informer.InputEvent(time.Now())
		}
		if changed {
			s.q.Add()
		}
		last = now
	}
}
