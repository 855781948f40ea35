package watch

import (
	"maps"
	"path"
	"slices"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// pass runs one pass of the watcher through inf, then moves the watches to where
// the pass leaves things, and judges the events that came meanwhile against what
// it wrote.
func (s *changeSource) pass(inf *controller.Informer, req controller.Request) controller.Outcome {
	s.runStarting()
	out := inf.Reconcile(req)
	// Watches first: once /readyz says ready, every later change is seen. Inputs
	// that did not load whole keep every directory watched so far.
	switch {
	case !out.Planned:
		s.refresh(nil)
	case out.Scope != nil && !out.Scope.Full:
		s.refreshEntries(out.Registry, touchedEntries(out))
	default:
		s.refresh(out.Registry)
	}
	s.runEnded(out)
	return out
}

// touchedEntries are the entries of target directories a pass read or wrote.
func touchedEntries(out controller.Outcome) []string {
	set := map[string]bool{}
	if out.Scope != nil {
		for _, e := range out.Scope.Read {
			set[e] = true
		}
	}
	for _, a := range out.Applied {
		if dir, name, _ := clients.TargetEntry(a.Path); dir != "" {
			set[path.Join(dir, name)] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// refreshEntries moves the watches a pass that read only some entries of the
// target directories can have changed: those entries' (a skill directory made or
// removed), the target directories' (one made), and the input directories' when
// the registry's files or an input directory changed since the last refresh. It
// lists no target directory; the full refresh after a full pass does, and drops
// the watches nothing needs any more.
func (s *changeSource) refreshEntries(reg *registry.Registry, entries []string) {
	if s.fsw == nil {
		s.refresh(reg)
		return
	}
	s.mu.Lock()
	sameInputs := !s.inputsMoved && slices.Equal(s.inputFiles, inputFilesOf(reg))
	s.inputsMoved = false
	named, all := s.takeAgain()
	s.mu.Unlock()
	if all {
		s.refresh(reg)
		return
	}
	var dirs []string
	if !sameInputs {
		dirs = inputDirs(s.root, s.o.Config(), reg)
	}
	for _, t := range clients.Targets {
		if d, ok := registry.NearestDir(s.root, t.Dir, false); ok {
			dirs = append(dirs, d)
		}
	}
	// The entries are watched again whatever the watch set says, as are the
	// directories events named: a directory removed and made again lost its watch
	// with the one before, though it may have its inode number. Adding a watch an
	// inode has is one cheap system call.
	var again, gone []string
	for _, e := range entries {
		if info, err := s.root.Lstat(e); err == nil && info.IsDir() {
			again = append(again, e)
			again = append(again, skillFolders(s.root, e)...)
		} else {
			gone = append(gone, e)
		}
	}
	s.mu.Lock()
	for _, e := range gone {
		if s.watched[e] {
			s.fsw.Remove(s.abs(e)) // gone with the directory, or a symlink now
			delete(s.watched, e)
		}
	}
	before := len(s.polled)
	var addErr error
	handled := map[string]bool{}
	for i, d := range append(dirs, again...) {
		handled[d] = true
		if i < len(dirs) && s.watched[d] && !named[d] {
			continue
		}
		switch err := s.fsw.Add(s.abs(d)); {
		case err == nil:
			s.watched[d] = true
		case workspacefs.OutOfResources(err) && !slices.Contains(s.polled, d):
			s.polled = append(s.polled, d)
			addErr = err
		}
	}
	// A mark this refresh did not act on is kept for the next, which may be a
	// full one that would otherwise keep the old watch.
	for d := range named {
		if !handled[d] {
			s.again[d] = true
		}
	}
	if !sameInputs {
		s.inputs, s.inputFiles = inputsOf(s.root, reg), inputFilesOf(reg)
	}
	slices.Sort(s.polled)
	polled, watched := slices.Clone(s.polled), len(s.watched)
	relink := !sameInputs || s.inputEvent
	s.mu.Unlock()
	if relink && s.relink(reg) {
		s.handPollSet(polled, inputDirs(s.root, s.o.Config(), reg))
	}
	s.o.Health.setWatch(watchState{Inotify: watched, Polled: len(polled), PollMS: s.every.Milliseconds()})
	if len(polled) > before {
		if before == 0 {
			s.o.Log.Warn("cannot watch every directory with inotify; polling those instead", "polled", len(polled), "dir", polled[0],
				"err", addErr, "pollMs", s.every.Milliseconds(), "hint", watchLimitHint(s.o.PollFlag))
		}
		s.handPollSet(polled, inputDirs(s.root, s.o.Config(), reg))
	}
}

// inputFilesOf are the files the inputs were read from, in a fixed order.
func inputFilesOf(reg *registry.Registry) []string {
	if reg == nil {
		return nil
	}
	return append(append(slices.Clone(reg.Files), reg.SkillFiles()...), reg.Config.Spec.Registry...)
}
