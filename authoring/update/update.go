package update

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/skillsync/skillsync/controller/apply"
	"github.com/skillsync/skillsync/controller/state"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// Transport resolves a source to what pins it now (a lock entry without its
// skills' digests) and reads it as pinned.
type Transport interface {
	registry.SourceReader
	Resolve(src registry.RemoteSource) (registry.LockedSource, error)
}

// Change is what an update does to one source.
type Change struct {
	Source string
	// Old and New are the commits before and after; Old is empty for a source
	// the lock did not name as declared, New for one no longer declared.
	Old, New string
	Ref      string
	// Index says the source is a discovery index: Old and New are its
	// digests, and it has no ref.
	Index bool
	// Added, Removed and Changed name skills, and registry files by their
	// paths; Kept counts those the same.
	Added, Removed, Changed []string
	Kept                    int
	// Held says why the source is kept as the lock pins it though its ref
	// moved: the commit it names now is within the cooldown.
	Held string
}

// Empty tells whether the change leaves the source as the lock has it.
func (c Change) Empty() bool {
	return c.Old == c.New && len(c.Added)+len(c.Removed)+len(c.Changed) == 0
}

// Resolve resolves the sources of reg named in names (all when none) through
// t and returns the lock that pins them, every other declared source kept as
// old pins it and any source no longer declared dropped, with the change to
// each source. A source that cannot be resolved or read is an error; so is a
// lock the workspace would not load with (a skill directory it could not hold,
// a skill it would refuse), as Problems that name files.
func Resolve(reg *registry.Registry, old registry.Lock, names []string, t Transport) (registry.Lock, []Change, error) {
	specs := reg.Config.Spec.Sources
	for _, n := range names {
		if !slices.ContainsFunc(specs, func(s registry.RemoteSource) bool { return s.Name == n }) {
			return registry.Lock{}, nil, fmt.Errorf("%s declares no source %s", reg.ConfigFile, n)
		}
	}
	var next registry.Lock
	var changes []Change
	var problems registry.Problems
	for _, src := range specs {
		before, had := old.Named(src.Name)
		if len(names) > 0 && !slices.Contains(names, src.Name) {
			if had {
				next.Sources = append(next.Sources, before)
			}
			continue
		}
		locked, err := t.Resolve(src)
		var tooRecent *registry.TooRecentError
		if errors.As(err, &tooRecent) && had && before.Declares(src) {
			// The ref moved within the cooldown: the source stays where the
			// lock pins it, and the others move.
			next.Sources = append(next.Sources, before)
			c := compare(src.Name, src.Version(), before, before)
			c.Held = tooRecent.Error()
			changes = append(changes, c)
			continue
		}
		if err != nil {
			return registry.Lock{}, nil, fmt.Errorf("%s: source %s: %w", reg.SourceAt(src.Name), src.Name, err)
		}
		files, err := t.ReadSource(src, locked)
		if errors.Is(err, registry.ErrNoFolder) {
			problems = append(problems, registry.Problem{Pos: reg.SourceAt(src.Name, "path"), Message: fmt.Sprintf("source %s has no folder %s at %s", src.Name, src.Path, locked.PinLabel()),
				Hint: "check path against the repository: the folder, from its root, that holds the skill directories"})
			continue
		}
		if err != nil {
			return registry.Lock{}, nil, fmt.Errorf("%s: source %s: %w", reg.SourceAt(src.Name), src.Name, err)
		}
		sums, ps := registry.SourceSkills(src, files)
		problems = append(problems, ps...)
		documents, docProblems := registry.SourceDocuments(src, files, func(j int) registry.Position {
			return reg.SourceAt(src.Name, "registry", strconv.Itoa(j))
		})
		problems = append(problems, docProblems...)
		if len(ps)+len(docProblems) == 0 && len(sums)+len(documents) == 0 {
			where, hint := " in "+orRoot(src.Path), "path names the folder that holds the skill directories, not a skill directory itself; take some of them with include"
			if src.Git == "" {
				where, hint = "", "check that this is the artifact meant: it holds no skill"
			}
			problems = append(problems, registry.Problem{Pos: reg.SourceAt(src.Name, "path"), Message: fmt.Sprintf("source %s holds no skill directory (a folder with a SKILL.md)%s at %s", src.Name, where, locked.PinLabel()),
				Hint: hint})
			continue
		}
		locked.Skills = map[string]string{}
		for name, sum := range sums {
			locked.Skills[name] = registry.SkillDigest(sum)
		}
		locked.Registry, locked.Documents = slices.Clone(src.Registry), documents
		// The lock pins the artifacts of the skills it takes, and no others.
		for name := range locked.Artifacts {
			if _, ok := sums[name]; !ok {
				delete(locked.Artifacts, name)
			}
		}
		next.Sources = append(next.Sources, locked)
		changes = append(changes, compare(src.Name, src.Version(), before, locked))
	}
	if len(problems) > 0 {
		return registry.Lock{}, nil, problems.Sorted()
	}
	// A lock that would not read back (one beyond what a registry document may
	// hold), or that the workspace would refuse (a skill's front matter that
	// names another skill, a name a client reserves), is not written.
	lockFile := reg.InConfigDir(registry.LockName)
	if _, ps := registry.ParseLock(lockFile, registry.FormatLock(next)); len(ps) > 0 {
		return registry.Lock{}, nil, fmt.Errorf("the lock would not read back (%s); take fewer skills with include", ps[0].Message)
	}
	if _, err := registry.LoadWithLock(reg.System(), reg.Root, reg.ConfigFile, t, next); err != nil {
		return registry.Lock{}, nil, err
	}
	for _, gone := range old.Sources {
		if !slices.ContainsFunc(specs, func(s registry.RemoteSource) bool { return s.Name == gone.Name }) {
			changes = append(changes, compare(gone.Name, gone.Ref, gone, registry.LockedSource{Name: gone.Name}))
		}
	}
	return next, changes, nil
}

func orRoot(p string) string {
	if p == "" {
		return "the repository's root"
	}
	return p
}

func compare(name, ref string, before, after registry.LockedSource) Change {
	c := Change{Source: name, Old: before.Pin(), New: after.Pin(), Ref: ref, Index: before.Index != "" || after.Index != ""}
	// The skills by name, then the registry files by path.
	c.tally(before.Skills, after.Skills)
	c.tally(before.Documents, after.Documents)
	return c
}

// tally adds to c what moving from the digests before to those after adds,
// changes, removes and keeps.
func (c *Change) tally(before, after map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(after)) {
		was, ok := before[k]
		switch {
		case !ok:
			c.Added = append(c.Added, k)
		case was != after[k]:
			c.Changed = append(c.Changed, k)
		default:
			c.Kept++
		}
	}
	for _, k := range slices.Sorted(maps.Keys(before)) {
		if _, ok := after[k]; !ok {
			c.Removed = append(c.Removed, k)
		}
	}
}

// ReadLock reads the lock of the workspace at root, rel to it: its bytes, nil
// when there is none, and what it says.
func ReadLock(sys workspacefs.System, root, rel string) ([]byte, registry.Lock, error) {
	r, err := sys.Open(root)
	if err != nil {
		return nil, registry.Lock{}, err
	}
	defer r.Close()
	data, err := r.ReadRegular(rel, 16<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, registry.Lock{}, nil
	}
	if err != nil {
		return nil, registry.Lock{}, fmt.Errorf("read %s: %w", rel, workspacefs.Cause(err))
	}
	lock, ps := registry.ParseLock(rel, data)
	if len(ps) > 0 {
		return data, registry.Lock{}, ps
	}
	return data, lock, nil
}

// WriteLock writes lock at rel, replacing old, what ReadLock found there (nil:
// nothing); a lock changed since it was read is kept, and is an error. The lock
// written is recorded as meant, so that a lock shorter than the one last applied
// (a skill dropped from the end) is not taken for one cut off mid-save.
func WriteLock(sys workspacefs.System, root, config, rel string, old []byte, lock registry.Lock) error {
	if err := writeLock(sys, root, rel, old, lock); err != nil {
		return err
	}
	if _, err := state.Accept(sys, root, config, []string{rel}); err != nil {
		return fmt.Errorf("wrote %s, but could not record it as meant: %w; run skillsync accept %s", rel, err, rel)
	}
	return nil
}

func writeLock(sys workspacefs.System, root, rel string, old []byte, lock registry.Lock) error {
	w, err := apply.OpenWorkspace(sys, root)
	if err != nil {
		return err
	}
	defer w.Close()
	content := registry.FormatLock(lock)
	if old == nil {
		_, err := w.CreateAll([]apply.NewFile{{Path: rel, Content: content}})
		return err
	}
	// The lock carries no banner: it is the team's, committed, and update is
	// asked to move it, as forget is asked to edit skillsync.yaml.
	if err := w.Edit(rel, sha256.Sum256(old), content); err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	return nil
}

// FileChange is one file an update changes: its path, skill/file, and its
// bytes before and after, nil on the side it is missing.
type FileChange struct {
	Path     string
	Old, New []byte
}

// FileChanges are the files that moving the source from before to after
// changes, in the skills c says are added, changed or removed, read through t
// (from its cache when it holds them). Each side is read only as verified for
// signers (those the source must be signed by); the old side, for those of
// them the old lock recorded a signature by, as it was taken then.
func FileChanges(c Change, before, after registry.LockedSource, signers []registry.RequiredSigner, t Transport) ([]FileChange, error) {
	skills := slices.Concat(c.Added, c.Changed, c.Removed)
	if len(skills) == 0 {
		return nil, nil
	}
	// A registry file and a file of a skill directory may have one path
	// (the first from the repository's root, the second from the source's
	// folder): they are told apart, so that neither stands for the other.
	type file struct {
		document bool
		path     string
	}
	read := func(at registry.LockedSource) (map[file][]byte, error) {
		out := map[file][]byte{}
		if at.Pin() == "" {
			return out, nil
		}
		src := registry.RemoteSource{Name: at.Name, Git: at.Git, Index: at.Index, OCI: at.OCI, Ref: at.Ref, Path: at.Path, Registry: at.Registry}
		for _, s := range signers {
			if _, recorded := at.Signatures[s.Name()]; recorded || at.Pin() == after.Pin() {
				src.Signers = append(src.Signers, s)
			}
		}
		files, err := t.ReadSource(src, at)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if f.Dir || f.Link || f.Other {
				continue
			}
			skill, _, _ := strings.Cut(f.Path, "/")
			if (f.Document && slices.Contains(skills, f.Path)) || (!f.Document && slices.Contains(skills, skill)) {
				out[file{f.Document, f.Path}] = f.Data
			}
		}
		return out, nil
	}
	old, err := read(before)
	if err != nil {
		return nil, fmt.Errorf("read source %s as the lock pins it: %w", c.Source, err)
	}
	now, err := read(after)
	if err != nil {
		return nil, fmt.Errorf("read source %s: %w", c.Source, err)
	}
	keys := map[file]bool{}
	for k := range old {
		keys[k] = true
	}
	for k := range now {
		keys[k] = true
	}
	sorted := slices.SortedFunc(maps.Keys(keys), func(a, b file) int {
		if a.document != b.document {
			return map[bool]int{false: -1, true: 1}[a.document]
		}
		return strings.Compare(a.path, b.path)
	})
	var out []FileChange
	for _, k := range sorted {
		o, inOld := old[k]
		n, inNew := now[k]
		if inOld && inNew && string(o) == string(n) {
			continue
		}
		fc := FileChange{Path: k.path}
		if inOld {
			fc.Old = append([]byte{}, o...)
		}
		if inNew {
			fc.New = append([]byte{}, n...)
		}
		out = append(out, fc)
	}
	return out, nil
}
