package controller

import (
	"errors"
	"log/slog"
	"maps"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/controller/apply"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/controller/state"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/gitfiles"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
)

// Request is one reconcile pass over a workspace.
type Request struct {
	// System is what the workspace is read and written through: the command line
	// passes the disk, and --check a workspacefs.ReadOnly over it, which cannot
	// write.
	System workspacefs.System
	Root   string
	// ConfigFile is the workspace's config, relative to Root; empty is
	// registry.ConfigName, a project workspace's. The user workspace's lives in
	// the user's config directory.
	ConfigFile  string
	ProfileFlag string
	ProfileEnv  string
	Check       bool // plan and report; write nothing
	// Settle is how long the inputs must have stayed the same before a delete that
	// follows from them is applied (see settle.go); 0 applies deletes at once.
	Settle time.Duration
	// Log, when set, says what a --once pass waits for.
	Log *slog.Logger
	// Sources reads the sources skillsync.yaml declares, as skillsync.lock pins
	// them; nil leaves their skills out, so a pass that writes needs it.
	Sources registry.SourceReader
	plan.Options
}

// pass is one pass as it runs: its request, and what a process carries from
// pass to pass.
type pass struct {
	Request
	// history carries what the inputs held, and since when, from pass to pass of
	// one process; nil for a single pass.
	history *settling
	// informer keeps, from pass to pass of a watcher, what the last passes found,
	// so a pass reads and plans only what changed; nil for a pass from scratch.
	informer *Informer
}

// record is where a watcher keeps the record it last read or wrote; nil for a
// pass from scratch.
func (req pass) record() *state.AppliedCache {
	if req.informer == nil {
		return nil
	}
	return &req.informer.record
}

// Inputs is the validated registry and the active profile.
type Inputs struct {
	Registry *registry.Registry
	Profile  desired.Profile
	// Git is how the workspace's git repository treats generated files.
	Git desired.Git
	// applied digests the record of the sources last applied; nil when there is none.
	applied map[string][32]byte
	// profileFile is .skillsync/profile as read.
	profileFile string
	// cutOffs are the input files that are a strict prefix of the version last
	// applied: refused if the plan would delete anything.
	cutOffs []registry.Truncation
	// seenSince is when this process first read the inputs as they are now, and
	// changedSeen when the watcher last saw an input change (zero for --once).
	seenSince, changedSeen time.Time
}

// CutOffs lists the input files that are a strict prefix of the version last
// applied; a pass that would delete generated files because of them is refused.
func (in Inputs) CutOffs() []registry.Truncation { return in.cutOffs }

// unchanged tells whether loading again would give the same inputs: the same input
// files, profile file and record.
func (in Inputs) unchanged() bool {
	if in.Registry == nil || !registry.Unchanged(in.Registry) {
		return false
	}
	r, err := in.Registry.System().Open(in.Registry.Root)
	if err != nil {
		return false
	}
	defer r.Close()
	if profile, err := state.ReadProfile(r); err != nil || profile != in.profileFile {
		return false
	}
	applied, err := state.ReadApplied(r)
	if err != nil || (applied == nil) != (in.applied == nil) {
		return false
	}
	return maps.Equal(applied.Sums(), in.applied)
}

// recordStale tells whether the sources differ from the record of the last apply.
func (in Inputs) recordStale() bool {
	return in.applied == nil || !maps.Equal(in.applied, loadedSums(in.Registry))
}

// loadedSums is the digest of every input file as reg was loaded from it.
func loadedSums(reg *registry.Registry) map[string][32]byte {
	sums := make(map[string][32]byte, len(reg.Sources))
	for f, src := range reg.Sources {
		sums[f] = src.Sum
	}
	return sums
}

// Outcome is everything one pass found and did.
type Outcome struct {
	Inputs
	// Withheld is every skill held back from a target, and why.
	Withheld []desired.Withheld
	// HandWritten are the SKILL.md files people wrote in the target directories,
	// wanted by skillsync or not.
	HandWritten []string
	Plan        plan.Plan
	Applied     []apply.Applied
	// Problems holds invalid input; when set, nothing was planned or written.
	Problems registry.Problems
	// Err is any other failure: I/O, a refused plan, changes that failed.
	Err error
	// Deferred are the deletes not applied because the inputs they follow from have
	// not settled yet, SettleAt when they will have, and SettleWhy what is awaited.
	Deferred  []*plan.Change
	SettleAt  time.Time
	SettleWhy string
	// Recorded says the pass wrote a new record of its sources
	// (state.AppliedFile), and RecordSum is the digest of what it wrote.
	Recorded  bool
	RecordSum [32]byte
	// Planned says the pass got as far as a plan: not when its inputs or the
	// workspace could not be read.
	Planned bool
	// Scope is what a watcher's pass read of the target directories; nil for a
	// pass from scratch.
	Scope *Scope
	// indexed says the outcome is the one state.IndexFile recorded: nothing
	// was read but the stamps.
	indexed bool
	// unwritten are the paths state.UnwrittenFile keeps listing after the pass,
	// of the listed it held.
	unwritten map[string]bool
	listed    int
}

// shortensList says the pass takes paths off state.UnwrittenFile: work for a
// pass that finds nothing else to do.
func (out Outcome) shortensList() bool { return out.listed > len(out.unwritten) }

// LoadInputs reads and validates the registry and resolves the active profile. Any
// problem with the inputs comes back as registry.Problems. The files they make are
// built by desired.Build (or a target at a time by a reconcile).
func LoadInputs(req Request) (Inputs, error) {
	return loadInputs(req, nil)
}

// Config is the workspace's config file, relative to Root.
func (req Request) Config() string {
	if req.ConfigFile == "" {
		return registry.ConfigName
	}
	return req.ConfigFile
}

// loadInputs is LoadInputs through the caches of inf, when not nil: the registry
// files it holds are not decoded again, nor the record parsed again.
func loadInputs(req Request, inf *Informer) (Inputs, error) {
	sys, profileFlag, profileEnv := req.System, req.ProfileFlag, req.ProfileEnv
	var cache *registry.Cache
	var record *state.AppliedCache
	if inf != nil {
		cache, record = &inf.decoded, &inf.record
	}
	reg, err := registry.LoadReading(sys, req.Root, req.Config(), cache, req.Sources)
	var problems registry.Problems
	if reg == nil || (err != nil && !errors.As(err, &problems)) {
		return Inputs{Registry: reg}, err
	}
	r, err := sys.Open(reg.Root)
	if err != nil {
		return Inputs{Registry: reg}, err
	}
	defer r.Close()
	if err := state.Check(r); err != nil {
		return Inputs{Registry: reg}, err
	}
	applied, err := state.ReadAppliedCached(r, record)
	if err != nil {
		return Inputs{Registry: reg}, err
	}
	cutOffs := registry.CutOff(applied.In(r), reg)
	if len(problems) > 0 {
		// A file cut off mid-save is the likely cause of the rest: name it too.
		for _, cut := range cutOffs {
			problems = append(problems, cut.Problem(nil))
		}
		return Inputs{Registry: reg}, problems.Sorted()
	}
	fileProfile, err := state.ReadProfile(r)
	if err != nil {
		return Inputs{Registry: reg}, err
	}
	profile, problem := desired.ResolveProfile(reg, desired.ProfileSources{Flag: profileFlag, Env: profileEnv, ProfileFile: fileProfile})
	if problem != nil {
		return Inputs{Registry: reg}, registry.Problems{*problem}
	}
	return Inputs{Registry: reg, Profile: profile, Git: gitOf(reg), applied: applied.Sums(), profileFile: fileProfile, cutOffs: cutOffs, seenSince: time.Now()}, nil
}

// gitOf is what the workspace's git repository makes of generated files: nothing
// outside a git work tree.
func gitOf(reg *registry.Registry) desired.Git {
	if !gitfiles.InWorkTree(reg.System(), reg.Root) {
		return desired.Git{}
	}
	mode := reg.Config.Spec.GeneratedFiles
	if mode == "" {
		mode = registry.GeneratedCommit
	}
	declared, _ := desired.ResolveProfile(reg, desired.ProfileSources{})
	return desired.Git{Mode: mode, Declared: declared}
}

// Reconcile runs one full pass: load, build, scan, plan and, unless Check, apply. It
// fails closed: with any problem in the inputs nothing is planned or written.
func Reconcile(req Request) Outcome { return reconcile(pass{Request: req}, nil) }

// reconcile is Reconcile with the inputs already loaded, when loaded is not nil.
// It plans one target directory at a time (its desired files built while it is
// scanned, the next ones scanned meanwhile), so a workspace of thousands of
// skills is never held in memory whole.
func reconcile(req pass, loaded *Inputs) Outcome {
	return reconcileKeeping(req, loaded, nil)
}

// reconcileKeeping is reconcile handing keep, when not nil, each target's part of
// the plan with the desired and observed states it was made from.
func reconcileKeeping(req pass, loaded *Inputs, keep func(targetPart)) Outcome {
	targets := targetsByDir()
	// The scans do not depend on the inputs: they run while the inputs load.
	scans := scanTargets(req.System, req.Root, targets)
	defer scans.Close()
	in, out, ok := loadFor(req, loaded)
	if !ok {
		return out
	}
	unwritten, err := state.ReadUnwritten(req.System, req.Root)
	if err != nil {
		out.Err = err
		return out
	}
	targeted, err := planTargets(req, in, targets, scans, nil, keep, unwritten)
	if err == nil && len(targeted.taken) > 0 {
		// Rare: a person's file holds a skill's name. Plan again, the skill
		// withheld from every target.
		rescans := scanTargets(req.System, req.Root, targets)
		defer rescans.Close()
		targeted, err = planTargets(req, in, targets, rescans, targeted.taken, keep, unwritten)
	}
	if err != nil {
		// A plan of some targets is no plan: report none.
		out.Err = err
		return out
	}
	return conclude(req, out, targeted)
}

// loadFor loads the inputs of a pass, or takes loaded, and notes since when they
// have been as they are; ok is false, with the outcome to report, when they are
// invalid or could not be read.
func loadFor(req pass, loaded *Inputs) (in Inputs, out Outcome, ok bool) {
	var err error
	if loaded != nil {
		in = *loaded
	} else {
		in, err = loadInputs(req.Request, req.informer)
	}
	out.Inputs = in
	var problems registry.Problems
	if errors.As(err, &problems) {
		out.Problems = problems
		return in, out, false
	}
	if err != nil {
		out.Err = err
		return in, out, false
	}
	if req.history != nil {
		in.seenSince, in.changedSeen = req.history.observe(inputDigest(in), in.seenSince)
		out.Inputs = in
	}
	return in, out, true
}

// conclude judges the plan of every target as a whole and, unless the request
// only checks or the plan is refused, applies it and records the sources.
func conclude(req pass, out Outcome, targeted targetsPlan) Outcome {
	in := out.Inputs
	out.Plan, out.Withheld, out.HandWritten = targeted.plan, targeted.withheld, targeted.handWritten
	out.unwritten, out.listed = targeted.unwritten, targeted.listed
	wanted, escapes := targeted.wanted, targeted.escapes
	desired.SortWithheld(out.Withheld)
	out.Plan = out.Plan.Judged(wanted, escapes, req.Options)
	out.Planned = true
	if ps := cutOffProblems(in, out.Plan); ps != nil {
		out.Problems, out.Plan, out.Withheld = ps, plan.Plan{}, nil
		return out
	}
	if req.Check || out.Plan.Refused != "" {
		return out
	}
	return applyPlan(req, out)
}

// applyPlan applies the plan of out, judged as a whole, and records the sources.
func applyPlan(req pass, out Outcome) Outcome {
	in := out.Inputs
	// Only deletes wait for the inputs to settle; a pass with none need not
	// stat every input to learn when they may.
	var settleAt time.Time
	var why string
	if out.Plan.Count(plan.Delete) > 0 {
		settleAt, why = req.settleAt(in, out.HandWritten)
	}
	deferred := false
	out.Applied, out.Err = apply.ApplyJournaled(req.System, in.Registry.Root, out.Plan, func() bool {
		deferred = !mayDelete(in, settleAt)
		return !deferred
	}, func(add, remove []string) error {
		next := maps.Clone(out.unwritten)
		if next == nil {
			next = map[string]bool{}
		}
		for _, p := range remove {
			delete(next, p)
		}
		for _, p := range add {
			next[p] = true
		}
		return state.WriteUnwritten(req.System, in.Registry.Root, next)
	})
	if deferred {
		if !in.unchanged() {
			settleAt, why = time.Now().Add(req.Settle), "the inputs changed during this pass"
		}
		out.SettleAt, out.SettleWhy = settleAt, why
		for i := range out.Plan.Changes {
			if out.Plan.Changes[i].Action == plan.Delete {
				out.Deferred = append(out.Deferred, &out.Plan.Changes[i])
			}
		}
	}
	if err := state.Ignore(req.System, in.Registry.Root); err != nil && out.Err == nil {
		out.Err = err
	}
	if out.Err == nil && len(out.Deferred) == 0 && in.recordStale() {
		out.RecordSum, out.Err = state.RecordCached(req.System, in.Registry, req.record())
		out.Recorded = out.Err == nil && out.RecordSum != [32]byte{}
	}
	return out
}

// targetsPlan is the plan of every target directory, and what planning found.
type targetsPlan struct {
	plan     plan.Plan
	withheld []desired.Withheld
	wanted   int
	escapes  []string
	// taken are the skills a person's SKILL.md holds by name in a target.
	taken desired.Taken
	// handWritten are every SKILL.md a person wrote, in path order.
	handWritten []string
	// unwritten are the paths of state.UnwrittenFile still to keep, of the
	// listed it held: those whose file skillsync has not been seen to put in
	// place.
	unwritten map[string]bool
	listed    int
}

// targetPart is one target's part of a plan, with what it was made from.
type targetPart struct {
	target string
	want   desired.State
	have   observed.State
	plan   plan.Plan
}

// planTargets plans each target in turn, from its scan in scans and its desired
// files built while the scan may still run, the skills in taken withheld from
// all; keep, when not nil, is handed each target's part.
func planTargets(req pass, in Inputs, targets []string, scans *targetScans, taken desired.Taken, keep func(targetPart), unwritten map[string]bool) (targetsPlan, error) {
	tp := targetsPlan{taken: desired.Taken{}, unwritten: map[string]bool{}, listed: len(unwritten)}
	for i, target := range targets {
		want := desired.BuildTargetInGit(in.Registry, in.Profile, in.Git, target).WithholdTaken(taken)
		want = want.WithGitFiles(in.Git, target, want.GitLinesByEntry(clients.Dir(target)))
		scan := scans.Take(i)
		if scan.err != nil {
			return targetsPlan{}, scan.err
		}
		have := scan.state.NotWrittenYet(unwritten)
		keepUnwritten(tp.unwritten, unwritten, clients.Dir(target), have)
		findTaken(want, have, tp.taken)
		tp.handWritten = append(tp.handWritten, have.HandWrittenSkills()...)
		part := plan.Files(want, have, req.Options)
		if keep != nil {
			keep(targetPart{target: target, want: want, have: have, plan: part})
		}
		tp.plan.Add(part)
		tp.withheld = append(tp.withheld, want.Withheld...)
		tp.wanted += len(want.Files)
		tp.escapes = append(tp.escapes, have.Escapes...)
	}
	return tp, nil
}

// keepUnwritten adds to kept the paths of unwritten in the target directory dir
// that have to stay listed: all but those where have holds skillsync's own file
// (put in place since) or no SKILL.md at all (nothing names the path).
func keepUnwritten(kept, unwritten map[string]bool, dir string, have observed.State) {
	for p := range unwritten {
		if !strings.HasPrefix(p, dir+"/") {
			continue
		}
		f, present := have.Files[p]
		_, named := have.Files[clients.SkillDirOf(p)+"/"+desired.SkillFile]
		if present && f.Ownership == observed.Owned || !present && !named {
			continue
		}
		kept[p] = true
	}
}

// findTaken adds to taken every SKILL.md of want where a skill a person wrote is
// on disk: at its path, or at one that differs only in case (the same file on
// macOS and Windows).
func findTaken(want desired.State, have observed.State, taken desired.Taken) {
	mine := map[string]string{}
	for p, h := range have.Files {
		if h.HandWritten() && strings.EqualFold(path.Base(p), desired.SkillFile) && path.Dir(p) == clients.SkillDirOf(p) {
			// Of two that differ only in case (Linux holds both), the first by path,
			// whichever order the map gives.
			if prev, ok := mine[strings.ToLower(p)]; !ok || p < prev {
				mine[strings.ToLower(p)] = p
			}
		}
	}
	if len(mine) == 0 {
		return
	}
	for p, f := range want.Files {
		if found, ok := mine[strings.ToLower(p)]; ok {
			taken.Add(f.Skill, p, found)
		}
	}
}

// cutOffProblems refuses a plan that would delete generated files of skills an
// input file declared in the version last applied and, now a strict prefix of it,
// no longer declares: the shorter file looks cut off mid-save. Such a file that
// deletes nothing (an edit that removed a comment or a capability without a skill)
// is applied like any other, as are deletes it has no part in.
func cutOffProblems(in Inputs, p plan.Plan) registry.Problems {
	var ps registry.Problems
	for _, cut := range in.cutOffs {
		var deletes []string
		for _, c := range p.Changes {
			if c.Action == plan.Delete && cut.Blames(c.Owner) {
				deletes = append(deletes, c.Path)
			}
		}
		if len(deletes) > 0 {
			ps = append(ps, cut.Problem(deletes))
		}
	}
	return ps
}

// ReconcileOnce is one --once pass. It plans without the workspace lock and, only
// when there is something to write (changes, or a new record of the sources in
// state.AppliedFile), takes the lock (waiting up to wait for another writer)
// and runs again under it: a pass with nothing to write, because all is in sync or
// the inputs are invalid, touches nothing at all, not even the lock. A plan that
// deletes waits first, within the same wait, for the inputs to settle (see
// settle.go), so a file being saved as the pass runs never prunes; deletes still
// waiting at the end are not applied, and the pass fails saying so.
func ReconcileOnce(req Request, wait time.Duration) Outcome {
	if out, ok := fromIndex(req); ok {
		if req.Log != nil {
			req.Log.Debug("nothing changed since the last pass that found nothing to do", "index", state.IndexFile)
		}
		return out
	}
	if req.Check {
		// A check writes nothing (it runs on a system that refuses writes), so it
		// makes no index: it reads one a --once pass left.
		return reconcile(pass{Request: req}, nil)
	}
	began := time.Now()
	var seen seenTargets
	deadline := time.Now().Add(wait)
	run := pass{Request: req, history: &settling{}}
	planOnly := run
	planOnly.Check = true
	var out Outcome
	var passBegan time.Time
	for {
		seen = seenTargets{}
		passBegan = time.Now()
		out = reconcileKeeping(planOnly, nil, seen.keep)
		if len(out.Problems) > 0 || out.Err != nil || out.Plan.Refused != "" || (out.Plan.Pending() == 0 && !out.recordStale() && !out.shortensList()) {
			writeIndex(req, out, &seen, began)
			return out
		}
		if out.Plan.Count(plan.Delete) == 0 {
			break
		}
		until, why := req.settleAt(out.Inputs, out.HandWritten)
		if !time.Now().Before(until) || until.After(deadline) {
			break
		}
		if req.Log != nil {
			req.Log.Info("waiting for the inputs to settle before deleting", "reason", why, "waitMs", time.Until(until).Milliseconds(), "deletes", out.Plan.Count(plan.Delete))
		}
		time.Sleep(time.Until(until))
	}
	scanned, loaded := stampScan(req, out.Inputs, &seen, passBegan), stampLoad(req, out.Inputs, passBegan)
	lock, err := state.Acquire(req.System, req.Root, max(time.Until(deadline), 0))
	var problems registry.Problems
	if errors.As(err, &problems) {
		out.Problems = problems
		return out
	}
	if err != nil {
		out.Err = err
		return out
	}
	defer lock.Release()
	// Under the lock the plan stands if neither the inputs nor anything the scan
	// read changed meanwhile; else the workspace is scanned again, and the inputs
	// are loaded, validated and rendered again only if a file they came from
	// changed. Their stamps tell that without reading them again, unless one
	// is too new to (an input saved as the pass began).
	switch {
	case !stampsHold(req, out.Inputs, loaded, loadKey) && !out.Inputs.unchanged():
		out = reconcile(run, nil)
	case stampsHold(req, out.Inputs, scanned, scanKey):
		out = applyPlan(run, out)
	default:
		out = reconcile(run, &out.Inputs)
	}
	if len(out.Deferred) > 0 {
		out.Err = &UnsettledError{Deletes: len(out.Deferred), Why: out.SettleWhy, Settle: req.Settle, Err: out.Err}
	}
	return out
}

// targetsByDir is every known target, enabled or not (so that files generated for a
// target since disabled are found and pruned as orphans), in the order of their
// directories, which is the order of the paths in a plan.
func targetsByDir() []string {
	var targets []string
	for _, t := range clients.Targets {
		targets = append(targets, t.Name)
	}
	sort.Slice(targets, func(i, j int) bool { return clients.Dir(targets[i]) < clients.Dir(targets[j]) })
	return targets
}
