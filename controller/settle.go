package controller

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
)

// A delete is applied only once the inputs it follows from have settled: an editor
// that truncates a file and writes it in two goes, a save by delete-then-create, a
// save storm or a git checkout of thousands of files all show, for a moment, a
// registry that declares less than it does, and deleting what it leaves out would
// remove skills that are back a moment later. Creates and updates do not wait: a
// wrong one is put right by the next pass, and nothing a person relies on vanishes.

// settling remembers, across the passes of one process (a watcher's, or the tries
// of one --once), since when the inputs have read the same.
type settling struct {
	digest [32]byte
	since  time.Time
}

// observe records what the inputs hold at now and returns since when they have
// held it.
func (s *settling) observe(digest [32]byte, now time.Time) time.Time {
	if s.since.IsZero() || s.digest != digest {
		s.digest, s.since = digest, now
	}
	return s.since
}

// inputDigest is one digest of everything a pass read its inputs from: the config
// and registry files, the body files and the profile file.
func inputDigest(in Inputs) [32]byte {
	h := sha256.New()
	for _, f := range slices.Sorted(maps.Keys(in.Registry.Sources)) {
		sum := in.Registry.Sources[f].Sum
		fmt.Fprintf(h, "%s\x00%x\x00", f, sum)
	}
	for _, s := range in.Registry.Skills {
		if s.BodyPath != "" {
			fmt.Fprintf(h, "%s\x00%x\x00", s.BodyPath, sha256.Sum256([]byte(s.Body)))
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
// hold a new one, which a delete-then-create save changes), or settle after this
// process first read them as they are (in.seenSince), whichever comes first. The
// second alone decides when the timestamps cannot be trusted, being in the future.
// It also says, for messages, what the wait is for.
func settledAt(r *os.Root, in Inputs, settle time.Duration, now time.Time) (time.Time, string) {
	at := in.seenSince.Add(settle)
	why := fmt.Sprintf("the inputs were first read as they are %s ago", now.Sub(in.seenSince).Round(time.Millisecond))
	changed, newest := inputsChanged(r, in)
	switch {
	case changed.After(now.Add(clockSlack)):
		why = fmt.Sprintf("%s has a modification time in the future, so %s", newest, why)
	case changed.Add(settle).Before(at):
		at = changed.Add(settle)
		why = fmt.Sprintf("%s changed %s ago", newest, max(now.Sub(changed), 0).Round(time.Millisecond))
	}
	return at, why
}

// inputsChanged is the newest modification time among the input files of in and
// the directories that hold them or could hold a new one, and which it was.
func inputsChanged(r *os.Root, in Inputs) (time.Time, string) {
	paths := []string{registry.ConfigName, desired.ProfileFile}
	paths = append(paths, in.Registry.Files...)
	for _, s := range in.Registry.Skills {
		if s.BodyPath != "" {
			paths = append(paths, s.BodyPath)
		}
	}
	for _, d := range inputDirs(r, in.Registry) {
		if d != StateDir { // its own writes would count as changes; the profile file is here
			paths = append(paths, d)
		}
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

// deleteGate says whether the deletes of a pass over in may be applied now; when
// not, until when to wait and why.
func (req Request) deleteGate(in Inputs) (ok bool, until time.Time, why string) {
	if req.Settle <= 0 {
		return true, time.Time{}, ""
	}
	r, err := os.OpenRoot(in.Registry.Root)
	if err != nil {
		return false, time.Now().Add(req.Settle), "the workspace cannot be read: " + err.Error()
	}
	defer r.Close()
	now := time.Now()
	if at, why := settledAt(r, in, req.Settle, now); now.Before(at) {
		return false, at, why
	}
	// Read them again right before deleting: settled inputs are still the same.
	if !in.unchanged() {
		return false, now.Add(req.Settle), "the inputs changed during this pass"
	}
	return true, time.Time{}, ""
}
