package watch

import (
	"crypto/sha256"
	"io/fs"
	"os"
	"path"
	"time"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/apply"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/controller/state"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
)

// A run's own writes raise events too. They are told apart from a person's by
// what the run left at each path: an event for a path that still holds just that
// is the run's own and triggers nothing.

// ownState is what a run left at a path: nothing, a directory (which one: a
// directory removed and made again under the same name is another), or a file
// with the digest of its content.
type ownState struct {
	kind fs.FileMode   // fs.ModeDir, 0 for a regular file, fs.ModeIrregular for nothing
	file apply.Content // a file's
	dir  fs.FileInfo   // the directory, for os.SameFile
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
func (o ownState) stillThere(r workspacefs.FS, rel string) bool {
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
	unreadable = ownState{kind: fs.ModeIrregular, file: apply.Content{Sum: [32]byte{1}}} // the same as nothing a run leaves
)

// runStarting holds back the events of the run about to start: they are judged
// once it has ended, against what it left.
func (s *changeSource) runStarting() {
	s.mu.Lock()
	s.running, s.pending = true, map[string]bool{}
	s.mu.Unlock()
}

// runEnded records what the run wrote, then judges the events that came during it.
func (s *changeSource) runEnded(out controller.Outcome) {
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
		case plan.Create, plan.Update:
			own[a.Path] = ownState{file: a.Written}
		default:
			own[a.Path] = absent
		}
		for dir := path.Dir(a.Path); dir != "."; dir = path.Dir(dir) {
			observe(dir)
		}
	}
	for _, p := range []string{state.Dir, state.IgnoreFile} {
		observe(p)
	}
	if out.Recorded {
		// What the run wrote, not what is there by now: an accept landing meanwhile
		// is a person's.
		own[state.AppliedFile] = ownState{file: apply.Content{Sum: out.RecordSum, Size: -1}}
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
			s.o.informer.Note(p)
			trigger = true
		}
	}
	for p, removed := range pending {
		if s.judge(p, removed) {
			trigger = true
		}
	}
	if trigger {
		s.q.Add()
	}
}

// judge tells whether an event for rel, removed or renamed away when removed is
// set, calls for a run, and tells the informer what changed. An event for a path
// that is neither input nor output calls for none, nor does one for a path the
// last run wrote that still holds what that run left there: the event is the
// run's own. During a run an event waits for the run to end, to be judged then
// against the inputs the run leaves: a file can become an input by it.
func (s *changeSource) judge(rel string, removed bool) bool {
	s.mu.Lock()
	if s.running {
		s.pending[rel] = s.pending[rel] || removed
		s.mu.Unlock()
		return false
	}
	inputs := s.inputs
	want, wrote := s.own[rel]
	s.mu.Unlock()
	input, output := inputs.holds(rel), outputPath(rel)
	if input {
		s.o.informer.InputChanged(rel, removed)
		moves := inputs.moves(s.root, rel, removed)
		s.mu.Lock()
		s.inputsMoved = s.inputsMoved || moves
		s.inputEvent = true
		s.mu.Unlock()
	}
	if !input && !output || wrote && want.same(s.stateOf(rel)) {
		return false
	}
	if input {
		s.o.informer.InputEvent(time.Now())
	}
	return true
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
	data, err := s.root.ReadRegular(rel, max(observed.MaxFileSize, state.MaxRecordSize))
	if err != nil {
		return unreadable
	}
	return ownState{file: apply.Content{Sum: sha256.Sum256(data), Size: int64(len(data))}}
}
