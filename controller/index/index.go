package index

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/internal/parallel"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// A one-shot pass that finds nothing to do leaves, in the index file, what it
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

// Version is the version of the index format, and indexEnd begins its last
// line, which counts its stamps.
const (
	Version  = "skillsync-index 2"
	indexEnd = "end "
)

// Found is what a pass that found nothing to do found, as the index keeps it.
type Found struct {
	Profile       string             `json:"profile"`
	ProfileSource string             `json:"profileSource"`
	Withheld      []desired.Withheld `json:"withheld"`
	HandWritten   []string           `json:"handWritten"`
	Conflicts     []Conflict         `json:"conflicts"`
	InGit         bool               `json:"inGit"`
}

// Conflict is a file the pass kept as it was, and why.
type Conflict struct {
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

// Check reads data, an index, for a pass keyed key and checks every stamp in it
// against what is in r now: it returns what the pass that wrote it found, and
// the generated files it found in sync, in the order of their paths; false
// when the key differs, the index cannot be read whole, or any stamp changed.
func Check(r workspacefs.FS, data []byte, key string) (Found, []string, bool) {
	found, lines, ok := indexOutcome(data, key)
	if !ok {
		return Found{}, nil, false
	}
	// The last line counts the stamps: an index that lost whole lines at its end
	// would check less than its pass read.
	last := bytes.LastIndexByte(bytes.TrimSuffix(lines, []byte("\n")), '\n') + 1
	lines, count := lines[:last], lines[last:]
	n := bytes.Count(lines, []byte("\n"))
	if string(count) != fmt.Sprintf("%s%d\n", indexEnd, n) {
		return Found{}, nil, false
	}
	recorded := make([]stamped, 0, n)
	var prev stamped
	for len(lines) > 0 {
		var line []byte
		line, lines, _ = bytes.Cut(lines, []byte("\n"))
		s, ok := parseStamp(line, prev)
		if !ok {
			return Found{}, nil, false
		}
		recorded = append(recorded, s)
		prev = s
	}
	same := stampRuns(r, len(recorded), func(w *stamper, i int) bool {
		return w.stamp(recorded[i].path) == recorded[i].withoutFlags()
	})
	if !same {
		return Found{}, nil, false
	}
	// The stamps are in the order of their paths, so the files in sync come out
	// in the order a plan lists them.
	var inSync []string
	for _, s := range recorded {
		if s.inSync {
			inSync = append(inSync, s.path)
		}
	}
	return found, inSync, true
}

// Make stamps paths in r, in the order of their paths, but for those known
// already (what the pass stamped as it read them), and returns the index of
// found for key with those stamps, inSync flagged as generated files found as
// desired; false when a stamp cannot stand for what a pass that began at began
// read: one on a filesystem where stamps do not hold, one racily clean (younger
// than began by less than its racyMargin), or none at all.
func Make(r workspacefs.FS, key string, found Found, paths []string, known map[string]workspacefs.Stamp, inSync []string, began time.Time) ([]byte, bool) {
	stamps := make([]stamped, len(paths))
	held := stampRuns(r, len(paths), func(w *stamper, i int) bool {
		if st, ok := known[paths[i]]; ok {
			stamps[i] = stamped{path: paths[i], stamp: st}
		} else {
			stamps[i] = w.stamp(paths[i])
		}
		return w.holds(stamps[i])
	})
	if !held {
		return nil, false // a stamp there may stay as it is through a change
	}
	synced := make(map[string]bool, len(inSync))
	for _, p := range inSync {
		synced[p] = true
	}
	for i := range stamps {
		stamps[i].inSync = synced[stamps[i].path]
	}
	for _, s := range stamps {
		if !s.absent && (!s.stamp.Valid || racilyClean(s.stamp, began)) {
			return nil, false // racily clean, or no stamp to trust
		}
	}
	data, err := encodeIndex(key, found, stamps)
	return data, err == nil
}

// runLength is the fewest paths a stamper of stampRuns takes: a stamper opens the
// directories above its first path, so a shorter run costs more than it saves.
const runLength = 256

// stampRuns calls each for the index of every one of n paths, given in the order
// of their paths, until one call returns false, and tells whether none did. The
// paths are split into a few runs of consecutive ones, stamped at once, each with
// a stamper of its own: a stamp is a system call or two that waits on the
// filesystem, and a first no-op stamps thousands.
func stampRuns(r workspacefs.FS, n int, each func(w *stamper, i int) bool) bool {
	runs := max(1, min(2*runtime.GOMAXPROCS(0), n/runLength))
	var failed atomic.Bool
	parallel.Each(runs, func(k int) error {
		w := newStamper(r)
		defer w.close()
		for i := k * n / runs; i < (k+1)*n/runs && !failed.Load(); i++ {
			if !each(w, i) {
				failed.Store(true)
			}
		}
		return nil
	})
	return !failed.Load()
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
func encodeIndex(key string, found Found, stamps []stamped) ([]byte, error) {
	outcome, err := json.Marshal(found)
	if err != nil {
		return nil, err
	}
	// A stamp's line takes about 60 bytes: sized once, the index of a
	// first no-op at N = 1 000 (7 000 lines) is not copied as it grows.
	b := fmt.Appendf(make([]byte, 0, len(Version)+len(key)+len(outcome)+64*(len(stamps)+1)), "%s\nkey %s\noutcome %s\n", Version, key, outcome)
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
func indexOutcome(data []byte, key string) (Found, []byte, bool) {
	var found Found
	version, rest, _ := bytes.Cut(data, []byte("\n"))
	keyLine, rest, _ := bytes.Cut(rest, []byte("\n"))
	outcome, rest, _ := bytes.Cut(rest, []byte("\n"))
	if string(version) != Version || string(keyLine) != "key "+key {
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
