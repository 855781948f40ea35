package controller

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"path"
	"slices"
	"sync"
	"time"

	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// A delete is applied only once the inputs it follows from have settled: an editor
// that truncates a file and writes it in two goes, a save by delete-then-create, a
// save storm or a git checkout of thousands of files all show, for a moment, a
// registry that declares less than it does, and deleting what it leaves out would
// remove skills that are back a moment later. Creates and updates do not wait: a
// wrong one is put right by the next pass, and nothing a person relies on vanishes.

// settling remembers, across the passes of one process (a watcher's, or the tries
// of one --once), since when the inputs have read the same, and when the watcher
// last saw them change.
type settling struct {
	mu     sync.Mutex
	digest [32]byte
	since  time.Time
	event  time.Time // the last event in an input directory; zero outside a watcher
}

// observe records what the inputs hold at now and returns since when they have
// held it, and when an input last changed as far as the watcher saw.
func (s *settling) observe(digest [32]byte, now time.Time) (since, event time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.since.IsZero() || s.digest != digest {
		s.digest, s.since = digest, now
	}
	return s.since, s.event
}

// changed records that the watcher saw an input change at now.
func (s *settling) changed(now time.Time) {
	s.mu.Lock()
	s.event = now
	s.mu.Unlock()
}

// inputDigest is one digest of everything a pass read its inputs from: the config
// and registry files, the body files and the profile file.
func inputDigest(in Inputs) [32]byte {
	h := sha256.New()
	for _, f := range slices.Sorted(maps.Keys(in.Registry.Sources)) {
		sum := in.Registry.Sources[f].Sum
		h.Write([]byte(f))
		h.Write([]byte{0}) // no file name holds one
		h.Write(sum[:])
	}
	for _, s := range in.Registry.Skills {
		if s.BodyPath != "" {
			fmt.Fprintf(h, "%s\x00%x\x00", s.BodyPath, sha256.Sum256([]byte(s.Body)))
		}
		if s.Dir != "" {
			fmt.Fprintf(h, "%s\x00%x\x00", s.Dir, s.DirSum())
		}
	}
	fmt.Fprintf(h, "%s\x00%s", desired.ProfileFile, in.profileFile)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// clockSlack is how far in the future a modification time may be before it is
// taken for a clock that disagrees with this one (a network filesystem, a VM).
const clockSlack = time.Second

// settledAt is when the inputs of in count as settled, so the deletes that follow
// from them may be applied: settle after they last changed on disk (the newest
// modification time of an input file, or of a directory that holds one or could
// hold a new one, which a delete-then-create save changes), and settle after the
// watcher last saw an event for them (in.changedSeen), which a clock that disagrees
// with this one cannot hide. Timestamps in the future cannot be trusted; then the
// inputs settle once this process has read them the same for settle (in.seenSince).
// It also says, for messages, what the wait is for.
func settledAt(r workspacefs.FS, in Inputs, handWritten []string, settle time.Duration, now time.Time) (time.Time, string) {
	changed, newest := inputsChanged(r, in, handWritten)
	at := changed.Add(settle)
	why := fmt.Sprintf("%s changed %s ago", newest, max(now.Sub(changed), 0).Round(time.Millisecond))
	if changed.After(now.Add(clockSlack)) {
		at = in.seenSince.Add(settle)
		why = fmt.Sprintf("%s has a modification time in the future, so the inputs must read the same for %s (first read so %s ago)",
			newest, settle, now.Sub(in.seenSince).Round(time.Millisecond))
	}
	if seen := in.changedSeen.Add(settle); !in.changedSeen.IsZero() && seen.After(at) {
		at = seen
		why = fmt.Sprintf("an input changed %s ago", max(now.Sub(in.changedSeen), 0).Round(time.Millisecond))
	}
	return at, why
}

// inputsChanged is the newest modification time among the input files of in (the
// config, the profile, the registry and body files), the registry directories
// that hold them or could hold a new one (registry.Dirs), and the SKILL.md files
// people wrote in the targets (handWritten), and which it was. The workspace root
// and .skillsync/ count only through the files in them: skillsync's own writes
// (its state directory, a new target directory) change them too. A person's
// SKILL.md is an input of the plan too: it takes its name from every target,
// and a generated one rewritten in place reads as a person's until its banner
// is whole again.
func inputsChanged(r workspacefs.FS, in Inputs, handWritten []string) (time.Time, string) {
	paths := []string{in.Registry.ConfigFile, desired.ProfileFile}
	paths = append(paths, in.Registry.Files...)
	paths = append(paths, in.Registry.SkillFiles()...)
	paths = append(paths, registry.Dirs(r, in.Registry)...)
	for _, p := range handWritten {
		// Its directory too: a skill.md made beside a SKILL.md stands for it,
		// and a file made in a directory changes the directory's time.
		paths = append(paths, p, path.Dir(p))
	}
	var newest time.Time
	which := ""
	for _, p := range paths {
		info, err := r.Stat(p)
		if err == nil && info.ModTime().After(newest) {
			newest, which = info.ModTime(), p
		}
	}
	return newest, which
}

// settleAt is when the deletes of a pass over in, which found the SKILL.md
// files handWritten in the targets, may be applied, and why not before; the
// zero time when they need not wait. It is taken before the pass writes
// anything, so its own writes cannot hold its deletes back.
func (req Request) settleAt(in Inputs, handWritten []string) (time.Time, string) {
	if req.Settle <= 0 {
		return time.Time{}, ""
	}
	r, err := req.System.Open(in.Registry.Root)
	if err != nil {
		return time.Now().Add(req.Settle), "the workspace cannot be read: " + err.Error()
	}
	defer r.Close()
	return settledAt(r, in, handWritten, req.Settle, time.Now())
}

// mayDelete says whether deletes planned from in while they settled at at may be
// applied now: the time has come, and the inputs, read again, are still what the
// pass planned from.
func mayDelete(in Inputs, at time.Time) bool {
	return !time.Now().Before(at) && in.unchanged()
}
