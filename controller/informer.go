package controller

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
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

// Informer keeps what a watcher learned of the workspace from pass to pass, as a
// Kubernetes informer keeps a cache that watch events keep current: the registry
// files decoded and checked (registry.Cache) and, for every entry of every target
// directory, what the last pass planned there (targetCache). A pass loads the
// inputs as any pass does, each file read and only the changed ones decoded, then
// reads and plans again only the entries that events named and those of the
// skills declared in a file that changed. What it cannot attribute (a watcher
// overflow, a target directory moved, the config or the active profile changed, a
// person's skill holding a declared name, a failed pass) and the periodic resync
// make the next pass a full one, which builds the cache again from scratch.
type Informer struct {
	decoded registry.Cache
	record  state.AppliedCache
	mu      sync.Mutex
	dirty   Dirty     // named by events since the last pass took them
	last    *baseline // what the last planned pass found; nil: the next pass is a full one
	history settling  // since when the inputs have read the same, and the last event seen in them
}

// NewInformer is an Informer whose registry cache takes the files it was not
// told of as unchanged.
func NewInformer() *Informer {
	inf := &Informer{}
	inf.decoded.TrustChanges()
	return inf
}

// InputChanged records that the input file or directory rel changed; removed says
// it was removed or renamed away.
func (inf *Informer) InputChanged(rel string, removed bool) {
	if inf != nil {
		inf.decoded.Changed(rel, removed)
	}
}

// Dirty is what events named since the last pass: entries of target
// directories, or everything.
type Dirty struct {
	all     bool
	entries map[string]map[string]bool // target directory → names in it
}

func (d *Dirty) add(dir, name string) {
	if d.entries == nil {
		d.entries = map[string]map[string]bool{}
	}
	if d.entries[dir] == nil {
		d.entries[dir] = map[string]bool{}
	}
	d.entries[dir][name] = true
}

func (d *Dirty) merge(o Dirty) {
	d.all = d.all || o.all
	for dir, names := range o.entries {
		for name := range names {
			d.add(dir, name)
		}
	}
}

// Note records that something changed at rel, a workspace-relative path.
func (inf *Informer) Note(rel string) {
	if inf == nil {
		return
	}
	dir, name, whole := clients.TargetEntry(rel)
	if dir == "" && !whole {
		return
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if whole {
		inf.dirty.all = true
		return
	}
	inf.dirty.add(dir, name)
}

// NoteAll makes the next pass a full one, which reads every input again.
func (inf *Informer) NoteAll() {
	if inf == nil {
		return
	}
	inf.decoded.ChangedAll()
	inf.mu.Lock()
	inf.dirty.all = true
	inf.mu.Unlock()
}

// Take hands over what events named since the last pass, for a pass to act on.
func (inf *Informer) Take() Dirty {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	d := inf.dirty
	inf.dirty = Dirty{}
	return d
}

// PutBack returns what a pass took and could not act on, for the next.
func (inf *Informer) PutBack(d Dirty) {
	inf.mu.Lock()
	inf.dirty.merge(d)
	inf.mu.Unlock()
}

// baseline is what the last planned pass found: what the inputs made of every
// skill, and what it planned in every target directory.
type baseline struct {
	context [32]byte
	files   map[string]declared
	targets []*targetCache // in the order of targetsByDir
}

// declared is what one registry file declared, as far as the files it makes go.
type declared struct {
	sum   [32]byte
	names []string // the skills it declares, as they made it into the registry
	// capabilities are what each capability skill of the file is made from, by
	// its name: a save of one capability in a file of a thousand plans that
	// capability's skill again, not the thousand.
	capabilities map[string][32]byte
	// bodies says it declares a skill whose body is another file: it counts as
	// changed at every pass.
	bodies bool
}

// declaredIn is what each registry file of reg declares. What each capability is
// made from is digested again only for the files whose bytes differ from those
// of last, the files of the pass before (nil for none).
func declaredIn(reg *registry.Registry, last map[string]declared) map[string]declared {
	out := make(map[string]declared, len(reg.Files))
	for _, f := range reg.Files {
		out[f] = declared{sum: reg.Sources[f].Sum}
	}
	for i := range reg.Capabilities {
		c := &reg.Capabilities[i]
		if c.Spec.Skill == nil {
			continue
		}
		f := c.File()
		d := out[f]
		d.names = append(d.names, c.Spec.Skill.Alias)
		if before, ok := last[f]; ok && before.sum == d.sum && before.capabilities != nil {
			d.capabilities = before.capabilities // the same bytes declare the same
		} else {
			if d.capabilities == nil {
				d.capabilities = map[string][32]byte{}
			}
			d.capabilities[c.Spec.Skill.Alias] = capabilitySum(c)
		}
		out[f] = d
	}
	for i := range reg.Skills {
		s := &reg.Skills[i]
		d := out[s.File()]
		d.names = append(d.names, s.Name)
		d.bodies = d.bodies || s.BodyPath != ""
		out[s.File()] = d
		if s.Dir != "" {
			// A skill directory is an input of its own: what it holds changes
			// its skill alone.
			out[skillDirKey+s.Dir] = declared{sum: s.DirSum(), names: []string{s.Name}}
		}
	}
	return out
}

// capabilitySum digests what a capability's skill is made from beside the
// context (contextOf), not where in its file it is: the bytes of its document
// where its file was read a document at a time, else its declaration as decoded.
func capabilitySum(c *registry.Capability) [32]byte {
	var made []byte
	if sum, ok := c.DocumentSum(); ok {
		made = sum[:]
	} else {
		spec, err := json.Marshal(c.Spec)
		if err != nil {
			// Not expected of decoded YAML; a sum no other pass has makes it changed.
			spec = []byte(err.Error())
		}
		made = spec
	}
	h := sha256.New()
	fmt.Fprintf(h, "%q %v\x00", c.ID, c.FromSource())
	h.Write(made)
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// skillDirKey starts the key a skill directory is declared under beside the
// registry files; no file name holds its NUL.
const skillDirKey = "dir\x00"

// changedNames are the skills declared, before or now, in a file that changed:
// of a file that declares only capabilities, those whose declaration changed.
func changedNames(before, now map[string]declared) map[string]bool {
	out := map[string]bool{}
	add := func(d declared) {
		for _, n := range d.names {
			out[n] = true
		}
	}
	for f, b := range before {
		n, ok := now[f]
		switch {
		case ok && n.sum == b.sum && !n.bodies && !b.bodies && slices.Equal(n.names, b.names):
		case ok && onlyCapabilities(b) && onlyCapabilities(n):
			for name, sum := range b.capabilities {
				if now, ok := n.capabilities[name]; !ok || now != sum {
					out[name] = true
				}
			}
			for name := range n.capabilities {
				if _, ok := b.capabilities[name]; !ok {
					out[name] = true
				}
			}
		default:
			add(b)
			add(n)
		}
	}
	for f, n := range now {
		if _, ok := before[f]; !ok {
			add(n)
		}
	}
	return out
}

// onlyCapabilities tells whether every skill d declares is a capability's.
func onlyCapabilities(d declared) bool {
	return !d.bodies && len(d.capabilities) == len(d.names)
}

// contextOf digests what every skill's files depend on beside its declaration:
// the config, the active profile and the one git commits, and the options.
func contextOf(in Inputs, opts plan.Options) [32]byte {
	h := sha256.New()
	config := in.Registry.Sources[in.Registry.ConfigFile].Sum
	h.Write(config[:])
	// The lock pins what the sources give, registry documents among them,
	// whose declarations no file of the workspace stands for: a new lock is
	// a full pass.
	lock := in.Registry.Sources[in.Registry.InConfigDir(registry.LockName)].Sum
	h.Write(lock[:])
	profile := func(p desired.Profile) {
		fmt.Fprintf(h, "%q", p.Name)
		for _, c := range slices.Sorted(maps.Keys(p.Capabilities)) {
			fmt.Fprintf(h, " %q", c)
		}
		h.Write([]byte{0})
	}
	profile(in.Profile)
	fmt.Fprintf(h, "%q\x00", in.Git.Mode)
	profile(in.Git.Declared)
	fmt.Fprintf(h, "%v %v", opts.Force, opts.AllowEmpty)
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// InputEvent records that the watcher saw an input change at, which holds back
// the deletes of the next passes until the inputs settle.
func (inf *Informer) InputEvent(at time.Time) {
	if inf != nil {
		inf.history.changed(at)
	}
}

// Reconcile runs one pass through the cache: a full one when it must, else one
// that reads and plans only what changed.
func (inf *Informer) Reconcile(r Request) Outcome {
	req := pass{Request: r, history: &inf.history, informer: inf}
	dirty := inf.Take()
	last := inf.last
	if last == nil || dirty.all {
		// A full pass reads every input file again too, whatever the events said.
		inf.decoded.ChangedAll()
		return inf.full(req, nil)
	}
	in, out, ok := loadFor(req, nil)
	if !ok {
		inf.PutBack(dirty)
		return out
	}
	if contextOf(in, req.Options) != last.context {
		return inf.full(req, &in)
	}
	real, err := workspacefs.RealPath(req.Root)
	if err != nil {
		inf.PutBack(dirty)
		out.Err = err
		return out
	}
	unwritten, err := state.ReadUnwritten(req.System, req.Root)
	if err != nil {
		inf.PutBack(dirty)
		out.Err = err
		return out
	}
	files := declaredIn(in.Registry, last.files)
	touched := touchedNames(last.targets, changedNames(last.files, files), dirty)
	if len(touched) > 0 && in.Git.Mode != "" {
		// A target's git files name the files of every skill in it: any change
		// may change them.
		for _, name := range gitfiles.Names {
			touched[name] = true
		}
	}
	// The cache is changed in place: a pass that stops half way drops it.
	inf.drop()
	scope := &Scope{}
	parts := make([]targetPart, len(last.targets))
	taken := desired.Taken{}
	declaring := in.Registry.WithSkillsNamed(touched)
	for i, tc := range last.targets {
		if len(touched) == 0 {
			break
		}
		if tc.blocked {
			return inf.full(req, &in)
		}
		have, err := observed.ScanSkillDirs(req.System, real, tc.dir, slices.Sorted(maps.Keys(touched)))
		if err != nil {
			out.Err = err
			return out
		}
		have = have.NotWrittenYet(unwritten)
		if len(have.Blocked) > 0 {
			return inf.full(req, &in)
		}
		scope.Read = append(scope.Read, have.Entries...)
		want := desired.BuildTargetInGit(declaring, in.Profile, in.Git, tc.target)
		findTaken(want, have, taken)
		parts[i] = targetPart{target: tc.target, want: want, have: have}
	}
	for i, tc := range last.targets {
		if len(touched) == 0 {
			break
		}
		p := parts[i]
		// A skill a person's file holds in one target is withheld from all, as in
		// a full pass: every target's entries of its name were read.
		p.want = p.want.WithholdTaken(taken)
		if in.Git.Mode != "" {
			p.want = p.want.WithGitFiles(in.Git, tc.target, tc.gitLines(touched, p.want))
		}
		p.plan = plan.Files(p.want, p.have, req.Options)
		tc.replace(touched, p)
	}
	last.files = files
	targeted := last.plan()
	// Only a full pass sees every listed path, so only it shortens the list.
	targeted.unwritten, targeted.listed = unwritten, len(unwritten)
	out = conclude(req, out, targeted)
	out.Scope = scope
	inf.settle(last, out)
	return out
}

// touchedNames are the names of the entries a pass reads and plans again in
// every target directory: the skills declared in a file that changed, the entries
// events named, and every entry that differs from one of these only in case. A
// name is read in all targets at once, since a person's skill of that name in any
// of them withholds the skill from all.
func touchedNames(targets []*targetCache, skills map[string]bool, dirty Dirty) map[string]bool {
	set := map[string]bool{}
	for n := range skills {
		set[n] = true
	}
	for _, names := range dirty.entries {
		for n := range names {
			set[n] = true
		}
	}
	for n := range set {
		lower := strings.ToLower(n)
		set[lower] = true
		for _, tc := range targets {
			for _, twin := range tc.folded[lower] {
				set[twin] = true
			}
		}
	}
	return set
}

// full runs a pass from scratch, with the inputs already loaded when loaded is
// not nil, and keeps what it found as the cache.
func (inf *Informer) full(req pass, loaded *Inputs) Outcome {
	inf.drop() // not held beside the cache the pass builds
	next := &baseline{}
	first := targetsByDir()[0]
	out := reconcileKeeping(req, loaded, func(p targetPart) {
		if p.target == first {
			next.targets = nil // planned again, a skill withheld from every target
		}
		next.targets = append(next.targets, newTargetCache(p))
	})
	out.Scope = &Scope{Full: true}
	if !out.Planned {
		inf.drop()
		return out
	}
	next.context, next.files = contextOf(out.Inputs, req.Options), declaredIn(out.Registry, nil)
	inf.settle(next, out)
	return out
}

// settle keeps next as what the last pass found, unless the pass failed: then
// the disk may hold anything, and the next pass is a full one. The entries the
// pass wrote to are read again by the next pass.
func (inf *Informer) settle(next *baseline, out Outcome) {
	if out.Err != nil {
		inf.drop()
		return
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	inf.last = next
	for _, a := range out.Applied {
		if dir, name, whole := clients.TargetEntry(a.Path); whole {
			inf.dirty.all = true
		} else if dir != "" {
			inf.dirty.add(dir, name)
		}
	}
}

func (inf *Informer) drop() {
	inf.mu.Lock()
	inf.last = nil
	inf.mu.Unlock()
}

// Scope is what a pass read of the target directories: all of them, or the
// entries listed.
type Scope struct {
	Full bool
	Read []string // workspace-relative entries of target directories
}

// plan puts together the plan of every target from its entries, in the order a
// full pass plans them.
func (b *baseline) plan() targetsPlan {
	var tp targetsPlan
	inSync := 0
	for _, tc := range b.targets {
		for i := range tc.entries {
			inSync += len(tc.entries[i].inSync)
		}
	}
	tp.plan.InSync = make([]string, 0, inSync)
	for _, tc := range b.targets {
		var changes []plan.Change
		var handWritten, escapes []string
		escapes = append(escapes, tc.escapes...)
		for i := range tc.entries {
			e := &tc.entries[i]
			tp.plan.InSync = append(tp.plan.InSync, e.inSync...)
			tp.wanted += int(e.wanted)
			if e.rare != nil {
				changes = append(changes, e.rare.changes...)
				handWritten = append(handWritten, e.rare.handWritten...)
				escapes = append(escapes, e.rare.escapes...)
			}
		}
		sort.SliceStable(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
		sort.Strings(handWritten)
		sort.Strings(escapes)
		tp.plan.Changes = append(tp.plan.Changes, changes...)
		tp.handWritten = append(tp.handWritten, handWritten...)
		tp.escapes = append(tp.escapes, escapes...)
		tp.withheld = append(tp.withheld, tc.withheld...)
	}
	return tp
}
