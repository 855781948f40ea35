package controller

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/controller/state"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/gitfiles"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
)

// A one-shot pass that finds nothing to do leaves, in state.IndexFile, what it
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
// stamp is older, by more than a tick of the clock that made it (racyMargin),
// than the moment the pass began to read: a file changed while or after it was
// read then has a stamp of that moment or later, unlike the one recorded. And
// only when every stamp is on a filesystem whose change time is known to move
// (workspacefs.StampsHold): on FAT a rewrite keeps it.

// indexVersion is the version of the index format, and indexEnd begins its last
// line, which counts its stamps.
const (
	indexVersion = "skillsync-index 2"
	indexEnd     = "end "
)

// indexedOutcome is what a pass that found nothing to do found, for the index.
type indexedOutcome struct {
	Profile       string             `json:"profile"`
	ProfileSource string             `json:"profileSource"`
	Withheld      []desired.Withheld `json:"withheld"`
	HandWritten   []string           `json:"handWritten"`
	Conflicts     []indexedConflict  `json:"conflicts"`
	InGit         bool               `json:"inGit"`
}

// indexedConflict is a file the pass kept as it was, and why.
type indexedConflict struct {
	Path        string        `json:"path"`
	Owner       string        `json:"owner"`
	Reason      string        `json:"reason"`
	Obstruction bool          `json:"obstruction"`
	Override    plan.Override `json:"override"`
	OldSum      [32]byte      `json:"oldSum"`
}

// stamped is a path the pass read and what was there: a stamp, or nothing.
type stamped struct {
	path   string
	absent bool
	stamp  workspacefs.Stamp
	inSync bool // a generated file the pass found as desired
}

// seenTargets are the entries and files a pass's scan found in each target, and
// the symlinks it met there.
type seenTargets struct {
	entries, files, links []string
}

func (s *seenTargets) keep(p targetPart) {
	s.entries = append(s.entries, p.have.Entries...)
	s.links = append(s.links, p.have.Links()...)
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
	found, lines, ok := indexOutcome(data, key)
	if !ok || found.InGit != gitfiles.InWorkTree(req.System, real) {
		return Outcome{}, false
	}
	// The stamps are in the order of their paths: each directory is opened once,
	// and the files in sync come out in the order a plan lists them.
	w := newStamper(r)
	defer w.close()
	var inSync []string
	var prev stamped
	// The last line counts the stamps: an index that lost whole lines at its end
	// would check less than its pass read.
	last := bytes.LastIndexByte(bytes.TrimSuffix(lines, []byte("\n")), '\n') + 1
	lines, count := lines[:last], lines[last:]
	if string(count) != fmt.Sprintf("%s%d\n", indexEnd, bytes.Count(lines, []byte("\n"))) {
		return Outcome{}, false
	}
	for len(lines) > 0 {
		var line []byte
		line, lines, _ = bytes.Cut(lines, []byte("\n"))
		recorded, ok := parseStamp(line, prev)
		if !ok || w.stamp(recorded.path) != recorded.withoutFlags() {
			return Outcome{}, false
		}
		if recorded.inSync {
			inSync = append(inSync, recorded.path)
		}
		prev = recorded
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
	var conflicts []indexedConflict
	for _, c := range out.Plan.Changes {
		if c.Action != plan.Conflict {
			return
		}
		conflicts = append(conflicts, indexedConflict{Path: c.Path, Owner: c.Owner, Reason: c.Reason, Obstruction: c.Obstruction, Override: c.Override, OldSum: c.OldSum})
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
	w := newStamper(r)
	stamps := make([]stamped, len(paths))
	held := true
	for i, p := range paths {
		stamps[i] = w.stamp(p)
		held = held && w.holds(stamps[i])
	}
	w.close()
	if !held {
		state.RemoveIndex(r) // a stamp there may stay as it is through a change
		return
	}
	inSync := make(map[string]bool, len(out.Plan.InSync))
	for _, p := range out.Plan.InSync {
		inSync[p] = true
	}
	for i := range stamps {
		stamps[i].inSync = inSync[stamps[i].path]
	}
	for _, s := range stamps {
		if !s.absent && (!s.stamp.Valid || racilyClean(s.stamp, began)) {
			state.RemoveIndex(r) // racily clean, or no stamp to trust
			return
		}
	}
	found := indexedOutcome{Profile: in.Profile.Name, ProfileSource: in.Profile.Source, Withheld: out.Withheld,
		HandWritten: out.HandWritten, Conflicts: conflicts, InGit: gitfiles.InWorkTree(req.System, in.Registry.Root)}
	data, err := encodeIndex(key, found, stamps)
	if err != nil {
		return
	}
	state.WriteIndex(r, data) // a cache: a read-only workspace just has none
}

// indexedPaths are the paths a pass that planned reg, and whose scan found seen,
// read or listed, and every path on the way of each symlink the scan met (see
// linkWay); false when an input is reached through a symlink, whose target a
// stamp of the link does not follow, or when the way of a link the scan met
// leaves the workspace.
func indexedPaths(r workspacefs.FS, reg *registry.Registry, seen *seenTargets) ([]string, bool) {
	inputs := append([]string{registry.ConfigName, desired.ProfileFile, state.AppliedFile}, reg.Files...)
	inputs = append(inputs, reg.BodyFiles()...)
	for _, f := range inputs {
		if links, _, _ := registry.WalkLinks(r, f); len(links) > 0 {
			return nil, false
		}
	}
	paths := inputs
	for _, d := range desired.InputDirs(r, reg) {
		// .skillsync/ changes when the index is written: its files are stamped
		// instead.
		if d != state.Dir {
			paths = append(paths, d)
		}
	}
	// Each target directory, what is above it (it may be a symlink, or missing),
	// every entry the scan found in it, the side-file directories it listed in
	// each, and every file it read.
	for _, t := range clients.Targets {
		paths = append(paths, t.Dir, path.Dir(t.Dir))
		if d, ok := registry.NearestDir(r, t.Dir, false); ok {
			paths = append(paths, d)
		}
	}
	for _, e := range seen.entries {
		paths = append(paths, e)
		for _, sub := range observed.SideDirs() {
			paths = append(paths, e+"/"+sub)
		}
	}
	paths = append(paths, seen.files...)
	realRoot, err := r.EvalSymlinks(".")
	if err != nil {
		return nil, false
	}
	for _, l := range seen.links {
		way, ok := linkWay(r, realRoot, l)
		if !ok {
			return nil, false
		}
		paths = append(paths, way...)
	}
	slices.Sort(paths)
	return slices.Compact(paths), true
}

// indexKey digests what a pass's outcome depends on beside the files: the binary
// that made it, the request, and where the workspace really is (realRoot), which
// decides where an absolute symlink in it leads.
func indexKey(req Request, realRoot string) (string, bool) {
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
	fmt.Fprintf(h, "%s\x00%+v\x00%q\x00%q\x00%v\x00%v\x00%q", indexVersion, stamp, req.ProfileFlag, req.ProfileEnv, req.Force, req.AllowEmpty, realRoot)
	return hex.EncodeToString(h.Sum(nil)), true
}

// stamper stamps paths given in the order of their paths, never following a
// symlink in the last element: the directories from the root to the one it is
// in are kept open, so that each directory is opened once, in one system call
// from the nearest one open above it.
type stamper struct {
	r    workspacefs.FS
	open []openDir // from the root down
	// held says, by device, whether stamps hold on its filesystem.
	held map[uint64]bool
}

type openDir struct {
	path string
	d    workspacefs.Dir
	err  error
}

func newStamper(r workspacefs.FS) *stamper { return &stamper{r: r, held: map[uint64]bool{}} }

func (w *stamper) close() {
	for _, o := range w.open {
		if o.err == nil {
			o.d.Close()
		}
	}
	w.open = nil
}

// dir is the directory p, opened.
func (w *stamper) dir(p string) (workspacefs.Dir, error) {
	for n := len(w.open); n > 0; n = len(w.open) {
		top := w.open[n-1]
		if top.path == p {
			return top.d, top.err
		}
		if top.err == nil && (top.path == "." || strings.HasPrefix(p, top.path+"/")) {
			rel := strings.TrimPrefix(p, top.path+"/")
			if top.path == "." {
				rel = p
			}
			d, err := top.d.Beneath(rel)
			w.open = append(w.open, openDir{path: p, d: d, err: err})
			return d, err
		}
		if top.err == nil {
			top.d.Close()
		}
		w.open = w.open[:n-1]
	}
	d, err := w.r.OpenDir(".")
	w.open = append(w.open, openDir{path: ".", d: d, err: err})
	if p == "." {
		return d, err
	}
	return w.dir(p)
}

// stamp is what is at p now.
func (w *stamper) stamp(p string) stamped {
	s := stamped{path: p}
	var err error
	if p == "." {
		var info fs.FileInfo
		if info, err = w.r.Lstat("."); err == nil {
			s.stamp = workspacefs.StampOf(info)
		}
	} else {
		d, dirErr := w.dir(path.Dir(p))
		if dirErr != nil {
			// Nothing is under what is no directory, or a symlink the scan does not
			// follow either; that entry's own stamp says when it changes.
			s.absent = true
			return s
		}
		s.stamp, err = d.Stamp(path.Base(p))
	}
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, workspacefs.ErrNotOneElement) || errors.Is(err, syscall.ENOTDIR):
		s.absent = true
	case err != nil:
		s.stamp = workspacefs.Stamp{} // no stamp: matches none
	}
	return s
}

// holds tells whether s was taken on a filesystem whose stamps hold
// (workspacefs.StampsHold), asking once for each device; what is absent has no
// filesystem, and a stamp that is no stamp is refused as such.
func (w *stamper) holds(s stamped) bool {
	if s.absent || !s.stamp.Valid {
		return true
	}
	held, asked := w.held[s.stamp.Dev]
	if !asked {
		if d, err := w.dir(path.Dir(s.path)); err == nil {
			kind, err := d.Filesystem(path.Base(s.path))
			held = err == nil && workspacefs.StampsHold(kind)
		}
		w.held[s.stamp.Dev] = held
	}
	return held
}

// racilyClean tells whether s is too new to stand for what the pass that began
// at began read: an edit within a tick of the clock that made it could leave it
// as it is.
func racilyClean(s workspacefs.Stamp, began time.Time) bool {
	trusted := began.Add(-racyMargin(s)).UnixNano()
	return s.Mtime >= trusted || s.Ctime >= trusted
}

// racyMargin is how much older than the pass s must be to be trusted: more than
// a tick of the clock that made it. A filesystem that keeps whole seconds only
// (ext4 with small inodes, HFS+; FAT keeps two) gives both times in whole
// seconds; any other, times to the nanosecond (or 100 ns), from a clock that
// ticks every few milliseconds. Each stamp has its own: a target directory may be
// a mount of another filesystem than the workspace's.
func racyMargin(s workspacefs.Stamp) time.Duration {
	if s.Mtime%int64(time.Second) == 0 && s.Ctime%int64(time.Second) == 0 {
		return 2 * time.Second
	}
	return 100 * time.Millisecond
}

// encodeIndex writes the index: its version, key and outcome, then a line per
// stamp in the order of their paths, each path written as how much of the one
// before it it shares and the rest, a change time equal to the modification time
// and a device equal to the line before's as "=".
func encodeIndex(key string, found indexedOutcome, stamps []stamped) ([]byte, error) {
	outcome, err := json.Marshal(found)
	if err != nil {
		return nil, err
	}
	b := fmt.Appendf(nil, "%s\nkey %s\noutcome %s\n", indexVersion, key, outcome)
	var prev stamped
	for _, s := range stamps {
		shared := 0
		for shared < len(s.path) && shared < len(prev.path) && s.path[shared] == prev.path[shared] {
			shared++
		}
		b = strconv.AppendInt(b, int64(shared), 10)
		switch {
		case s.absent:
			b = append(b, " -"...)
		case s.inSync:
			b = append(b, " i"...)
		default:
			b = append(b, " s"...)
		}
		if !s.absent {
			st := s.stamp
			b = strconv.AppendInt(append(b, ' '), st.Size, 10)
			b = strconv.AppendInt(append(b, ' '), st.Mtime, 10)
			b = appendOrSame(b, st.Ctime == st.Mtime, func(b []byte) []byte { return strconv.AppendInt(b, st.Ctime, 10) })
			b = strconv.AppendUint(append(b, ' '), st.Ino, 10)
			b = appendOrSame(b, prev.path != "" && !prev.absent && st.Dev == prev.stamp.Dev, func(b []byte) []byte { return strconv.AppendUint(b, st.Dev, 10) })
		}
		b = strconv.AppendQuote(append(b, ' '), s.path[shared:])
		b = append(b, '\n')
		prev = s
	}
	return fmt.Appendf(b, "%s%d\n", indexEnd, len(stamps)), nil
}

func appendOrSame(b []byte, same bool, value func([]byte) []byte) []byte {
	if same {
		return append(b, " ="...)
	}
	return value(append(b, ' '))
}

// indexOutcome reads the head of an index written for key: the outcome, and the
// lines of stamps after it; false for any other key, or what it cannot read.
func indexOutcome(data []byte, key string) (indexedOutcome, []byte, bool) {
	var found indexedOutcome
	version, rest, _ := bytes.Cut(data, []byte("\n"))
	keyLine, rest, _ := bytes.Cut(rest, []byte("\n"))
	outcome, rest, _ := bytes.Cut(rest, []byte("\n"))
	if string(version) != indexVersion || string(keyLine) != "key "+key {
		return found, nil, false
	}
	outcome, ok := bytes.CutPrefix(outcome, []byte("outcome "))
	if !ok || json.Unmarshal(outcome, &found) != nil {
		return found, nil, false
	}
	return found, rest, true
}

// parseStamp reads one line of stamps, after the line that gave prev.
func parseStamp(line []byte, prev stamped) (stamped, bool) {
	head := strings.SplitN(string(line), " ", 3)
	if len(head) != 3 {
		return stamped{}, false
	}
	shared, err := strconv.Atoi(head[0])
	if err != nil || shared < 0 || shared > len(prev.path) {
		return stamped{}, false
	}
	var s stamped
	quoted := head[2]
	switch head[1] {
	case "-":
		s.absent = true
	case "i", "s":
		fields := strings.SplitN(head[2], " ", 6)
		if len(fields) != 6 {
			return stamped{}, false
		}
		s.inSync, quoted = head[1] == "i", fields[5]
		st := &s.stamp
		st.Valid = true
		var errs [5]error
		st.Size, errs[0] = strconv.ParseInt(fields[0], 10, 64)
		st.Mtime, errs[1] = strconv.ParseInt(fields[1], 10, 64)
		st.Ctime = st.Mtime
		if fields[2] != "=" {
			st.Ctime, errs[2] = strconv.ParseInt(fields[2], 10, 64)
		}
		st.Ino, errs[3] = strconv.ParseUint(fields[3], 10, 64)
		st.Dev = prev.stamp.Dev
		if fields[4] != "=" {
			st.Dev, errs[4] = strconv.ParseUint(fields[4], 10, 64)
		} else if prev.absent || prev.path == "" {
			return stamped{}, false
		}
		if errors.Join(errs[:]...) != nil {
			return stamped{}, false
		}
	default:
		return stamped{}, false
	}
	suffix, err := strconv.Unquote(quoted)
	if err != nil {
		return stamped{}, false
	}
	s.path = prev.path[:shared] + suffix
	return s, true
}

// withoutFlags is s as a stamp taken now compares with it.
func (s stamped) withoutFlags() stamped {
	s.inSync = false
	return s
}
