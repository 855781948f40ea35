package plan

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/parallel"
	"github.com/skillsync/skillsync/observed"
)

// Action is what a plan does with one path.
type Action string

// The actions of the plan table in docs/ownership.md, plus the removal of an
// interrupted write's temp file.
const (
	None     Action = "none"
	Create   Action = "create"
	Update   Action = "update"
	Delete   Action = "delete"
	Conflict Action = "conflict"
	Cleanup  Action = "cleanup"
)

// Change is the plan for one path.
type Change struct {
	Path   string
	Action Action
	Owner  string
	Reason string
	// OldSum is the SHA-256 of what the plan expects on disk, re-checked before any
	// write or delete; Old is those bytes when the scan kept them.
	OldSum [32]byte
	Old    []byte
	// New is what it writes, when already rendered; Content renders it otherwise.
	New  []byte
	want *desired.File // set for creates and updates
	// Override says what Options.Force would do, or did, with a generated file a
	// person edited, for the caller to say how to ask for it.
	Override Override
	// Obstruction marks a conflict with something that is no file at all (a
	// directory named SKILL.md): a failure to report, not a person's file to keep.
	Obstruction bool
	// Supporting marks a file of a skill directory beside its SKILL.md, which
	// that SKILL.md's manifest names; Executable says it is written executable.
	Supporting, Executable bool
}

// Content is what the change writes.
func (c Change) Content() ([]byte, error) {
	if c.New != nil {
		return c.New, nil
	}
	if c.want == nil {
		return nil, fmt.Errorf("%s: nothing to write", c.Path)
	}
	return c.want.Content()
}

// ContentSum is the SHA-256 of data, the change's content: the digest the
// desired file already carries when it has one, so a skill's supporting files
// are not hashed again for every target.
func (c Change) ContentSum(data []byte) [32]byte {
	if c.New == nil && c.want != nil {
		if sum, ok := c.want.KnownSum(); ok {
			return sum
		}
	}
	return sha256.Sum256(data)
}

// Override is what Options.Force makes of a generated file a person edited.
type Override uint8

const (
	NotOverridden Override = iota // not a file a person edited
	ForceRestores                 // kept; Force restores it
	ForceDeletes                  // kept, though no longer declared; Force deletes it
	ForceRestored                 // restored, as Force asked
)

// Options change what the plan may do.
type Options struct {
	// Force lets a file modified by hand be updated or deleted. It never touches an
	// unowned file.
	Force bool
	// AllowEmpty lets a plan delete every generated file when nothing is desired.
	AllowEmpty bool
}

// Plan is the full set of changes, sorted by path.
type Plan struct {
	// Changes holds every path with something to do or to report; a file already
	// as desired is only listed in InSync, so a large workspace in sync costs a
	// path per file, not a change.
	Changes []Change
	InSync  []string
	// Refused, when set, says why the plan must not be applied at all.
	Refused string
	// Emptying says it was refused because it would delete every generated file
	// while nothing is desired, which Options.AllowEmpty allows.
	Emptying bool
}

// Make decides one action per path, following the plan table in docs/ownership.md.
func Make(want desired.State, have observed.State, opts Options) Plan {
	return Files(want, have, opts).Judged(len(want.Files), have.Escapes, opts)
}

// Files decides the action of every path of want and have. Any part of a
// workspace (one target directory) can be planned on its own; judged then looks at
// the whole.
func Files(want desired.State, have observed.State, opts Options) Plan {
	var plan Plan
	paths := unionPaths(want.Files, have.Files)
	if len(have.Files) == 0 && len(paths) > 0 {
		// Every path is a change, as in a cold run: growing the slice as it fills
		// would copy every change several times over.
		plan.Changes = make([]Change, 0, len(paths))
	}
	sums := wantedSums(paths, want.Files, have.Files)
	for i, p := range paths {
		w, wanted := want.Files[p]
		h, present := have.Files[p]
		if dir, reason := blockedBy(have.Blocked, p); reason != "" && wanted {
			plan.Changes = append(plan.Changes, Change{Path: p, Action: Conflict, Owner: w.Owner, Reason: reason, Obstruction: have.Obstructed[dir]})
			continue
		}
		var sum wantSum
		if sums != nil {
			sum = sums[i]
		}
		c, ok := decide(w, wanted, h, present, sum, opts)
		switch {
		case ok && c.Action == None:
			plan.InSync = append(plan.InSync, c.Path)
		case ok:
			plan.Changes = append(plan.Changes, c)
		}
	}
	for _, t := range have.TempFiles {
		plan.Changes = append(plan.Changes, Change{Path: t, Action: Cleanup, Reason: "left by an interrupted run"})
	}
	for _, f := range have.CutShort {
		if cutShort(f, want.Files) {
			// Proved by its bytes, which the cleanup checks again.
			reason := "left by an interrupted run, cut short"
			switch {
			case f.Supporting:
				reason = "left by an interrupted run: the file of the skill an update replaced"
			case observed.InStagedFolder(f.Path):
				reason = "left by an interrupted run in a folder it had not put in place yet"
			}
			plan.Changes = append(plan.Changes, Change{Path: f.Path, Action: Cleanup, OldSum: f.Digest, Supporting: true, Reason: reason})
		}
	}
	for _, d := range have.EmptyDirs {
		if !wantsUnder(want.Files, d) {
			plan.Changes = append(plan.Changes, Change{Path: d, Action: Cleanup, Reason: "empty skill directory"})
		}
	}
	keepCaseTwins(&plan, want.Files, have)
	holdSkillDirs(plan.Changes, have)
	sort.SliceStable(plan.Changes, func(i, j int) bool { return plan.Changes[i].Path < plan.Changes[j].Path })
	return plan
}

// keepCaseTwins turns the create or update of a file whose skill directory has
// a case twin (see caseTwins), the file in sync there, or one edited by hand,
// into a conflict, unless the plan removes the twin: every file skillsync saw
// in it is a delete or a cleanup, or it is an empty directory the plan cleans
// up. A generated skill directory that was there before the twin is no
// exception: the workspace holds two directories a Mac or Windows checkout
// cannot, so nothing is written there until one is renamed.
func keepCaseTwins(plan *Plan, files map[string]desired.File, have observed.State) {
	changes := plan.Changes
	twins := caseTwins(files, have.Entries)
	if len(twins) == 0 {
		return
	}
	removed := map[string]bool{}
	for _, c := range changes {
		if c.Action == Delete || c.Action == Cleanup {
			removed[c.Path] = true
		}
	}
	stays := map[string]bool{}
	for p := range have.Files {
		stays[skillDirOf(p)] = stays[skillDirOf(p)] || !removed[p]
	}
	for _, t := range have.TempFiles {
		stays[skillDirOf(t)] = stays[skillDirOf(t)] || !removed[t]
	}
	kept := func(p string) (reason string, ok bool) {
		twin := twins[skillDirOf(p)]
		if twin == "" || removed[twin] {
			return "", false
		}
		if _, seen := stays[twin]; seen && !stays[twin] {
			return "", false // every file in it goes
		}
		return twin + " differs from " + path.Base(skillDirOf(p)) + " only in case, the same directory on macOS and Windows; kept (rename or remove it)", true
	}
	for i := range changes {
		c := &changes[i]
		// A file edited by hand there is no longer one --force restores or
		// deletes while the twin stands.
		if c.Action != Create && c.Action != Update && (c.Action != Conflict || c.Override == NotOverridden) {
			continue
		}
		if reason, ok := kept(c.Path); ok {
			c.Action, c.want, c.New, c.Reason, c.Override = Conflict, nil, nil, reason, NotOverridden
		}
	}
	inSync := plan.InSync[:0]
	for _, p := range plan.InSync {
		if reason, ok := kept(p); ok {
			plan.Changes = append(plan.Changes, Change{Path: p, Action: Conflict, Owner: files[p].Owner, Reason: reason})
			continue
		}
		inSync = append(inSync, p)
	}
	plan.InSync = inSync
}

// judged refuses the plan of a whole workspace where it must not be applied: the
// workspace links out of itself, or the plan deletes every generated file while
// nothing (wanted is the number of files desired) is desired.
func (plan Plan) Judged(wanted int, escapes []string, opts Options) Plan {
	if len(escapes) > 0 {
		// A workspace that links out of itself may be hostile: fail closed, whatever
		// the flags say.
		plan.Refused = fmt.Sprintf("symlinks lead outside the workspace (%s); remove them or replace them with directories, nothing was written",
			strings.Join(escapes, ", "))
		return plan
	}
	if deletes := plan.Count(Delete); wanted == 0 && deletes > 0 && !opts.AllowEmpty {
		plan.Refused = fmt.Sprintf("nothing is desired, so the plan would delete all %d generated files", deletes)
		plan.Emptying = true
	}
	return plan
}

// add appends the plan of another part of the workspace, whose paths all sort
// after this one's.
func (plan *Plan) Add(part Plan) {
	plan.Changes = append(plan.Changes, part.Changes...)
	plan.InSync = append(plan.InSync, part.InSync...)
}

// wantSum is the digest of a desired file's content when wantedSums computed it.
type wantSum struct {
	sum   [32]byte
	known bool
}

func (s wantSum) of(w desired.File) [32]byte {
	if s.known {
		return s.sum
	}
	return w.Sum()
}

// wantedSums renders and hashes, on every core, the content wanted at each of
// paths where a file skillsync wrote is on disk, which decide compares with it:
// most of the CPU that planning a workspace in sync takes. decide computes any
// other it needs itself.
func wantedSums(paths []string, want map[string]desired.File, have map[string]observed.File) []wantSum {
	if len(have) == 0 {
		return nil
	}
	sums := make([]wantSum, len(paths))
	parallel.Each(len(paths), func(i int) error {
		w, wanted := want[paths[i]]
		h, present := have[paths[i]]
		if wanted && present && h.Ownership == observed.Owned {
			sums[i] = wantSum{w.Sum(), true}
		}
		return nil
	})
	return sums
}

// decide is the change at the path of w and h, with sum the digest of w's
// content when known.
func decide(w desired.File, wanted bool, h observed.File, present bool, sum wantSum, opts Options) (Change, bool) {
	c := Change{Path: w.Path, Owner: w.Owner, New: w.Bytes, Supporting: w.Supporting(), Executable: w.Executable()}
	if present {
		c.Path, c.Old, c.OldSum = h.Path, h.Bytes, h.Sum()
		if !wanted {
			c.Owner, c.Supporting = h.Owner, h.Supporting
		}
	}
	switch {
	case !present:
		c.Action = Create
	case h.Ownership == observed.Unowned && w.Optional:
		return Change{}, false
	case h.Ownership == observed.Unowned && wanted && opts.Force && w.Supporting() && h.Bytes != nil && h.Sum() == sum.of(w) && sameMode(w, h):
		// Named by a SKILL.md a person edited, which --force restores, and
		// already as wanted: nothing of anyone's changes by taking it as written.
		c.Action = None
	case h.Ownership == observed.Unowned && wanted:
		c.Action, c.Reason, c.Obstruction = Conflict, h.Reason+"; kept", h.Obstruction
	case h.Ownership == observed.Unowned:
		return Change{}, false
	case h.Ownership == observed.Modified && h.Supporting && wanted && h.Sum() == sum.of(w) && sameMode(w, h):
		// Put in place before the SKILL.md naming it, by a run that stopped there.
		c.Action = None
	case h.Ownership == observed.Modified && !opts.Force && wanted:
		c.Action, c.Reason, c.Override = Conflict, "edited by hand; kept", ForceRestores
	case h.Ownership == observed.Modified && !opts.Force:
		c.Action, c.Reason, c.Override = Conflict, "edited by hand, no longer declared; kept", ForceDeletes
	case !wanted && h.Supporting:
		c.Action, c.Reason = Delete, "orphan: no longer a file of its skill, or the skill's declaration is gone or withheld"
	case !wanted:
		c.Action, c.Reason = Delete, "orphan: its declaration is gone or withheld"
	case h.Ownership == observed.Modified:
		c.Action, c.Reason, c.Override = Update, "edited by hand; restored", ForceRestored
	case h.Sum() == sum.of(w) && sameMode(w, h):
		c.Action = None
	default:
		c.Action = Update
	}
	if c.Action == Create || c.Action == Update {
		c.want = &w
	}
	return c, true
}

// sameMode says a supporting file on disk has the execute bit it should have,
// where files have one.
func sameMode(w desired.File, h observed.File) bool {
	return !w.Supporting() || h.Executable == nil || *h.Executable == w.Executable()
}

// cutShort says the file f is a staged copy that a kill left, perhaps cut
// short: it is in a folder of a temp name, which only skillsync stages in
// (observed.InStagedFolder), or its name is the staged name of a file wanted
// in its directory (banner.StagedName, the digest of the whole content) and its
// bytes begin that content; or the scan found it whole a file of skillsync's
// (Supporting, see observed.State.CutShort).
func cutShort(f observed.File, files map[string]desired.File) bool {
	if f.Supporting || observed.InStagedFolder(f.Path) {
		return true
	}
	dir, name := path.Split(f.Path)
	for p, w := range files {
		if !w.Supporting() || path.Dir(p)+"/" != dir {
			continue
		}
		if data, err := w.Content(); err == nil && banner.StagedName(data) == name && bytes.HasPrefix(data, f.Bytes) {
			return true
		}
	}
	return false
}

func wantsUnder(files map[string]desired.File, dir string) bool {
	for p := range files {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

// caseTwins maps each skill directory the wanted files are in to an entry of its
// target directory whose name differs from it only in case, whether or not the
// directory itself is there too. Writing it would write into that entry on a
// case-insensitive filesystem and keep a second directory beside it on Linux,
// which a checkout on macOS or Windows could not hold: a conflict on every
// system, unless the entry goes.
func caseTwins(files map[string]desired.File, entries []string) map[string]string {
	folded := make(map[string][]string, len(entries))
	for _, e := range entries {
		folded[strings.ToLower(e)] = append(folded[strings.ToLower(e)], e)
	}
	twins := map[string]string{}
	for p := range files {
		dir := skillDirOf(p)
		for _, e := range folded[strings.ToLower(dir)] {
			if e != dir {
				twins[dir] = e
				break
			}
		}
	}
	return twins
}

// skillDirOf is the skill directory the file p is in: its own directory for a
// SKILL.md, the one above for a side file.
func skillDirOf(p string) string {
	if dir := clients.SkillDirOf(p); dir != "" {
		return dir
	}
	return path.Dir(p)
}

func blockedBy(blocked map[string]string, p string) (dir, reason string) {
	for dir, reason := range blocked {
		if strings.HasPrefix(p, dir+"/") {
			return dir, reason
		}
	}
	return "", ""
}

func unionPaths(a map[string]desired.File, b map[string]observed.File) []string {
	out := make([]string, 0, len(a)+len(b))
	for p := range a {
		out = append(out, p)
	}
	for p := range b {
		if _, inA := a[p]; !inA {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// Count is how many changes have the action; None counts the files in sync.
func (p Plan) Count(a Action) int {
	n := 0
	if a == None {
		n = len(p.InSync)
	}
	for _, c := range p.Changes {
		if c.Action == a {
			n++
		}
	}
	return n
}

// Pending is how many changes would write or delete something.
func (p Plan) Pending() int {
	return p.Drift() + p.Count(Cleanup)
}

// Drift is how many generated files are missing, stale or orphaned: what --check
// fails on. A leftover temp file or an empty skill directory is housekeeping a run
// does on the way, not drift; no client reads either.
func (p Plan) Drift() int {
	return p.Count(Create) + p.Count(Update) + p.Count(Delete)
}
