//go:build reliability && linux

package reliability

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/controller/state"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
)

// TestOwnershipProperty is the ownership property suite. Each case builds a random workspace
// (a registry, valid or broken, in half the cases with whole skill directories,
// spec.dir; files an earlier run generated; files people wrote inside and beside
// the target directories, and inside generated skill directories) and runs one to
// four reconcile passes in random order, people editing the workspace between some
// of them (the skill directories' files, the registry's declarations of them, and
// the generated files: see ownGenerator.edit). After every pass it checks that no
// person's file changed (a file in a skill directory is skillsync's only when the
// intact SKILL.md there names it: see ownSupport), that a hand-edited generated
// file changed only under --force, that what the pass wrote is what the registry
// wants and provably skillsync's, and that the verdict agrees with what is on disk.
// Each case has its own seed; a failure prints it.
func TestOwnershipProperty(t *testing.T) {
	n := count("RELIABILITY_CASES", 2000)
	first := seed(1)
	dir := t.TempDir()
	var failures atomic.Int64
	var stats ownStats
	cases := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range cases {
				s := first + int64(i)
				summary, violations := runOwnershipCase(dir, s, &stats)
				if len(violations) == 0 {
					continue
				}
				failures.Add(1)
				if len(violations) > 25 {
					violations = append(violations[:25], fmt.Sprintf("… and %d more", len(violations)-25))
				}
				t.Errorf("ownership case seed %d failed:\n  %s\nworkspace:\n  %s\n"+
					"replay: RELIABILITY_SEED=%d RELIABILITY_CASES=1 go test -tags reliability -run TestOwnershipProperty -count=1 ./reliability/\n"+
					"    or: RELIABILITY_SEED=%d RELIABILITY_CASES=1 make reliability (all suites)",
					s, strings.Join(violations, "\n  "), strings.Join(summary, "\n  "), s, s)
			}
		})
	}
	for i := range n {
		cases <- i
	}
	close(cases)
	wg.Wait()
	t.Logf("seeds %d..%d; %s", first, first+int64(n)-1, stats.String())
	report("ownership property", n, int(failures.Load()),
		"unowned files (and files no intact manifest names) byte/mode/mtime-identical; modified kept without --force; writes = the registry's, manifests name no person's file; verdicts")
	if failures.Load() > 0 {
		t.Fail()
	}
}

// runOwnershipCase builds and runs one case in a fresh directory under dir and
// returns what the workspace held and every violation found.
func runOwnershipCase(dir string, s int64, stats *ownStats) (summary, violations []string) {
	ws, err := os.MkdirTemp(dir, fmt.Sprintf("case-%d-", s))
	if err != nil {
		return nil, []string{"setup: " + err.Error()}
	}
	defer os.RemoveAll(ws)
	g := newOwnGenerator(ws, s)
	if err := g.build(); err != nil {
		return g.log, []string{"setup: " + err.Error()}
	}
	c, err := newOwnershipCase(ws, g, g.operations())
	if err != nil {
		return g.log, []string{"setup: " + err.Error()}
	}
	g.logf("ops: %s", strings.Join(c.opNames(), ", "))
	g.logf("person's entries: %d, hand-edited generated files: %d", len(c.protected), len(c.modified))
	c.run(stats)
	stats.addKinds(g.kinds)
	return g.log, c.violations
}

// ---------------------------------------------------------------------------
// Operations

// ownOp is one reconcile pass, run in process.
type ownOp int

const (
	ownReconcile  ownOp = iota // reconcile --once
	ownCheck                   // reconcile --check
	ownForce                   // reconcile --once --force
	ownAllowEmpty              // reconcile --once --allow-empty
	ownNumOps
)

func (o ownOp) String() string {
	return [...]string{"reconcile --once", "reconcile --check", "reconcile --once --force", "reconcile --once --allow-empty"}[o]
}

func (o ownOp) check() bool { return o == ownCheck }

func (o ownOp) run(root string) controller.Outcome {
	req := controller.Request{System: workspacefs.OS{}, Root: root}
	switch o {
	case ownCheck:
		req.Check = true
		return controller.Reconcile(req)
	case ownForce:
		req.Force = true
	case ownAllowEmpty:
		req.AllowEmpty = true
	}
	return controller.ReconcileOnce(req, 5*time.Second)
}

var ownVerdictNames = map[controller.Verdict]string{
	controller.Converged: "converged", controller.ChangesPending: "changesPending", controller.Conflicted: "conflicts",
	controller.Refused: "refused", controller.Failed: "failed", controller.Invalid: "invalid",
}

func ownVerdictName(v controller.Verdict) string {
	if name, ok := ownVerdictNames[v]; ok {
		return name
	}
	return fmt.Sprintf("undocumented verdict %d", int(v))
}

// ---------------------------------------------------------------------------
// Snapshots of the workspace

// ownEntry is what a snapshot records of one path (never following a symlink).
type ownEntry struct {
	mode  fs.FileMode // type and permission bits
	mtime time.Time
	size  int64
	sum   [sha256.Size]byte // regular files
	link  string            // symlinks
	// data are the bytes of a SKILL.md the scanner reads, whose manifest decides
	// whether the files beside it are skillsync's as of this snapshot.
	data []byte
}

// ownTree maps every workspace-relative, slash-separated path under the root to its entry.
type ownTree map[string]ownEntry

// ownSnapshot records every entry under root.
func ownSnapshot(root string) (ownTree, error) {
	t := ownTree{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == "." {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		e := ownEntry{mode: info.Mode(), mtime: info.ModTime(), size: info.Size()}
		switch {
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			e.sum = sha256.Sum256(data)
			if path.Base(filepath.ToSlash(rel)) == observed.SkillFile && len(data) <= observed.MaxFileSize {
				e.data = data
			}
		case info.Mode()&fs.ModeSymlink != 0:
			if e.link, err = os.Readlink(p); err != nil {
				return err
			}
		}
		t[filepath.ToSlash(rel)] = e
		return nil
	})
	return t, err
}

// diff says how after differs from e; "" when it does not. A directory's mtime is
// compared only with dirTimes: creating a file in a person's directory is allowed.
func (e ownEntry) diff(after ownEntry, dirTimes bool) string {
	var d []string
	if e.mode.Type() != after.mode.Type() {
		return fmt.Sprintf("was %s, is now %s", ownKindOf(e.mode), ownKindOf(after.mode))
	}
	if e.mode.IsRegular() && (e.size != after.size || e.sum != after.sum) {
		d = append(d, fmt.Sprintf("content changed (%d bytes sha256 %x… -> %d bytes sha256 %x…)", e.size, e.sum[:6], after.size, after.sum[:6]))
	}
	if e.link != after.link {
		d = append(d, fmt.Sprintf("symlink target %q -> %q", e.link, after.link))
	}
	if e.mode.Perm() != after.mode.Perm() {
		d = append(d, fmt.Sprintf("mode %04o -> %04o", e.mode.Perm(), after.mode.Perm()))
	}
	if (dirTimes || !e.mode.IsDir()) && !e.mtime.Equal(after.mtime) {
		d = append(d, fmt.Sprintf("mtime %s -> %s", e.mtime.Format(time.RFC3339Nano), after.mtime.Format(time.RFC3339Nano)))
	}
	return strings.Join(d, ", ")
}

func ownKindOf(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "a " + m.Type().String() + " entry"
}

// ownChanges lists every difference between two snapshots of the whole tree.
func ownChanges(before, after ownTree) []string {
	var out []string
	for _, p := range ownSorted(before) {
		a, ok := after[p]
		switch {
		case !ok:
			out = append(out, p+": removed")
		default:
			if d := before[p].diff(a, true); d != "" {
				out = append(out, p+": "+d)
			}
		}
	}
	for _, p := range ownSorted(after) {
		if _, ok := before[p]; !ok {
			out = append(out, p+": created ("+ownKindOf(after[p].mode)+")")
		}
	}
	return out
}

// ownRecordsSources tells whether a change is the one a pass with nothing else to
// do may make: recording the registry it applied in .skillsync/last-applied.json
// and .skillsync/applied/, under the lock, in a .skillsync/ it creates with its
// .gitignore, or refreshing its cache, .skillsync/index.
func ownRecordsSources(change string) bool {
	for _, p := range []string{state.Dir + ":", state.AppliedFile + ":", state.AppliedDir + ":", state.AppliedDir + "/",
		state.IndexFile + ":", state.Dir + "/lock:", state.Dir + "/.gitignore: created"} {
		if strings.HasPrefix(change, p) {
			return true
		}
	}
	return false
}

func ownSorted[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// ---------------------------------------------------------------------------
// The case: classify the start state, run the operations, check the invariants

// ownershipCase is one workspace, the passes to run on it and what they broke.
type ownershipCase struct {
	root   string
	g      *ownGenerator // edits the workspace between passes, and knows what the registry wants
	broken string        // why the registry is invalid; "" when it was written valid
	ops    []ownOp
	// edits[i] says people edit the workspace before pass i.
	edits []bool
	start ownTree // the workspace at the start, or right after the last edit
	// protected are a person's entries at the start (or right after the last
	// edit): they must stay exactly as they are (directories: exist with their
	// mode). modified are generated files edited by hand: kept until a --force pass.
	protected map[string]ownEntry
	modified  map[string]ownEntry
	// emptyDirs are the protected directories that were empty when first seen:
	// a person's though nothing is in them. claimed are the protected files only
	// a SKILL.md edited by hand names.
	emptyDirs  map[string]bool
	claimed    map[string]bool
	violations []string
}

func newOwnershipCase(root string, g *ownGenerator, ops []ownOp) (*ownershipCase, error) {
	start, err := ownSnapshot(root)
	if err != nil {
		return nil, err
	}
	c := &ownershipCase{root: root, g: g, broken: g.broken, ops: ops, start: start,
		protected: map[string]ownEntry{}, modified: map[string]ownEntry{}, emptyDirs: map[string]bool{}, claimed: map[string]bool{}}
	c.edits = make([]bool, len(ops))
	for i := 1; i < len(ops); i++ {
		c.edits[i] = g.chance(2)
	}
	return c, c.classify(func(string) bool { return true })
}

func (c *ownershipCase) opNames() []string {
	names := make([]string, len(c.ops))
	for i, o := range c.ops {
		names[i] = o.String()
		if c.edits[i] {
			names[i] = "(edits) " + names[i]
		}
	}
	return names
}

// classify sorts the start state: everything outside .skillsync/ belongs to a person
// except a SKILL.md (or a side file beside it) the scanner reads that carries a
// banner for its own path (owned, or modified when the digest is wrong), a
// supporting file the manifest of such a SKILL.md proves skillsync's (see
// ownSupport), and a leftover of an interrupted write. emptyDirs says which empty
// directories to take for a person's: after an edit, only those the edit made.
func (c *ownershipCase) classify(emptyDirs func(string) bool) error {
	for _, p := range ownSorted(c.start) {
		e := c.start[p]
		if p == state.Dir || strings.HasPrefix(p, state.Dir+"/") || e.mode.IsDir() {
			continue
		}
		switch {
		case !e.mode.IsRegular():
			c.protect(p, e)
		case ownInStagedSkillDir(p):
			// A new skill directory a run wrote whole and was stopped before
			// putting in place: the next finished run removes all it holds.
		case ownScannedSkillFile(p) && e.size <= observed.MaxFileSize:
			data, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(p)))
			if err != nil {
				return err
			}
			got, want := observed.Classify(p, data).Ownership, ownBannerRule(p, data)
			if got != want {
				c.failf("start: observed.Classify says %s is %s, the banner rule of docs/ownership.md says %s", p, got, want)
			}
			switch {
			case got == observed.Unowned || want == observed.Unowned:
				c.protect(p, e)
			case got == observed.Modified || want == observed.Modified:
				c.modified[p] = e
			}
		case ownInterruptedWrite(c.root, p) || ownSupportTemp(c.start, c.root, p):
			// skillsync's own leftover: the next finished run removes it.
		default:
			switch ownSupport(c.start, p) {
			case ownSupportOwned:
			case ownSupportModified:
				c.modified[p] = e
			case ownSupportClaimed:
				c.protect(p, e)
				c.claimed[p] = true
			default:
				c.protect(p, e)
			}
		}
	}
	// A directory that was empty at the start is a person's too, except an empty
	// skill directory or side-file directory in one, or a folder of a skill
	// directory that its intact manifest names a file in: the plan cleans those
	// nothing is wanted in, as the leftover of a run killed between deleting a file
	// and its directory (docs/ownership.md).
	for _, p := range ownSorted(c.start) {
		e := c.start[p]
		if e.mode.IsDir() && !strings.HasPrefix(p+"/", state.Dir+"/") && c.emptyAtStart(p) &&
			!ownSkillDir(p) && !ownSideDir(p) && !ownNamedUnder(c.start, p) && emptyDirs(p) {
			c.protect(p, e)
			c.emptyDirs[p] = true
		}
	}
	return nil
}

// protect keeps p and every directory above it.
func (c *ownershipCase) protect(p string, e ownEntry) {
	c.protected[p] = e
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		c.protected[d] = c.start[d]
	}
}

func (c *ownershipCase) emptyAtStart(dir string) bool {
	for p := range c.start {
		if strings.HasPrefix(p, dir+"/") {
			return false
		}
	}
	return true
}

// ownSideFiles are the files a client reads beside SKILL.md, relative to the skill
// directory, as docs/ownership.md lists them.
var ownSideFiles = []string{"agents/openai.yaml", ".gitignore", ".gitattributes"}

// ownTargetFiles are the files skillsync writes in a target directory itself.
var ownTargetFiles = []string{".gitignore", ".gitattributes"}

// ownScannedSkillFile reports whether p is <target dir>/<name>/SKILL.md, a side
// file beside it or a target directory's own file, the only places a file can be
// skillsync's. (A snapshot never descends into a symlink, so every directory
// above p is a real one.)
func ownScannedSkillFile(p string) bool {
	if slices.Contains(ownTargetFiles, path.Base(p)) && slices.Contains(ownTargetDirs(), path.Dir(p)) {
		return true
	}
	for _, rel := range append([]string{observed.SkillFile}, ownSideFiles...) {
		if skill, ok := strings.CutSuffix(p, "/"+rel); ok && ownSkillDir(skill) {
			return true
		}
	}
	return false
}

// ownInStagedSkillDir reports whether p is in a folder of skillsync's temp name
// directly in a target directory, which docs/ownership.md says only skillsync
// makes (a new skill directory written whole), so that every file in it, at
// any depth and whatever it holds, is a leftover.
func ownInStagedSkillDir(p string) bool {
	dir := clients.SkillDirOf(p)
	return dir != "" && dir != p && banner.IsTempName(path.Base(dir))
}

// ownSkillDir reports whether p is <target dir>/<name>.
func ownSkillDir(p string) bool {
	return slices.Contains(ownTargetDirs(), path.Dir(p))
}

// ownSideDir reports whether p is the directory of a side file in a skill directory.
func ownSideDir(p string) bool {
	for _, rel := range ownSideFiles {
		if skill, ok := strings.CutSuffix(p, "/"+path.Dir(rel)); ok && ownSkillDir(skill) {
			return true
		}
	}
	return false
}

// ownBannerRule is the banner rule of docs/ownership.md written out again, independently of the banner package:
// the file opens with "---", the generated-by line and the mark line; the mark names
// this very path; its digest is the sha256 of the file without the mark line.
func ownBannerRule(rel string, data []byte) observed.Ownership {
	lines := bytes.SplitAfterN(data, []byte("\n"), 4)
	if len(lines) < 3 || string(lines[0]) != "---\n" {
		return observed.Unowned
	}
	owner, ok1 := strings.CutPrefix(string(lines[1]), "# Code generated by skillsync from ")
	owner, ok2 := strings.CutSuffix(owner, "; DO NOT EDIT.\n")
	digest, ok3 := strings.CutPrefix(string(lines[2]), "# skillsync: path="+rel+" sha256=")
	digest, ok4 := strings.CutSuffix(digest, "\n")
	if !ok1 || !ok2 || !ok3 || !ok4 || owner == "" || len(digest) != 64 || strings.Trim(digest, "0123456789abcdef") != "" {
		return observed.Unowned
	}
	unmarked := append(append([]byte{}, lines[0]...), lines[1]...)
	if len(lines) == 4 {
		unmarked = append(unmarked, lines[3]...)
	}
	if fmt.Sprintf("%x", sha256.Sum256(unmarked)) != digest {
		return observed.Modified
	}
	return observed.Owned
}

// ownInterruptedWrite reports whether p is a temp file skillsync removes by design: in
// a target or skill directory, named exactly like its in-flight writes, holding the beginning
// of a generated file.
func ownInterruptedWrite(root, p string) bool {
	dir := path.Dir(p)
	if !banner.IsTempName(path.Base(p)) || !ownSkillDir(dir) && !ownSideDir(dir) && !slices.Contains(ownTargetDirs(), dir) {
		return false
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
	return err == nil && len(data) <= observed.MaxFileSize && banner.IsPartial(data)
}

func ownTargetDirs() []string {
	var dirs []string
	for _, t := range clients.Targets {
		dirs = append(dirs, t.Dir)
	}
	sort.Strings(dirs)
	return dirs
}

func (c *ownershipCase) failf(format string, args ...any) {
	c.violations = append(c.violations, fmt.Sprintf(format, args...))
}

// run carries out the operations, checking the invariants after each.
func (c *ownershipCase) run(stats *ownStats) {
	prev, forced := c.start, false
	for i, op := range c.ops {
		when := fmt.Sprintf("op %d (%s)", i+1, op)
		if c.edits[i] {
			var err error
			if prev, err = c.edit(prev); err != nil {
				c.failf("%s: edit: %v", when, err)
				return
			}
			// What people edited by hand now is kept until the next --force.
			forced = false
		}
		out := op.run(c.root)
		v := out.Verdict(op.check())
		stats.addVerdict(v)
		stats.addSupporting(out.Plan)
		now, err := ownSnapshot(c.root)
		if err != nil {
			c.failf("%s: snapshot: %v", when, err)
			return
		}
		forced = forced || op == ownForce
		c.checkKept(now, forced, when)
		c.checkUntouched(out.Plan, prev, now, when)
		c.checkVerdict(op, out, v, prev, now, when)
		c.checkWrites(prev, now, forced, when)
		if !op.check() && ownSettled(out, v) {
			c.checkNoTempFiles(now, when)
			now = c.checkSettled(v, now, when)
		}
		prev = now
	}
}

// edit lets people change the workspace between two passes (ownGenerator.edit:
// the skill directories the registry reads, and the generated ones) and sorts it
// again from what is on disk now: the manifest rule decides afresh which files
// are skillsync's, a hand edit is kept until the next --force, and a directory is
// a person's when it was theirs before, or the edit made it, and nothing is in it.
// A file a pass wrote naming a person's file is caught by checkWrites, so sorting
// again cannot hand such a file over unnoticed.
func (c *ownershipCase) edit(prev ownTree) (ownTree, error) {
	c.g.edit()
	after, err := ownSnapshot(c.root)
	if err != nil {
		return prev, err
	}
	touched := map[string]bool{}
	for p, e := range prev {
		if a, ok := after[p]; !ok || e.diff(a, false) != "" {
			touched[p] = true
		}
	}
	oldEmpty := c.emptyDirs
	c.start, c.broken = after, c.g.broken
	c.protected, c.modified, c.emptyDirs, c.claimed = map[string]ownEntry{}, map[string]ownEntry{}, map[string]bool{}, map[string]bool{}
	err = c.classify(func(p string) bool {
		_, existed := prev[p]
		return !existed || oldEmpty[p] && !touched[p]
	})
	c.g.logf("  then: %d person's entries, %d hand-edited generated files, registry %s",
		len(c.protected), len(c.modified), cmp.Or(c.broken, "valid"))
	return after, err
}

// ownCutOff reports whether every problem is the refusal of a valid registry that
// is a strict prefix of the one an earlier run applied, by a pass whose plan would
// delete generated files (docs/registry.md; the broken-input suite covers it). It
// depends on the pass: --force deletes hand-edited orphans another pass keeps.
func ownCutOff(ps registry.Problems) bool {
	for _, p := range ps {
		if !strings.Contains(p.Message, "looks cut off in the middle of a save") {
			return false
		}
	}
	return len(ps) > 0
}

// ownSettled reports whether a pass ran to its end: converged, conflicts kept, or
// failed only on obstructions (everything else of the plan was done).
func ownSettled(out controller.Outcome, v controller.Verdict) bool {
	return v == controller.Converged || v == controller.Conflicted || (v == controller.Failed && out.Err == nil)
}

// ownObstructed reports whether the plan is blocked by something that is no file.
func ownObstructed(planned plan.Plan) bool {
	for _, c := range planned.Changes {
		if c.Action == plan.Conflict && c.Obstruction {
			return true
		}
	}
	return false
}

// checkKept: a person's entries still exist, byte-, mode- and mtime-identical; files
// edited by hand too unless a --force pass has run.
func (c *ownershipCase) checkKept(now ownTree, forced bool, when string) {
	for _, p := range ownSorted(c.protected) {
		before := c.protected[p]
		after, ok := now[p]
		switch {
		case !ok:
			c.failf("%s: person's %s %s was removed", when, ownKindOf(before.mode)[2:], p)
		default:
			if d := before.diff(after, false); d != "" {
				c.failf("%s: person's %s %s changed: %s", when, ownKindOf(before.mode)[2:], p, d)
			}
		}
	}
	if forced {
		return
	}
	for _, p := range ownSorted(c.modified) {
		before := c.modified[p]
		after, ok := now[p]
		switch {
		case !ok:
			c.failf("%s: hand-edited generated file %s was removed without --force", when, p)
		default:
			if d := before.diff(after, false); d != "" {
				c.failf("%s: hand-edited generated file %s changed without --force: %s", when, p, d)
			}
		}
	}
}

// checkUntouched: a path the plan left alone (nothing to do, or a conflict kept) is
// exactly as it was before the pass: a write of unchanged bytes is skipped.
func (c *ownershipCase) checkUntouched(planned plan.Plan, prev, now ownTree, when string) {
	left := planned.Changes
	for _, p := range planned.InSync {
		left = append(left, plan.Change{Path: p, Action: plan.None})
	}
	for _, ch := range left {
		if ch.Action != plan.None && ch.Action != plan.Conflict {
			continue
		}
		before, had := prev[ch.Path]
		after, has := now[ch.Path]
		switch {
		case had != has:
			c.failf("%s: %s was planned as %s, yet it appeared or vanished", when, ch.Path, ch.Action)
		case had:
			if d := before.diff(after, false); d != "" {
				c.failf("%s: %s was planned as %s, yet it changed: %s", when, ch.Path, ch.Action, d)
			}
		}
	}
}

// checkVerdict: the verdict is a documented one, fits the operation and the
// registry, and a pass that must not write wrote nothing at all.
func (c *ownershipCase) checkVerdict(op ownOp, out controller.Outcome, v controller.Verdict, prev, now ownTree, when string) {
	name := ownVerdictName(v)
	switch v {
	case controller.Converged, controller.Conflicted, controller.Invalid:
	case controller.ChangesPending:
		if !op.check() {
			c.failf("%s: verdict %s from a pass that is not --check", when, name)
		}
	case controller.Refused:
		if op == ownAllowEmpty {
			c.failf("%s: plan refused despite --allow-empty: %s", when, out.Plan.Refused)
		}
	case controller.Failed:
		// Documented: something that is no file at all where skillsync must write
		// (a directory named SKILL.md, a file where a skill directory belongs) fails
		// the run; the rest of the plan is still carried out. Anything else is not
		// expected in these workspaces.
		if out.Err != nil || !ownObstructed(out.Plan) {
			c.failf("%s: verdict failed: %v", when, out.Failure())
		}
	default:
		c.failf("%s: %s", when, name)
	}
	switch {
	case c.broken != "" && v != controller.Invalid:
		c.failf("%s: registry is invalid (%s) but the verdict is %s", when, c.broken, name)
	case c.broken == "" && v == controller.Invalid && !ownCutOff(out.Problems):
		c.failf("%s: registry was written valid but the verdict is invalid: %v", when, out.Problems)
	}
	quiet := ""
	switch {
	case v == controller.Invalid:
		quiet = "invalid input"
	case op.check():
		quiet = "--check"
	case v == controller.Refused:
		quiet = "refused plan"
	case out.Plan.Pending() == 0 && out.Err == nil:
		quiet = "nothing to do"
	}
	if quiet != "" {
		for _, d := range ownChanges(prev, now) {
			if quiet == "nothing to do" && ownRecordsSources(d) {
				continue
			}
			c.failf("%s: %s, yet the tree changed: %s", when, quiet, d)
		}
	}
}

// checkSettled: after a pass that ran to its end a --check finds nothing to do,
// reports the same verdict and changes nothing.
func (c *ownershipCase) checkSettled(v controller.Verdict, now ownTree, when string) ownTree {
	out := controller.Reconcile(controller.Request{System: workspacefs.OS{}, Root: c.root, Check: true})
	after, err := ownSnapshot(c.root)
	if err != nil {
		c.failf("%s: snapshot after the follow-up --check: %v", when, err)
		return now
	}
	if got := out.Verdict(true); got != v || out.Plan.Pending() > 0 {
		var pending []string
		for _, ch := range out.Plan.Changes {
			if ch.Action != plan.None && ch.Action != plan.Conflict {
				pending = append(pending, string(ch.Action)+" "+ch.Path)
			}
		}
		c.failf("%s: verdict %s, but a following --check says %s with %d pending change(s) %v (err %v)",
			when, ownVerdictName(v), ownVerdictName(got), out.Plan.Pending(), pending, out.Err)
	}
	for _, d := range ownChanges(now, after) {
		c.failf("%s: the follow-up --check changed the tree: %s", when, d)
	}
	return after
}

// checkNoTempFiles: no temp file of skillsync's survives a finished run, nor
// any file of a new skill directory a stopped run wrote under a temp name.
func (c *ownershipCase) checkNoTempFiles(now ownTree, when string) {
	for _, p := range ownSorted(now) {
		if _, mine := c.protected[p]; (banner.IsTempName(path.Base(p)) || ownInStagedSkillDir(p) && now[p].mode.IsRegular()) && !mine {
			c.failf("%s: temp file %s survived a finished run", when, p)
		}
	}
}

// ---------------------------------------------------------------------------
// The generator: a random workspace from one seed

var (
	ownAliases = []string{"intent", "find-intent", "withdraw-intent", "note", "weekly-report", "ticket",
		"standup", "deploy-check", "lint-docs", "triage-bug", "a1", "x-y-z"}
	// Names a person may give a skill directory, beside the aliases.
	ownHandNames = []string{"my-own", "Intent", "notes", ".hidden", "intent-v2"}
	ownTitles    = []string{"Propose an intent", "Note: add a line to today's journal", `Say "hello" # not a comment`,
		"--- not a delimiter", "Ünïcödé title — with a dash", "Weekly report for a team", "it's 100% fine", "{braces} and [brackets]"}
	ownTargetNames = []string{"claude-code", "qwen-code", "agents"}
	// Places beside the target directories, or inside them where the scanner does not look.
	ownBesidePaths = []string{".claude/CLAUDE.md", ".claude/settings.json", ".claude/skills.md", ".claude/skills-old/intent/SKILL.md",
		".claude/commands/intent.md", ".qwen/settings.json", ".qwen/skills.bak/note/SKILL.md", ".agents/README.md",
		".agents/skills-archive/x-y-z/SKILL.md", "SKILL.md", "docs/SKILL.md", ".claude/skills/SKILL.md", ".agents/skills/README.md"}
	ownModes = []fs.FileMode{0o600, 0o644, 0o755}
)

const ownEcharts = "markdown.codeBlock.echarts-fulldata"

// ownGenerator builds one random workspace from one seed.
type ownGenerator struct {
	rng  *rand.Rand
	root string
	// broken names how the current registry was made invalid; "" when it is
	// valid. regBroken is the part of it registry/registry.yaml is to blame for.
	broken, regBroken string
	// generated holds the SKILL.md files, side files and supporting files earlier
	// runs left; want the files the current registry asks for, and wantExec, for
	// each supporting file among them, whether it is to be executable. Both feed
	// copies, CRLF and BOM variants.
	generated map[string][]byte
	want      map[string][]byte
	wantExec  map[string]bool
	// withDirs says the case declares some skills as whole skill directories
	// (spec.dir); dirs are those directories, under skills/, by skill name, and
	// used the names registry/registry.yaml declares.
	withDirs bool
	dirs     map[string]*ownDirSkill
	used     []string
	log      []string
	kinds    []string // content kinds written, for the coverage figures
}

func newOwnGenerator(root string, s int64) *ownGenerator {
	g := &ownGenerator{rng: rand.New(rand.NewPCG(uint64(s), 0x5eed)), root: root, generated: map[string][]byte{},
		want: map[string][]byte{}, wantExec: map[string]bool{}, dirs: map[string]*ownDirSkill{}}
	g.withDirs = g.chance(2)
	return g
}

func (g *ownGenerator) logf(format string, args ...any) {
	g.log = append(g.log, fmt.Sprintf(format, args...))
}

func (g *ownGenerator) chance(n int) bool { return g.rng.IntN(n) == 0 }

func ownPick[T any](g *ownGenerator, list []T) T { return list[g.rng.IntN(len(list))] }

// build lays the workspace out: earlier generated state, the current registry, then
// people's files and directories.
func (g *ownGenerator) build() error {
	if g.chance(3) {
		// In a git work tree, each target directory gets its git file too.
		if err := os.Mkdir(filepath.Join(g.root, ".git"), 0o755); err != nil {
			return err
		}
		g.logf("in git")
	}
	for round := range g.rng.IntN(3) {
		if err := g.earlierRun(round); err != nil {
			return err
		}
	}
	if err := g.collectGenerated(); err != nil {
		return err
	}
	cfg, docs, broken := g.registry(true)
	g.regBroken = broken
	if err := g.writeRegistry(cfg, docs); err != nil {
		return err
	}
	g.broken = g.brokenNow()
	if g.broken != "" {
		g.logf("registry: broken (%s)", g.broken)
	}
	if err := g.computeWant(); err != nil {
		return err
	}
	return g.people()
}

// computeWant reads the registry as a pass does and records the files it wants.
func (g *ownGenerator) computeWant() error {
	clear(g.want)
	clear(g.wantExec)
	in, err := controller.LoadInputs(controller.Request{System: workspacefs.OS{}, Root: g.root})
	if err != nil {
		if g.broken == "" {
			g.logf("registry: written valid, yet it does not load: %v", err)
		}
		return nil
	}
	for _, t := range clients.Targets {
		st := desired.BuildTargetInGit(in.Registry, in.Profile, in.Git, t.Name)
		for p, f := range st.WithGitFiles(in.Git, t.Name, st.GitLinesByEntry(t.Dir)).Files {
			data, err := f.Content()
			if err != nil {
				return err
			}
			g.want[p] = data
			if f.Supporting() {
				g.wantExec[p] = f.Executable()
			}
		}
	}
	g.logf("registry: valid, %d file(s) desired, %d of them supporting files", len(g.want), len(g.wantExec))
	return nil
}

// earlierRun writes a random valid registry and reconciles it.
func (g *ownGenerator) earlierRun(round int) error {
	cfg, docs, _ := g.registry(false)
	if err := g.writeRegistry(cfg, docs); err != nil {
		return err
	}
	req := controller.Request{System: workspacefs.OS{}, Root: g.root}
	req.AllowEmpty = g.chance(2)
	req.Force = g.chance(3)
	out := controller.ReconcileOnce(req, 5*time.Second)
	g.logf("earlier run %d: %s, %d change(s) applied (force %v, allow-empty %v)",
		round+1, ownVerdictName(out.Verdict(false)), len(out.Applied), req.Force, req.AllowEmpty)
	if !g.chance(3) {
		return nil
	}
	// Sometimes a person edits a generated file between two runs.
	if err := g.collectGenerated(); err != nil {
		return err
	}
	if paths := ownSorted(g.generated); len(paths) > 0 {
		p := ownPick(g, paths)
		g.writeFile(p, append(bytes.Clone(g.generated[p]), "\nEdited between runs.\n"...), "hand-edited between runs")
	}
	return nil
}

func (g *ownGenerator) collectGenerated() error {
	clear(g.generated)
	defer g.collectSupporting()
	for _, td := range ownTargetDirs() {
		matches, err := filepath.Glob(filepath.Join(g.root, filepath.FromSlash(td), "*", observed.SkillFile))
		if err != nil {
			return err
		}
		for _, side := range ownSideFiles {
			more, err := filepath.Glob(filepath.Join(g.root, filepath.FromSlash(td), "*", filepath.FromSlash(side)))
			if err != nil {
				return err
			}
			matches = append(matches, more...)
		}
		for _, m := range matches {
			data, err := os.ReadFile(m)
			if err != nil {
				continue // a directory named SKILL.md, a dangling symlink
			}
			rel, _ := filepath.Rel(g.root, m)
			g.generated[filepath.ToSlash(rel)] = data
		}
	}
	return nil
}

func (g *ownGenerator) writeRegistry(cfg, docs string) error {
	if err := os.MkdirAll(filepath.Join(g.root, "registry"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(g.root, "skillsync.yaml"), []byte(cfg), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(g.root, "registry", "registry.yaml"), []byte(docs), 0o644); err != nil {
		return err
	}
	return g.writeDirSkills()
}

// operations is the random sequence of one to four passes.
func (g *ownGenerator) operations() []ownOp {
	ops := make([]ownOp, 1+g.rng.IntN(4))
	for i := range ops {
		ops[i] = ownOp(g.rng.IntN(int(ownNumOps)))
	}
	return ops
}

// --- registries

// registry returns a workspace config and one registry file. With mayBreak, one case
// in five gets exactly one defect and broken says which.
func (g *ownGenerator) registry(mayBreak bool) (cfg, docs, broken string) {
	var c strings.Builder
	c.WriteString("apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n")
	if ts := g.targets(); ts != nil {
		fmt.Fprintf(&c, "  targets: [%s]\n", strings.Join(ts, ", "))
	}
	if p := ownPick(g, []string{"", "cli", "web-shell"}); p != "" {
		fmt.Fprintf(&c, "  profile: %s\n", p)
	}
	names := g.rng.Perm(len(ownAliases))[:g.rng.IntN(6)]
	if g.chance(4) && len(names) > 0 {
		fmt.Fprintf(&c, "  disabled: [%s]\n", ownAliases[ownPick(g, names)])
	}
	c.WriteString("  mcp: {server: majordomus}\n")

	d := []string{"apiVersion: skillsync/v1\nkind: Profile\nmetadata: {name: cli}\nspec:\n  capabilities: [terminal.ansi]\n",
		"apiVersion: skillsync/v1\nkind: Profile\nmetadata: {name: web-shell}\nspec:\n  capabilities: [" + ownEcharts + ", markdown.table]\n"}
	var used []string
	g.used = nil
	for _, sk := range g.dirs {
		sk.declared = false
	}
	for _, i := range names {
		used = append(used, ownAliases[i])
		if g.withDirs && g.chance(2) {
			// A whole skill directory, declared in a file of its own.
			g.declareDir(ownAliases[i])
			continue
		}
		g.used = append(g.used, ownAliases[i])
		d = append(d, g.skillDoc(ownAliases[i], ""))
	}
	// A skill directory an earlier run wrote is often declared again, edited:
	// its files are then updated, pruned and added, not only created or deleted.
	for _, name := range ownSorted(g.dirs) {
		if !g.dirs[name].declared && !slices.Contains(used, name) && g.chance(2) {
			used = append(used, name)
			g.declareDir(name)
		}
	}
	if mayBreak && g.withDirs && g.chance(6) {
		g.breakDir()
	}
	if g.chance(3) {
		d = append(d, "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: status.list}\nspec:\n  title: List\n  effect: read\n  input: {type: object}\n  mcp: {tool: status_list}\n")
	}
	if mayBreak && g.chance(5) {
		var doc string
		// A duplicate of a name registry.yaml declares: an edit that drops a skill
		// directory's own registry file must not mend the registry by the way.
		broken, doc = g.defect(g.used)
		d = append(d, doc)
	}
	return c.String(), strings.Join(d, "---\n"), broken
}

// targets is nil (all targets) or a non-empty subset in random order.
func (g *ownGenerator) targets() []string {
	if g.chance(2) {
		return nil
	}
	var out []string
	for _, i := range g.rng.Perm(len(ownTargetNames)) {
		if len(out) == 0 || g.chance(2) {
			out = append(out, ownTargetNames[i])
		}
	}
	return out
}

// skillDoc declares name either as a capability's alias or as a workflow skill;
// extra is added to the spec verbatim.
func (g *ownGenerator) skillDoc(name, extra string) string {
	var b strings.Builder
	var options []string
	if g.chance(4) {
		options = append(options, "targets: ["+strings.Join(g.targetsNonEmpty(), ", ")+"]")
	}
	if g.chance(5) {
		options = append(options, "requiredCapabilities: ["+ownEcharts+"]")
	}
	if g.chance(2) {
		id := "cap." + strings.ReplaceAll(name, "/", "-")
		fmt.Fprintf(&b, "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: %s}\nspec:\n  title: %s\n  effect: %s\n",
			ownQuote(id), ownQuote(ownPick(g, ownTitles)), ownPick(g, []string{"read", "write", "destructive"}))
		b.WriteString("  input:\n    type: object\n    properties: {text: {type: string}, limit: {type: integer}}\n")
		if g.chance(2) {
			b.WriteString("    required: [text]\n")
		}
		if g.chance(3) {
			b.WriteString("  cli: {command: [majordomus, run], flag: --text}\n")
		} else {
			fmt.Fprintf(&b, "  mcp: {tool: tool_%d}\n", g.rng.IntN(1000))
		}
		fmt.Fprintf(&b, "  skill: {alias: %s, argument: text%s}\n", ownQuote(name), ownPrefixed(", ", options))
	} else {
		fmt.Fprintf(&b, "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: %s}\nspec:\n  description: %s\n  body: %s\n",
			ownQuote(name), ownQuote(ownPick(g, ownTitles)), ownQuote("Steps for "+name+":\n\n1. Read the task.\n2. Do it.\n"))
		for _, o := range options {
			b.WriteString("  " + o + "\n")
		}
		if g.chance(3) {
			b.WriteString("  disableModelInvocation: true\n")
		}
	}
	b.WriteString(extra)
	return b.String()
}

func (g *ownGenerator) targetsNonEmpty() []string {
	if ts := g.targets(); ts != nil {
		return ts
	}
	return []string{ownPick(g, ownTargetNames)}
}

// defect is one document that makes the registry invalid, and what is wrong with it.
func (g *ownGenerator) defect(used []string) (string, string) {
	switch g.rng.IntN(6) {
	case 0:
		bad := ownPick(g, []string{"Bad_Alias", "../escape", "has space", "-dash", "intent/x", strings.Repeat("a", 65), "ïntent"})
		return "bad alias " + ownQuote(bad), g.skillDoc(bad, "")
	case 1:
		name := ownPick(g, ownAliases)
		if len(used) > 0 {
			name = ownPick(g, used)
		} else {
			// Declare a new name twice.
			return "duplicate alias " + name, "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: " + name +
				"}\nspec:\n  description: first\n  body: one\n---\n" + "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: " + name +
				"}\nspec:\n  description: second\n  body: two\n"
		}
		return "duplicate alias " + name, "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: " + name + "}\nspec:\n  description: again\n  body: again\n"
	case 2:
		return "broken YAML", ownPick(g, []string{
			"apiVersion: skillsync/v1\nkind: Capability\nspec: {title: [unclosed\n",
			"apiVersion: skillsync/v1\nkind: Skill\nmetadata:\n\tname: tabbed\n",
			"apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: dup-key, name: dup-key}\nspec: {description: d, body: b}\n",
			"key: \"unterminated\n",
		})
	case 3:
		return "reserved alias help", g.skillDoc("help", "")
	case 4:
		return "unknown field", "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: extra-field}\nspec:\n  description: d\n  body: b\n  colour: red\n"
	default:
		return "required capability no profile announces", "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: gated}\nspec:\n  description: d\n  body: b\n  requiredCapabilities: [markdown.codeBlock.mermaid]\n"
	}
}

func ownQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func ownPrefixed(sep string, items []string) string {
	if len(items) == 0 {
		return ""
	}
	return sep + strings.Join(items, sep)
}

// --- people's files and directories

// people adds up to a dozen hand-made entries, sometimes a large file, and random
// modes and mtimes on the generated files.
func (g *ownGenerator) people() error {
	for range g.rng.IntN(13) {
		switch g.rng.IntN(10) {
		case 0:
			g.handDirectory()
		case 1:
			if err := g.handSymlink(); err != nil {
				return err
			}
		case 2:
			g.hardLink()
		default:
			p := g.handPath()
			data, kind := g.content(p)
			g.writeFile(p, data, kind)
		}
	}
	if g.chance(25) {
		g.largeFile()
	}
	for _, p := range ownSorted(g.generated) {
		if g.chance(4) {
			full := filepath.Join(g.root, filepath.FromSlash(p))
			os.Chmod(full, ownPick(g, ownModes))
			os.Chtimes(full, g.mtime(), g.mtime())
		}
	}
	return nil
}

func (g *ownGenerator) mtime() time.Time {
	return time.Unix(946684800+g.rng.Int64N(700_000_000), g.rng.Int64N(1e9))
}

// handPath picks where a person puts a file: at a generated or desired path, at
// another skill name, elsewhere in a skill directory, or beside the target dirs.
func (g *ownGenerator) handPath() string {
	td := ownPick(g, ownTargetDirs())
	name := ownPick(g, append(append([]string{}, ownAliases...), ownHandNames...))
	switch g.rng.IntN(9) {
	case 0, 1:
		if paths := ownSorted(g.generated); len(paths) > 0 {
			return ownPick(g, paths)
		}
	case 2, 3:
		if paths := ownSorted(g.want); len(paths) > 0 {
			return ownPick(g, paths)
		}
	case 4:
		return ownPick(g, ownBesidePaths)
	case 5:
		return path.Join(td, name, ownPick(g, []string{"notes.md", "skill.md", "SKILL.md.orig", "nested/SKILL.md", g.tempName(),
			ownSideFiles[0], path.Join(path.Dir(ownSideFiles[0]), g.tempName())}))
	case 6:
		// A file where a skill directory, the target directory itself, or its git
		// file goes, or in a folder of skillsync's temp name there.
		return ownPick(g, []string{path.Join(td, name), path.Join(td, name), path.Join(td, g.tempName()), td, path.Dir(td),
			path.Join(td, g.tempName(), g.tempName()), path.Join(td, g.tempName(), "ref", g.tempName()),
			path.Join(td, g.tempName(), observed.SkillFile), path.Join(td, g.tempName(), "ref", "notes.md"),
			path.Join(td, ".gitignore"), path.Join(td, ".gitattributes")})
	case 7:
		// Beside a SKILL.md skillsync wrote or will write, and in folders there,
		// where a skill directory may have supporting files: a person's, since
		// no manifest names them; or a supporting file's temp name.
		var skills []string
		for _, m := range []map[string][]byte{g.generated, g.want} {
			for _, p := range ownSorted(m) {
				if path.Base(p) == observed.SkillFile {
					skills = append(skills, path.Dir(p))
				}
			}
		}
		if len(skills) > 0 {
			rel := ownPick(g, append(append([]string{}, ownPersonPaths...), path.Join("scripts", g.tempName()),
				path.Join(g.tempName(), g.tempName()), path.Join(g.tempName(), "deep", g.tempName()), path.Join(g.tempName(), "notes.md")))
			return path.Join(ownPick(g, skills), rel)
		}
	}
	return path.Join(td, name, observed.SkillFile)
}

func (g *ownGenerator) tempName() string {
	return strings.Replace(banner.TempPattern, "*", fmt.Sprintf("%016x", g.rng.Uint64()), 1)
}

// content returns what a person writes at p, and what kind of content it is.
func (g *ownGenerator) content(p string) ([]byte, string) {
	if banner.IsTempName(path.Base(p)) && g.chance(2) {
		// A leftover of an interrupted write: skillsync removes it by design.
		full := g.fileFor(p)
		return full[:g.rng.IntN(len(full))], "interrupted write"
	}
	switch g.rng.IntN(12) {
	case 0:
		return []byte("# Notes\n\nMy own skill, written by hand.\n"), "no front matter"
	case 1:
		return fmt.Appendf(nil, "---\nname: %s\ndescription: hand-written\n---\nDo the thing.\n", path.Base(path.Dir(p))), "front matter without banner"
	case 2:
		return g.forged(p, p), "forged banner for its own path"
	case 3:
		return g.forged(p, ownPick(g, g.otherPaths(p))), "forged banner for another path"
	case 4:
		other := ownPick(g, g.otherPaths(p))
		return g.fileFor(other), "banner copied from " + other
	case 5:
		return append(g.fileFor(p), "\nEdited by hand.\n"...), "right path, wrong digest (hand-edited)"
	case 6:
		return bytes.ReplaceAll(g.fileFor(p), []byte("\n"), []byte("\r\n")), "CRLF copy of a generated file"
	case 7:
		return append([]byte("\xef\xbb\xbf"), g.fileFor(p)...), "BOM before a generated file"
	case 8:
		garbage := make([]byte, 1+g.rng.IntN(4096))
		for i := range garbage {
			garbage[i] = byte(g.rng.UintN(256))
		}
		return garbage, "binary garbage"
	case 9:
		return []byte{}, "empty"
	case 10:
		return append([]byte("\n"), g.fileFor(p)...), "generated file after a blank line"
	default:
		return g.stamped(p, "hand-made skill"), "valid banner for its own path"
	}
}

// fileFor is a generated file for p: what the registry wants there, what an earlier
// run left there, or a freshly stamped one.
func (g *ownGenerator) fileFor(p string) []byte {
	if data, ok := g.want[p]; ok {
		return bytes.Clone(data)
	}
	if data, ok := g.generated[p]; ok {
		return bytes.Clone(data)
	}
	return g.stamped(p, "generated elsewhere")
}

func (g *ownGenerator) stamped(p, body string) []byte {
	content := fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\n%s\n", path.Base(path.Dir(p)), ownQuote(body), body)
	data, err := banner.Stamp([]byte(content), "skill/"+path.Base(path.Dir(p)), p)
	if err != nil {
		return []byte(content)
	}
	return data
}

func (g *ownGenerator) forged(p, claimed string) []byte {
	digest := make([]byte, 32)
	for i := range digest {
		digest[i] = byte(g.rng.UintN(256))
	}
	return fmt.Appendf(nil, "---\n# Code generated by skillsync from capability/forged.%d; DO NOT EDIT.\n# skillsync: path=%s sha256=%x\nname: %s\ndescription: forged\n---\n\nNot skillsync's.\n",
		g.rng.IntN(100), claimed, digest, path.Base(path.Dir(p)))
}

// otherPaths are generated or desired paths other than p, or made-up ones.
func (g *ownGenerator) otherPaths(p string) []string {
	var out []string
	for _, m := range []map[string][]byte{g.generated, g.want} {
		for _, q := range ownSorted(m) {
			if q != p {
				out = append(out, q)
			}
		}
	}
	if len(out) == 0 {
		out = []string{".claude/skills/intent/SKILL.md", ".qwen/skills/other/SKILL.md"}
	}
	return out
}

// writeFile writes a person's file with a random mode and mtime. A path that cannot
// be made (a file where a directory must go) or is a directory is skipped.
func (g *ownGenerator) writeFile(p string, data []byte, kind string) {
	full := filepath.Join(g.root, filepath.FromSlash(p))
	if info, err := os.Lstat(full); err == nil && !info.Mode().IsRegular() {
		return
	}
	if os.MkdirAll(filepath.Dir(full), 0o755) != nil {
		return
	}
	if os.WriteFile(full, data, 0o644) != nil {
		return
	}
	mode, mtime := ownPick(g, ownModes), g.mtime()
	os.Chmod(full, mode)
	os.Chtimes(full, mtime, mtime)
	g.logf("file %s: %s (%d bytes, mode %04o)", p, kind, len(data), mode)
	g.kinds = append(g.kinds, kind)
}

// handDirectory makes an empty skill directory, an empty directory inside one, or a
// directory named SKILL.md.
func (g *ownGenerator) handDirectory() {
	td := ownPick(g, ownTargetDirs())
	name := ownPick(g, append(append([]string{}, ownAliases...), ownHandNames...))
	p := path.Join(td, name)
	kind := "empty skill directory"
	switch g.rng.IntN(4) {
	case 0:
		p, kind = path.Join(p, observed.SkillFile), "directory named SKILL.md"
	case 1:
		p, kind = path.Join(p, "assets"), "empty directory in a skill directory"
	case 2:
		p, kind = path.Join(td, ownPick(g, []string{".gitignore", ".gitattributes"})), "directory named like a target's git file"
	}
	if os.MkdirAll(filepath.Join(g.root, filepath.FromSlash(p)), 0o755) == nil {
		g.logf("dir %s: %s", p, kind)
		g.kinds = append(g.kinds, kind)
		if kind == "directory named SKILL.md" && g.chance(2) {
			g.writeFile(path.Join(p, "inner.md"), []byte("inside a directory named SKILL.md\n"), "file inside a directory named SKILL.md")
		}
	}
}

// handSymlink links a SKILL.md, a skill directory or a target directory to a
// person's file or directory elsewhere in the workspace; the file behind the link
// carries a valid banner for the path it is reached by.
func (g *ownGenerator) handSymlink() error {
	td := ownPick(g, ownTargetDirs())
	name := ownPick(g, append(append([]string{}, ownAliases...), ownHandNames...))
	var link, target, kind string
	switch g.rng.IntN(5) {
	case 0, 1:
		link = path.Join(td, name, observed.SkillFile)
		target = fmt.Sprintf("docs/linked-%d.md", g.rng.IntN(1000))
		g.writeFile(target, g.fileFor(link), "symlink target with a banner for "+link)
		kind = "SKILL.md symlinked to " + target
	case 2:
		link = td
		target = fmt.Sprintf("docs/linked-target-%d", g.rng.IntN(1000))
		g.writeFile(path.Join(target, name, observed.SkillFile), g.fileFor(path.Join(link, name, observed.SkillFile)), "symlinked target directory's SKILL.md")
		kind = "target directory symlinked to " + target
	default:
		link = path.Join(td, name)
		target = fmt.Sprintf("docs/linked-skill-%d", g.rng.IntN(1000))
		g.writeFile(path.Join(target, observed.SkillFile), g.fileFor(path.Join(link, observed.SkillFile)), "symlinked skill directory's SKILL.md")
		kind = "skill directory symlinked to " + target
	}
	full := filepath.Join(g.root, filepath.FromSlash(link))
	if _, err := os.Lstat(full); err == nil || os.MkdirAll(filepath.Dir(full), 0o755) != nil {
		return nil
	}
	rel, err := filepath.Rel(filepath.Dir(full), filepath.Join(g.root, filepath.FromSlash(target)))
	if err != nil {
		return err
	}
	if os.Symlink(rel, full) == nil {
		g.logf("symlink %s -> %s", link, rel)
		g.kinds = append(g.kinds, kind[:strings.Index(kind, " to ")])
	}
	return nil
}

// hardLink gives a generated file a second name a person uses (a hard link, same
// inode): a write in place instead of a rename would change the person's file.
func (g *ownGenerator) hardLink() {
	paths := ownSorted(g.generated)
	if len(paths) == 0 {
		return
	}
	from := ownPick(g, paths)
	to := ownPick(g, []string{fmt.Sprintf("docs/hardlink-%d.md", g.rng.IntN(1000)), path.Join(path.Dir(from), "notes.md"), path.Join(path.Dir(from), "SKILL.md.bak")})
	full := filepath.Join(g.root, filepath.FromSlash(to))
	if os.MkdirAll(filepath.Dir(full), 0o755) != nil {
		return
	}
	if os.Link(filepath.Join(g.root, filepath.FromSlash(from)), full) == nil {
		g.logf("hard link %s = %s", to, from)
		g.kinds = append(g.kinds, "hard link to a generated file")
	}
}

// largeFile writes a file of a few MB around the scanner's size limit, garbage or
// with a valid banner for its own path.
func (g *ownGenerator) largeFile() {
	p := g.handPath()
	size := ownPick(g, []int{3 << 20, observed.MaxFileSize, observed.MaxFileSize + 1, 5 << 20})
	block := make([]byte, 4096)
	for i := range block {
		block[i] = "abcdefghij \n"[g.rng.IntN(12)]
	}
	var data []byte
	kind := "large file"
	if g.chance(2) {
		// The banner takes about 200 bytes of the size.
		front := fmt.Appendf(nil, "---\nname: %s\ndescription: big\n---\n\n", path.Base(path.Dir(p)))
		body := bytes.Repeat(block, size/len(block)+1)[:size-len(front)-200]
		data, _ = banner.Stamp(append(front, body...), "skill/big", p)
		kind = "large file with a valid banner for its own path"
	} else {
		data = bytes.Repeat(block, size/len(block)+1)[:size]
	}
	if data == nil {
		return
	}
	g.writeFile(p, data, fmt.Sprintf("%s (%d bytes)", kind, len(data)))
}

// --- whole skill directories (spec.dir)

// ---------------------------------------------------------------------------
// Coverage figures, logged with -v

type ownStats struct {
	mu       sync.Mutex
	verdicts map[string]int
	kinds    map[string]int
	// supporting counts the planned changes of supporting files by action, so a
	// run shows the skill-directory paths were taken, held ones among them.
	supporting map[string]int
}

func (s *ownStats) addSupporting(pl plan.Plan) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.supporting == nil {
		s.supporting = map[string]int{}
	}
	for _, c := range pl.Changes {
		if c.Supporting {
			action := string(c.Action)
			if strings.HasPrefix(c.Reason, "not written while") {
				action += " (held)"
			}
			s.supporting[action]++
		}
	}
}

func (s *ownStats) addVerdict(v controller.Verdict) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.verdicts == nil {
		s.verdicts = map[string]int{}
	}
	s.verdicts[ownVerdictName(v)]++
}

func (s *ownStats) addKinds(kinds []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kinds == nil {
		s.kinds = map[string]int{}
	}
	for _, k := range kinds {
		if i := strings.Index(k, " ("); i > 0 {
			k = k[:i]
		}
		if strings.HasPrefix(k, "banner copied from ") {
			k = "banner copied from another path"
		}
		if strings.HasPrefix(k, "symlink target with a banner for ") {
			k = "symlink target with a banner for the link's path"
		}
		s.kinds[k]++
	}
}

func (s *ownStats) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	b.WriteString("verdicts:")
	for _, k := range ownSorted(s.verdicts) {
		fmt.Fprintf(&b, " %s %d,", k, s.verdicts[k])
	}
	b.WriteString("\nplanned supporting-file changes:")
	for _, k := range ownSorted(s.supporting) {
		fmt.Fprintf(&b, " %s %d,", k, s.supporting[k])
	}
	b.WriteString("\nentries written by people:")
	for _, k := range ownSorted(s.kinds) {
		fmt.Fprintf(&b, "\n  %6d  %s", s.kinds[k], k)
	}
	return b.String()
}
