package controller

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/gitfiles"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/statedir"
)

// A one-shot pass that finds nothing to do leaves, in statedir.IndexFile, what it
// found and the stamp of every file and directory it read: the inputs, the
// directories that decide which files are inputs, every target directory (or the
// directory above one that is not there) and everything the scan listed and read
// in it. The next one-shot pass whose binary and request are the same and that
// finds every stamp as it was answers as that pass did without parsing, rendering
// or reading anything. A write, a rename onto a file and a chmod change a file's
// change time, which nobody can set; an entry added to or removed from a
// directory changes the directory's modification time.
//
// An edit within the timestamp granularity of the filesystem keeps a stamp as
// it was: git's racily clean entries. So the index is written only when every
// stamp is older, by more than a tick of the filesystem's clock (racyMargin),
// than the moment the pass began to read: a file changed while or after it was
// read then has a stamp of that moment or later, unlike the one recorded.

// indexVersion is the version of the index format.
const indexVersion = "skillsync-index 1"

// indexedOutcome is what a pass that found nothing to do found, for the index.
type indexedOutcome struct {
	Profile       string             `json:"profile"`
	ProfileSource string             `json:"profileSource"`
	Withheld      []desired.Withheld `json:"withheld"`
	HandWritten   []string           `json:"handWritten"`
	InSync        []string           `json:"inSync"`
	Conflicts     []indexedConflict  `json:"conflicts"`
	InGit         bool               `json:"inGit"`
}

// indexedConflict is a file the pass kept as it was, and why.
type indexedConflict struct {
	Path        string   `json:"path"`
	Owner       string   `json:"owner"`
	Reason      string   `json:"reason"`
	Obstruction bool     `json:"obstruction"`
	Override    Override `json:"override"`
	OldSum      [32]byte `json:"oldSum"`
}

// stamped is a path the pass read and what was there: a stamp, or nothing.
type stamped struct {
	path   string
	absent bool
	stamp  workspacefs.Stamp
}

// seenTargets are the entries and files a pass's scan found in each target.
type seenTargets struct {
	entries, files []string
}

func (s *seenTargets) keep(p targetPart) {
	s.entries = append(s.entries, p.have.Entries...)
	for f := range p.have.Files {
		s.files = append(s.files, f)
	}
}

// fromIndex answers req from the index, when every stamp in it is as it was.
func fromIndex(req Request) (Outcome, bool) {
	real, err := workspacefs.RealPath(req.Root)
	if err != nil {
		return Outcome{}, false
	}
	r, err := req.system().Open(real)
	if err != nil {
		return Outcome{}, false
	}
	defer r.Close()
	data := statedir.ReadIndex(r)
	if data == nil {
		return Outcome{}, false
	}
	key, ok := indexKey(req)
	if !ok {
		return Outcome{}, false
	}
	found, stamps, ok := parseIndex(data, key)
	if !ok || found.InGit != gitfiles.InWorkTree(req.system(), real) {
		return Outcome{}, false
	}
	paths := make([]string, len(stamps))
	for i, s := range stamps {
		paths[i] = s.path
	}
	same := true
	stampAll(r, paths, func(i int, now stamped) bool {
		same = now == stamps[i]
		return same
	})
	if !same {
		return Outcome{}, false
	}
	out := Outcome{Withheld: found.Withheld, HandWritten: found.HandWritten, Planned: true, indexed: true}
	out.Profile = desired.Profile{Name: found.Profile, Source: found.ProfileSource}
	out.Plan.InSync = found.InSync
	for _, c := range found.Conflicts {
		out.Plan.Changes = append(out.Plan.Changes, Change{Path: c.Path, Action: Conflict, Owner: c.Owner, Reason: c.Reason,
			Obstruction: c.Obstruction, Override: c.Override, OldSum: c.OldSum})
	}
	return out, true
}

// writeIndex records out, a pass that found nothing to do but keep conflicts,
// with the stamps of
// what it read, when every stamp is older than began by racyMargin and the
// inputs are plain files; else it removes any index, which no longer holds.
func writeIndex(req Request, out Outcome, seen *seenTargets, began time.Time) {
	in := out.Inputs
	if !out.Planned || len(out.Problems) > 0 || out.Err != nil || out.Plan.Refused != "" || out.Plan.Pending() > 0 ||
		len(out.Deferred) > 0 || len(in.cutOffs) > 0 || in.recordStale() {
		return
	}
	var conflicts []indexedConflict
	for _, c := range out.Plan.Changes {
		if c.Action != Conflict {
			return
		}
		conflicts = append(conflicts, indexedConflict{Path: c.Path, Owner: c.Owner, Reason: c.Reason, Obstruction: c.Obstruction, Override: c.Override, OldSum: c.OldSum})
	}
	r, err := req.system().Open(in.Registry.Root)
	if err != nil {
		return
	}
	defer r.Close()
	paths, ok := indexedPaths(r, in.Registry, seen)
	key, keyed := indexKey(req)
	if !ok || !keyed {
		statedir.RemoveIndex(r)
		return
	}
	stamps := make([]stamped, len(paths))
	stampAll(r, paths, func(i int, s stamped) bool {
		stamps[i] = s
		return true
	})
	trusted := began.Add(-racyMargin(stamps)).UnixNano()
	for _, s := range stamps {
		if !s.absent && (!s.stamp.Valid || s.stamp.Mtime >= trusted || s.stamp.Ctime >= trusted) {
			statedir.RemoveIndex(r) // racily clean, or no stamp to trust
			return
		}
	}
	found := indexedOutcome{Profile: in.Profile.Name, ProfileSource: in.Profile.Source, Withheld: out.Withheld,
		HandWritten: out.HandWritten, InSync: out.Plan.InSync, Conflicts: conflicts, InGit: gitfiles.InWorkTree(req.system(), in.Registry.Root)}
	data, err := encodeIndex(key, found, stamps)
	if err != nil {
		return
	}
	statedir.WriteIndex(r, data) // a cache: a read-only workspace just has none
}

// indexedPaths are the paths a pass that planned reg, and whose scan found seen,
// read or listed; false when an input is reached through a symlink, whose target
// a stamp of the link does not follow.
func indexedPaths(r workspacefs.FS, reg *registry.Registry, seen *seenTargets) ([]string, bool) {
	inputs := append([]string{registry.ConfigName, desired.ProfileFile, statedir.AppliedFile}, reg.Files...)
	inputs = append(inputs, reg.BodyFiles()...)
	for _, f := range inputs {
		if links, _ := walkLinks(r, f); len(links) > 0 {
			return nil, false
		}
	}
	paths := inputs
	for _, d := range inputDirs(r, reg) {
		// .skillsync/ changes when the index is written: its files are stamped
		// instead.
		if d != statedir.Dir {
			paths = append(paths, d)
		}
	}
	for _, t := range clients.Targets {
		if d, ok := nearestDir(r, t.Dir, false); ok {
			paths = append(paths, d)
		}
	}
	paths = append(paths, seen.entries...)
	for _, f := range seen.files {
		paths = append(paths, f)
		// A side file's directory in the skill directory was listed too.
		if dir := path.Dir(f); dir != clients.SkillDirOf(f) && clients.SkillDirOf(f) != "" {
			paths = append(paths, dir)
		}
	}
	slices.Sort(paths)
	return slices.Compact(paths), true
}

// indexKey digests what a pass's outcome depends on beside the files: the binary
// that made it and the request.
func indexKey(req Request) (string, bool) {
	exe, err := os.Executable()
	if err != nil {
		return "", false
	}
	dir, err := req.system().Open(filepath.Dir(exe))
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
	fmt.Fprintf(h, "%s\x00%+v\x00%q\x00%q\x00%v\x00%v", indexVersion, stamp, req.ProfileFlag, req.ProfileEnv, req.Force, req.AllowEmpty)
	return hex.EncodeToString(h.Sum(nil)), true
}

// stampAll hands each of paths to found with what is there now, never following
// a symlink in its last element, until found returns false. Each directory is
// opened once, from the directory above it when that is open: a workspace of
// thousands of skill directories is stamped with a system call or two for each.
func stampAll(r workspacefs.FS, paths []string, found func(i int, s stamped) bool) {
	byParent := map[string][]int{}
	for i, p := range paths {
		byParent[path.Dir(p)] = append(byParent[path.Dir(p)], i)
	}
	parents := slices.Sorted(maps.Keys(byParent))
	above := map[string]bool{} // the parents that hold other parents
	for _, p := range parents {
		above[path.Dir(p)] = true
	}
	open := map[string]workspacefs.Dir{}
	defer func() {
		for _, d := range open {
			d.Close()
		}
	}()
	for _, parent := range parents {
		var d workspacefs.Dir
		var err error
		if up, ok := open[path.Dir(parent)]; ok && parent != "." {
			d, err = up.Sub(path.Base(parent))
		} else {
			d, err = r.OpenDir(parent)
		}
		for _, i := range byParent[parent] {
			if !found(i, stampIn(r, d, err, paths[i])) {
				return
			}
		}
		switch {
		case err != nil:
		case above[parent]:
			open[parent] = d
		default:
			d.Close()
		}
	}
}

// stampIn is what is at p, in the directory d opened with err.
func stampIn(r workspacefs.FS, d workspacefs.Dir, err error, p string) stamped {
	s := stamped{path: p}
	if p == "." {
		var info fs.FileInfo
		if info, err = r.Lstat("."); err == nil {
			s.stamp = workspacefs.StampOf(info)
		}
	} else if err == nil {
		s.stamp, err = d.Stamp(path.Base(p))
	}
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, workspacefs.ErrNotOneElement):
		s.absent = true
	case err != nil:
		s.stamp = workspacefs.Stamp{} // no stamp: matches none
	}
	return s
}

// racyMargin is how much older than the pass a stamp must be to be trusted: more
// than a tick of the clock that stamps files. A filesystem that keeps whole
// seconds only (FAT keeps two) gives every time in whole seconds; any other, times
// to the nanosecond, stamped from a clock that ticks every few milliseconds.
func racyMargin(stamps []stamped) time.Duration {
	for _, s := range stamps {
		if s.stamp.Valid && (s.stamp.Mtime%int64(time.Second) != 0 || s.stamp.Ctime%int64(time.Second) != 0) {
			return 100 * time.Millisecond
		}
	}
	return 2 * time.Second
}

// encodeIndex writes the index: its version, key and outcome, then a line per
// stamp.
func encodeIndex(key string, found indexedOutcome, stamps []stamped) ([]byte, error) {
	outcome, err := json.Marshal(found)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\nkey %s\noutcome %s\n", indexVersion, key, outcome)
	for _, s := range stamps {
		if s.absent {
			fmt.Fprintf(&b, "- %s\n", strconv.Quote(s.path))
			continue
		}
		st := s.stamp
		fmt.Fprintf(&b, "s %d %d %d %d %d %s\n", st.Size, st.Mtime, st.Ctime, st.Ino, st.Dev, strconv.Quote(s.path))
	}
	return b.Bytes(), nil
}

// parseIndex reads an index written for key; false for any other, or anything
// it cannot read.
func parseIndex(data []byte, key string) (indexedOutcome, []stamped, bool) {
	var found indexedOutcome
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) < 3 || lines[0] != indexVersion || lines[1] != "key "+key {
		return found, nil, false
	}
	outcome, ok := strings.CutPrefix(lines[2], "outcome ")
	if !ok || json.Unmarshal([]byte(outcome), &found) != nil {
		return found, nil, false
	}
	stamps := make([]stamped, 0, len(lines)-3)
	for _, line := range lines[3:] {
		s, ok := parseStamp(line)
		if !ok {
			return found, nil, false
		}
		stamps = append(stamps, s)
	}
	return found, stamps, true
}

func parseStamp(line string) (stamped, bool) {
	kind, rest, _ := strings.Cut(line, " ")
	if kind == "-" {
		p, err := strconv.Unquote(rest)
		return stamped{path: p, absent: true}, err == nil
	}
	fields := strings.SplitN(rest, " ", 6)
	if kind != "s" || len(fields) != 6 {
		return stamped{}, false
	}
	var n [3]int64
	var id [2]uint64
	var err error
	for i := range n {
		if n[i], err = strconv.ParseInt(fields[i], 10, 64); err != nil {
			return stamped{}, false
		}
	}
	for i := range id {
		if id[i], err = strconv.ParseUint(fields[3+i], 10, 64); err != nil {
			return stamped{}, false
		}
	}
	p, err := strconv.Unquote(fields[5])
	if err != nil {
		return stamped{}, false
	}
	return stamped{path: p, stamp: workspacefs.Stamp{Size: n[0], Mtime: n[1], Ctime: n[2], Ino: id[0], Dev: id[1], Valid: true}}, true
}
