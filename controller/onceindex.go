package controller

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"time"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/controller/index"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/controller/state"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/gitfiles"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
)

// A one-shot pass that finds nothing to do leaves the index (see package index),
// and the next one-shot pass answers from it when its binary and request are the
// same and every stamp is as it was.

// seenTargets are the entries a pass's scan found in each target, what it read
// there with the stamps it took, the files it found without reading them, and
// the symlinks it met.
type seenTargets struct {
	entries, files, links []string
	read                  []observed.Stamped
}

func (s *seenTargets) keep(p targetPart) {
	s.entries = append(s.entries, p.have.Entries...)
	s.links = append(s.links, p.have.Links()...)
	read := make(map[string]bool, len(p.have.Read))
	for _, r := range p.have.Read {
		read[r.Path] = true
	}
	// Most files were read and are among read already, in the order of their
	// paths: listed again here, from the map in no order, they would have to
	// be sorted again.
	for f := range p.have.Files {
		if !read[f] {
			s.files = append(s.files, f)
		}
	}
	s.read = append(s.read, p.have.Read...)
}

// stamps are the stamps of what the scan read, taken as it read it.
func (s *seenTargets) stamps() map[string]workspacefs.Stamp {
	known := make(map[string]workspacefs.Stamp, len(s.read))
	for _, r := range s.read {
		if r.Stamp.Valid {
			known[r.Path] = r.Stamp
		}
	}
	return known
}

// fromIndex answers req from the index, when every stamp in it is as it was.
func fromIndex(req Request) (Outcome, bool) {
	real, err := workspacefs.RealPath(req.Root)
	if err != nil {
		return Outcome{}, false
	}
	r, err := req.System.Open(real)
	if err != nil {
		return Outcome{}, false
	}
	defer r.Close()
	data := state.ReadIndex(r)
	if data == nil {
		return Outcome{}, false
	}
	key, ok := indexKey(req, real)
	if !ok {
		return Outcome{}, false
	}
	found, inSync, ok := index.Check(r, data, key)
	if !ok || found.InGit != gitfiles.InWorkTree(req.System, real) {
		return Outcome{}, false
	}
	out := Outcome{Withheld: found.Withheld, HandWritten: found.HandWritten, Planned: true, indexed: true}
	out.Profile = desired.Profile{Name: found.Profile, Source: found.ProfileSource}
	out.Plan.InSync = inSync
	for _, c := range found.Conflicts {
		out.Plan.Changes = append(out.Plan.Changes, plan.Change{Path: c.Path, Action: plan.Conflict, Owner: c.Owner, Reason: c.Reason,
			Obstruction: c.Obstruction, Override: c.Override, OldSum: c.OldSum})
	}
	return out, true
}

// writeIndex records out, a pass that found nothing to do but keep conflicts,
// with the stamps of what it read, when every stamp is older than began by its
// racyMargin and on a filesystem where stamps hold, and no symlink is on the way
// to an input; else it removes any index, which no longer holds.
func writeIndex(req Request, out Outcome, seen *seenTargets, began time.Time) {
	in := out.Inputs
	if !out.Planned || len(out.Problems) > 0 || out.Err != nil || out.Plan.Refused != "" || out.Plan.Pending() > 0 ||
		len(out.Deferred) > 0 || len(in.cutOffs) > 0 || in.recordStale() {
		return
	}
	var conflicts []index.Conflict
	for _, c := range out.Plan.Changes {
		if c.Action != plan.Conflict {
			return
		}
		conflicts = append(conflicts, index.Conflict{Path: c.Path, Owner: c.Owner, Reason: c.Reason, Obstruction: c.Obstruction, Override: c.Override, OldSum: c.OldSum})
	}
	r, err := req.System.Open(in.Registry.Root)
	if err != nil {
		return
	}
	defer r.Close()
	paths, ok := indexedPaths(r, in.Registry, seen)
	key, keyed := indexKey(req, in.Registry.Root)
	if !ok || !keyed {
		state.RemoveIndex(r)
		return
	}
	found := index.Found{Profile: in.Profile.Name, ProfileSource: in.Profile.Source, Withheld: out.Withheld,
		HandWritten: out.HandWritten, Conflicts: conflicts, InGit: gitfiles.InWorkTree(req.System, in.Registry.Root)}
	data, ok := index.Make(r, key, found, paths, seen.stamps(), out.Plan.InSync, began)
	if !ok {
		state.RemoveIndex(r) // the index would not hold
		return
	}
	state.WriteIndex(r, data) // a cache: a read-only workspace just has none
}

// indexedPaths are the paths a pass that planned reg, and whose scan found seen,
// read or listed, and every path on the way of each symlink the scan met (see
// index.LinkWay); false when an input is reached through a symlink, whose target a
// stamp of the link does not follow, or when the way of a link the scan met
// leaves the workspace.
func indexedPaths(r workspacefs.FS, reg *registry.Registry, seen *seenTargets) ([]string, bool) {
	r = workspacefs.LstatOnce(r)
	paths, ok := inputFiles(r, reg)
	if !ok {
		return nil, false
	}
	// .skillsync/ changes when the index is written: its files are stamped
	// instead of it.
	paths = append(paths, registry.InputDirs(r, reg.ConfigFile, reg)...)
	scanned, ok := scannedPaths(r, seen, true)
	if !ok {
		return nil, false
	}
	return sortedUnion(paths, scanned), true
}

// inputFiles are the files a pass that planned reg read, or looked for, to load
// its inputs; false when one is reached through a symlink, whose target a stamp
// of the link does not follow. A skill directory's files were read through its
// folders, as regular files, so the ways to the folders are walked rather than
// to each file (a thousand skills hold ten thousand files).
func inputFiles(r workspacefs.FS, reg *registry.Registry) ([]string, bool) {
	byPath := append([]string{reg.ConfigFile, desired.ProfileFile, state.AppliedFile}, reg.Files...)
	byPath = append(byPath, reg.BodyFiles()...)
	for _, p := range append(slices.Clone(byPath), reg.SkillDirs()...) {
		if links, _, _ := registry.WalkLinks(r, p); len(links) > 0 {
			return nil, false
		}
	}
	return append(byPath, reg.SkillDirFiles()...), true
}

// scannedPaths are the paths a pass's scan of the targets, which found seen,
// listed or read: each target directory, what is above it (it may be a symlink,
// or missing), and with nearest the nearest directory there above a missing one,
// every entry the scan found in it, the side-file directories it listed in each,
// every file it read, and every path on the way of each symlink it met; false
// when the way of one leaves the workspace. A side-file directory that is not
// there needs no stamp of its own: making it changes its skill directory's.
func scannedPaths(r workspacefs.FS, seen *seenTargets, nearest bool) ([]string, bool) {
	var paths []string
	for _, t := range clients.Targets {
		paths = append(paths, t.Dir, path.Dir(t.Dir))
		if d, ok := registry.NearestDir(r, t.Dir, false); ok && nearest {
			paths = append(paths, d)
		}
	}
	read := make([]string, len(seen.read))
	for i, r := range seen.read {
		read[i] = r.Path
	}
	paths = append(paths, seen.files...)
	realRoot, err := r.EvalSymlinks(".")
	if err != nil {
		return nil, false
	}
	for _, l := range seen.links {
		way, ok := index.LinkWay(r, realRoot, l)
		if !ok {
			return nil, false
		}
		paths = append(paths, way...)
	}
	return sortedUnion(paths, seen.entries, read), true
}

// sortedUnion is the union of lists in order, each sorted first unless it is:
// most of an index's paths come in long sorted runs (the entries and what the
// scan read, target by target, in the order of their paths), which a merge
// takes in one pass, where sorting them all together is most of the time
// listing them.
func sortedUnion(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		if !slices.IsSorted(l) {
			l = slices.Sorted(slices.Values(l))
		}
		merged := make([]string, 0, len(out)+len(l))
		for len(out) > 0 && len(l) > 0 {
			if l[0] < out[0] {
				merged, l = append(merged, l[0]), l[1:]
			} else {
				merged, out = append(merged, out[0]), out[1:]
			}
		}
		out = append(append(merged, out...), l...)
	}
	return slices.Compact(out)
}

// scanKey keys the stamps of what a --once pass scanned (stampScan) for the pass
// under the lock that follows in the same process.
const scanKey = "scan"

// stampScan stamps what the scan of a --once pass that began at began read
// (seen), in the inputs' workspace: what the pass under the lock checks to keep
// the plan rather than scan again. Nil when a stamp cannot stand for what was
// read (see index.Make).
func stampScan(req Request, in Inputs, seen *seenTargets, began time.Time) []byte {
	// Not the nearest directory above a missing target: in a fresh clone that is
	// the workspace root, where taking the lock makes .skillsync/ and so changes
	// its stamp. The target directory and the one above it, stamped as missing,
	// show one made meanwhile.
	return stampFor(req, in, scanKey, seen.stamps(), began, func(r workspacefs.FS) ([]string, bool) {
		return scannedPaths(r, seen, false)
	})
}

// loadKey keys the stamps of the inputs a --once pass loaded (stampLoad) for
// the pass under the lock that follows in the same process.
const loadKey = "load"

// stampLoad stamps the inputs a --once pass that began at began loaded, and
// the directories whose entries decide which files those are: what the pass
// under the lock checks instead of reading every input again. It holds what
// Inputs.unchanged compares, the files and the registry's directories; nil when
// a stamp cannot stand for what was read (see index.Make). The directory of the
// config is not among them, as Inputs.unchanged does not list it: in a fresh
// clone taking the lock makes .skillsync/ there.
func stampLoad(req Request, in Inputs, began time.Time) []byte {
	return stampFor(req, in, loadKey, nil, began, func(r workspacefs.FS) ([]string, bool) {
		r = workspacefs.LstatOnce(r)
		files, ok := inputFiles(r, in.Registry)
		if !ok {
			return nil, false
		}
		paths := append(files, registry.Dirs(r, in.Registry)...)
		slices.Sort(paths)
		return slices.Compact(paths), true
	})
}

// stampFor stamps the paths that pathsOf lists in the inputs' workspace, but
// for those known already, as index.Make does for key; nil when there are no
// inputs, pathsOf says false, or a stamp cannot stand for what a pass that
// began at began read.
func stampFor(req Request, in Inputs, key string, known map[string]workspacefs.Stamp, began time.Time, pathsOf func(workspacefs.FS) ([]string, bool)) []byte {
	if in.Registry == nil {
		return nil
	}
	r, err := req.System.Open(in.Registry.Root)
	if err != nil {
		return nil
	}
	defer r.Close()
	paths, ok := pathsOf(r)
	if !ok {
		return nil
	}
	data, ok := index.Make(r, key, index.Found{}, paths, known, nil, began)
	if !ok {
		return nil
	}
	return data
}

// stampsHold tells whether every stamp in stamps, taken by stampScan or
// stampLoad (key says which), is as it was.
func stampsHold(req Request, in Inputs, stamps []byte, key string) bool {
	if stamps == nil {
		return false
	}
	r, err := req.System.Open(in.Registry.Root)
	if err != nil {
		return false
	}
	defer r.Close()
	_, _, ok := index.Check(r, stamps, key)
	return ok
}

// indexKey digests what a pass's outcome depends on beside the files: the binary
// that made it, the request, the organisation's policy the sources are read
// under (outside the workspace, so no stamp of it is taken), and where the
// workspace really is (realRoot), which decides where an absolute symlink in it
// leads. A policy that cannot be read gives no key: the pass runs.
func indexKey(req Request, realRoot string) (string, bool) {
	var policy [32]byte
	if pr, ok := req.Sources.(registry.PolicedReader); ok {
		p, err := pr.Policy()
		if err != nil {
			return "", false
		}
		if p != nil {
			policy = p.Sum()
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return "", false
	}
	dir, err := req.System.Open(filepath.Dir(exe))
	if err != nil {
		return "", false
	}
	defer dir.Close()
	info, err := dir.Stat(filepath.Base(exe))
	if err != nil {
		return "", false
	}
	stamp := workspacefs.StampOf(info)
	if !stamp.Valid {
		return "", false
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%+v\x00%q\x00%q\x00%v\x00%v\x00%q\x00%q\x00%x", index.Version, stamp, req.ProfileFlag, req.ProfileEnv, req.Force, req.AllowEmpty, realRoot, req.Config(), policy)
	return hex.EncodeToString(h.Sum(nil)), true
}
