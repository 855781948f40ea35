package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/internal/printable"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// SourceReader reads a source as the lock pins it (at): every file and folder
// of its skill directories, paths relative to the folder that holds them (a git
// source's path). It is the one way a load reaches a source, so that the
// registry knows no transport.
type SourceReader interface {
	ReadSource(src RemoteSource, at LockedSource) ([]SourceFile, error)
}

// SourceFile is one entry a source holds: a file, a folder, a symlink (Link)
// or anything else (Other, such as a git submodule), which the walk of a skill
// directory refuses as it does on disk.
type SourceFile struct {
	Path string // slash-separated, relative to the source's folder
	// Document marks a registry file the source's registry patterns take:
	// its Path is relative to the repository's root (the artifact's, for
	// OCI), and it is no part of the skill directories.
	Document    bool
	Dir         bool
	Link, Other bool
	Executable  bool
	Data        []byte
}

// SourceError is a source that could not be read: the load fails, writing and
// pruning nothing, and a watcher tries again later.
type SourceError struct {
	Pos    Position // the source's declaration
	Source string
	Err    error
}

func (e *SourceError) Error() string {
	return e.Pos.String() + ": " + fmt.Sprintf("cannot read source %s: %v (nothing is written or pruned until it can be read)", e.Source, e.Err)
}

func (e *SourceError) Unwrap() error { return e.Err }

// SourceOrigin is where a skill from a source came from.
type SourceOrigin struct {
	Source string // the source's name
	// Git and Commit, Index, or OCI and Digest are the source and what pins
	// it.
	Git, Commit, Index, OCI, Digest string
	Dir                             string // the skill's folder in the source
	// SkillDigest is the digest of the skill's directory, as the lock records
	// it (SkillDigest).
	SkillDigest string
	// Signatures maps each signer the source is signed by, and was verified
	// for, to its signature's digest, as the lock records it.
	Signatures map[string]string
}

// ValidSkillName tells whether name is one a skill can have.
func ValidSkillName(name string) bool {
	return len(name) <= MaxNameLength && isSkillName(name)
}

// ValidSourcePath tells whether p can name a file of a source: a path inside it
// (fs.ValidPath) without a backslash that prints as itself on one line
// (printable.OneLine).
func ValidSourcePath(p string) bool {
	return p != "." && fs.ValidPath(p) && !strings.Contains(p, "\\") && printable.OneLine(p)
}

// TakesDocument tells whether the file p of src (a path from the root of its
// repository or artifact) is one of its registry documents: whether a pattern
// of src.Registry matches it.
func (src RemoteSource) TakesDocument(p string) bool {
	for _, pattern := range src.Registry {
		if ok, _ := path.Match(pattern, p); ok {
			return true
		}
	}
	return false
}

// cleanSourcePath is a source's path as a folder of the repository, "" for its
// root.
func cleanSourcePath(p string) string {
	return strings.Trim(path.Clean("/"+p), "/")
}

// sourceAt names a file of a source in messages: the source, then its path in
// the repository.
func sourceAt(src RemoteSource, rel string) string {
	return src.Name + ":" + path.Join(cleanSourcePath(src.Path), rel)
}

// lockedSources adds the skills of every source skillsync.yaml declares, as
// skillsync.lock pins them, read through l.sources; with no reader, the
// sources are left out (the watcher's first listing of what to watch, adopt and
// the profile commands need none of them).
func (l *loader) lockedSources(reg *Registry) {
	specs := reg.Config.Spec.Sources
	if len(specs) == 0 {
		l.lockOfNoSources(reg)
		return
	}
	// The lock is an input even when the sources are not read: a watcher
	// watches it from its first load.
	lockFile := reg.InConfigDir(LockName)
	reg.lockFile = lockFile
	if l.lock != nil {
		if l.checkSources(reg) && l.sources != nil {
			l.readLocked(reg, *l.lock)
		}
		return
	}
	data, err := l.r.ReadFile(lockFile, maxInputSize)
	if err != nil && l.failed(lockFile, err) {
		return
	}
	if err == nil {
		// Read even when the sources are not: a lock cut off mid-save is found
		// as any input is, and accept takes it.
		reg.Sources[lockFile] = SourceOf(data)
	}
	if !l.checkSources(reg) || l.sources == nil {
		return
	}
	if errors.Is(err, fs.ErrNotExist) {
		l.add(Problem{Pos: itemAt(reg.config, 0, "spec", "sources").Position(), Message: fmt.Sprintf("%s is missing: the sources are not resolved yet", lockFile),
			Hint: `run "skillsync update" to resolve them and write it, then commit it`})
		return
	}
	if err != nil {
		l.add(Problem{Pos: Position{File: lockFile}, Message: "cannot read the lock: " + workspacefs.Cause(err).Error(), Hint: "it is a readable regular file beside " + reg.ConfigFile})
		return
	}
	lock, ps := ParseLock(lockFile, data)
	if len(ps) > 0 {
		l.add(ps...)
		return
	}
	l.readLocked(reg, lock)
}

// lockOfNoSources checks a skillsync.lock beside a skillsync.yaml that
// declares no source: an input as any lock is, and, when the sources are read,
// like any lock it may pin only sources declared, so one left from sources
// since removed is a problem, as it is when one source of several is removed.
func (l *loader) lockOfNoSources(reg *Registry) {
	if l.lock != nil {
		return
	}
	lockFile := reg.InConfigDir(LockName)
	data, err := l.r.ReadFile(lockFile, maxInputSize)
	switch {
	case errors.Is(err, fs.ErrNotExist) || err != nil && l.failed(lockFile, err):
		return
	case err != nil && l.sources != nil:
		l.add(Problem{Pos: Position{File: lockFile}, Message: "cannot read the lock: " + workspacefs.Cause(err).Error(), Hint: "it is a readable regular file beside " + reg.ConfigFile})
		return
	case err != nil:
		return
	}
	reg.lockFile = lockFile
	reg.Sources[lockFile] = SourceOf(data)
	if l.sources == nil {
		return
	}
	lock, ps := ParseLock(lockFile, data)
	l.add(ps...)
	for _, locked := range lock.Sources {
		l.add(Problem{Pos: Position{File: lockFile}, Message: fmt.Sprintf("the lock names source %s, which %s no longer declares", locked.Name, reg.ConfigFile),
			Hint: `run "skillsync update" to write the lock again`})
	}
}

// readLocked adds the skills and registry documents of every source as the
// lock pins them.
func (l *loader) readLocked(reg *Registry, lock Lock) {
	specs, lockFile := reg.Config.Spec.Sources, reg.lockFile
	for _, locked := range lock.Sources {
		if !slices.ContainsFunc(specs, func(s RemoteSource) bool { return s.Name == locked.Name }) {
			l.add(Problem{Pos: Position{File: lockFile}, Message: fmt.Sprintf("the lock names source %s, which %s no longer declares", locked.Name, reg.ConfigFile),
				Hint: `run "skillsync update" to write the lock again`})
		}
	}
	c := newSourceClaims(reg)
	for i, src := range specs {
		pos := itemAt(reg.config, i, "spec", "sources").Position()
		locked, ok := lock.Named(src.Name)
		if !ok || !locked.Declares(src) {
			l.add(Problem{Pos: pos, Message: fmt.Sprintf("source %s is not in %s as declared here", src.Name, lockFile),
				Hint: fmt.Sprintf(`run "skillsync update %s" to resolve it and review what changes`, src.Name)})
			continue
		}
		if reg.Pinned == nil {
			reg.Pinned = map[string]LockedSource{}
		}
		reg.Pinned[src.Name] = locked
		files, err := l.sources.ReadSource(src, locked)
		if err != nil {
			// No fault of the inputs (a host down, a cache without the commit
			// offline): the load fails, and a watcher tries again.
			if l.err == nil {
				l.err = &SourceError{Pos: pos, Source: src.Name, Err: err}
			}
			continue
		}
		tree := newMemTree(files)
		for _, name := range slices.Sorted(maps.Keys(locked.Skills)) {
			if !c.claim(l, "skill", name, i, pos) {
				continue
			}
			if s, ok := l.sourceSkill(reg, tree, src, locked, name, pos); ok {
				s.source = i + 1
				reg.Skills = append(reg.Skills, s)
			}
		}
		l.sourceDocuments(reg, files, src, locked, i, pos, c)
	}
}

// sourceSkill reads the skill name of src from tree and checks it is what the
// lock says.
func (l *loader) sourceSkill(reg *Registry, tree *memTree, src RemoteSource, locked LockedSource, name string, pos Position) (Skill, bool) {
	d, err := tree.Sub(name)
	if err != nil {
		l.add(Problem{Pos: pos, Message: fmt.Sprintf("source %s has no skill directory %s at %s", src.Name, sourceAt(src, name), locked.PinLabel()),
			Hint: fmt.Sprintf(`run "skillsync update %s" to resolve it again`, src.Name)})
		return Skill{}, false
	}
	at := sourceAt(src, name)
	read, err := walkTree(d, at)
	var problem *dirProblem
	if errors.As(err, &problem) {
		l.add(problem.Problems...)
		return Skill{}, false
	}
	if err != nil {
		l.add(Problem{Pos: pos, Message: fmt.Sprintf("cannot read %s: %v", at, err)})
		return Skill{}, false
	}
	if want, _ := parseDigest(locked.Skills[name]); read.sum != want {
		l.add(Problem{Pos: pos, Message: fmt.Sprintf("skill %s of source %s is %s at %s, not %s as %s says", name, src.Name, SkillDigest(read.sum), locked.PinLabel(), locked.Skills[name], reg.lockFile),
			Hint: "the lock was edited by hand or the commit is not the one it was written from; run \"skillsync update " + src.Name + "\" and review the change"})
		return Skill{}, false
	}
	s := Skill{Name: name, Spec: SkillSpec{Dir: at}, doc: reg.config,
		Origin: &SourceOrigin{Source: src.Name, Git: src.Git, Commit: locked.Commit, Index: src.Index, OCI: src.OCI, Digest: locked.Digest, Dir: path.Join(cleanSourcePath(src.Path), name),
			SkillDigest: locked.Skills[name], Signatures: signedBy(src, locked)}}
	l.fillFromRead(&s, at, read)
	raw := dirFindings(at, read)
	skillFile := at + "/SKILL.md"
	found := append(raw, escaped(valueFindings(skillFile, Position{File: skillFile}, s.Spec), raw)...)
	ok, let := l.blockFindings(src, pos, found)
	if !ok {
		return Skill{}, false
	}
	s.Allowed = let
	return s, true
}

// signedBy is the signature locked records for each signer src must be
// signed by: those the read verified.
func signedBy(src RemoteSource, locked LockedSource) map[string]string {
	if len(src.Signers) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, name := range SignerNames(src.Signers) {
		out[name] = locked.Signatures[name]
	}
	return out
}

// checkSources checks what skillsync.yaml says of each source, and says
// whether it can be read.
func (l *loader) checkSources(reg *Registry) bool {
	ok := true
	names := map[string]bool{}
	for i, src := range reg.Config.Spec.Sources {
		at := func(key string) Position { return reg.config.at("spec", "sources", fmt.Sprint(i), key).Position() }
		bad := func(pos Position, msg, hint string) {
			l.add(Problem{Pos: pos, Message: msg, Hint: hint})
			ok = false
		}
		switch {
		case !isSkillName(src.Name):
			bad(at("name"), fmt.Sprintf("source name %q is not a valid name", src.Name), "use "+skillNameRequirements)
		case names[src.Name]:
			bad(at("name"), fmt.Sprintf("source %s is declared twice", src.Name), "give each source a name of its own")
		}
		names[src.Name] = true
		switch {
		case transports(src.Git, src.Index, src.OCI) > 1:
			bad(at("name"), fmt.Sprintf("source %s has more than one of git, index and oci", src.Name), "a source is a git repository, a discovery index or an OCI artifact; declare one source for each")
		case src.Index != "":
			if err := CheckIndexURL(src.Index); err != nil {
				bad(at("index"), fmt.Sprintf("source %s: %v", src.Name, err), "set index: to the https:// URL of the index.json")
			}
		case src.OCI != "":
			if _, err := ParseOCIReference(src.OCI); err != nil {
				bad(at("oci"), fmt.Sprintf("source %s: %v", src.Name, err), "set oci: to the artifact skillsync publish pushed, such as registry.example.com/acme/skills:1.0")
			}
		default:
			if err := CheckGitRemote(src.Git); err != nil {
				bad(at("git"), fmt.Sprintf("source %s: %v", src.Name, err), "set git: to the repository's URL, as git clone takes it, index: to a discovery index's, or oci: to an OCI artifact's")
			}
		}
		if src.Git == "" && (src.Ref != "" || src.Path != "") {
			bad(at("name"), fmt.Sprintf("source %s is not a git repository, so it has no ref or path", src.Name), "leave ref and path out; they are a git source's (an OCI source names its tag in oci:)")
		}
		if p := src.Path; strings.HasPrefix(p, "/") || slices.Contains(strings.Split(p, "/"), "..") || strings.Contains(p, "\\") {
			bad(at("path"), fmt.Sprintf("path %q of source %s is not a folder inside the repository", p, src.Name), "give a path relative to the repository's root, with / between folders")
		}
		for _, pattern := range src.Registry {
			if _, err := path.Match(pattern, ""); err != nil || pattern == "" || strings.HasPrefix(pattern, "/") || slices.Contains(strings.Split(pattern, "/"), "..") || strings.Contains(pattern, "\\") {
				bad(at("registry"), fmt.Sprintf("registry pattern %q of source %s is not a pattern of files inside the source", pattern, src.Name), "give patterns relative to the root of the repository or artifact, with / between folders, such as registry/*.yaml")
			}
		}
		if len(src.Registry) > 0 && src.Index != "" {
			bad(at("registry"), fmt.Sprintf("source %s is an index, which holds skills and no registry documents", src.Name), "leave registry out; a git repository or an OCI artifact can carry registry documents")
		}
		for _, a := range src.Allow {
			if !slices.Contains(Findings, a.Finding) {
				bad(at("allow"), fmt.Sprintf("allow of source %s names the finding %q", src.Name, a.Finding), "name one of "+strings.Join(Findings, ", "))
			}
			if _, err := path.Match(a.Path, ""); err != nil {
				bad(at("allow"), fmt.Sprintf("allow of source %s has the path pattern %q, which is malformed", src.Name, a.Path), "give a path.Match pattern, such as skills/*/scripts/*")
			}
		}
		seen := map[string]bool{}
		for _, name := range src.Include {
			switch {
			case !isSkillName(name):
				bad(at("include"), fmt.Sprintf("include of source %s names %q, not a valid skill name", src.Name, name), "use "+skillNameRequirements)
			case seen[name]:
				bad(at("include"), fmt.Sprintf("include of source %s names %s twice", src.Name, name), "name each skill once")
			}
			seen[name] = true
		}
	}
	if trust := reg.Config.Spec.Trust; trust != nil {
		if len(trust.Sources) == 0 {
			l.add(Problem{Pos: reg.config.at("spec", "trust").Position(), Message: "spec.trust lists no location sources may come from",
				Hint: "list where sources may come from under spec.trust.sources, or leave spec.trust out to take the organisation's policy as it is"})
			ok = false
		}
		for i, pattern := range trust.Sources {
			if _, err := path.Match(pattern, ""); err != nil || pattern == "" {
				l.add(Problem{Pos: reg.config.at("spec", "trust", "sources", fmt.Sprint(i)).Position(), Message: fmt.Sprintf("%q is not a pattern of source locations", pattern),
					Hint: "write host/path, such as github.com/acme or registry.example.com/acme/*"})
				ok = false
			}
		}
	}
	policy, policyOK := l.orgPolicy()
	if !policyOK {
		return false
	}
	if ps := reg.Untrusted(policy); len(ps) > 0 {
		l.add(ps...)
		ok = false
	}
	read := func(file string) ([]byte, error) {
		data, err := l.r.ReadFile(file, maxSignerFileSize)
		if err != nil {
			return nil, workspacefs.Cause(err)
		}
		// A key is an input: a watcher follows it.
		reg.Sources[file] = SourceOf(data)
		return data, nil
	}
	if ps := reg.ApplyTrust(policy, read); len(ps) > 0 {
		l.add(ps...)
		ok = false
	}
	return ok
}

// orgPolicy is the organisation's policy when the load reads through a
// PolicedReader (nil when there is none), read once a load, and whether it
// could be read: one that cannot is a problem or the load's failure.
func (l *loader) orgPolicy() (*Policy, bool) {
	if l.policyRead {
		return l.policy, l.policyOK
	}
	l.policyRead, l.policyOK = true, true
	pr, isPoliced := l.sources.(PolicedReader)
	if !isPoliced {
		return nil, true
	}
	policy, err := pr.Policy()
	var ps Problems
	switch {
	case errors.As(err, &ps):
		l.add(ps...)
		l.policyOK = false
	case err != nil:
		if l.err == nil {
			l.err = err
		}
		l.policyOK = false
	}
	l.policy = policy
	return l.policy, l.policyOK
}

// checkMCPTrust refuses the published skills of every MCP source when
// spec.trust or the organisation's policy says MCP-published skills are not
// taken.
func (l *loader) checkMCPTrust(reg *Registry) {
	if !slices.ContainsFunc(reg.Config.Spec.MCPSources, func(src MCPSource) bool { return src.PublishedSkills != nil }) {
		return
	}
	policy, policyOK := l.orgPolicy()
	if !policyOK {
		return
	}
	refused := reg.RefusedMCPSkills(policy)
	for _, name := range slices.Sorted(maps.Keys(refused)) {
		l.add(refused[name])
	}
}

// RefusedMCPSkills are, by MCP source, the sources whose publishedSkills
// policy (the organisation's, when not nil) or spec.trust does not let the
// workspace take, each a problem at its publishedSkills.
func (reg *Registry) RefusedMCPSkills(policy *Policy) map[string]Problem {
	out := map[string]Problem{}
	for i, src := range reg.Config.Spec.MCPSources {
		if src.PublishedSkills == nil {
			continue
		}
		at := reg.config.at("spec", "mcpSources", fmt.Sprint(i), "publishedSkills").Position()
		switch {
		case policy != nil && !policy.Spec.TakesMCPSkills():
			out[src.Name] = Problem{Pos: at, Message: fmt.Sprintf("MCP source %s takes the skills its server publishes, which the organisation's policy (%s) does not allow", src.Name, policy.File),
				Hint: "remove publishedSkills; the server's tools can still be capabilities"}
		case reg.Config.Spec.Trust != nil && !reg.Config.Spec.Trust.TakesMCPSkills():
			out[src.Name] = Problem{Pos: at, Message: fmt.Sprintf("MCP source %s takes the skills its server publishes, which spec.trust.mcpSkills does not allow", src.Name),
				Hint: "remove publishedSkills, or take mcpSkills: false out of spec.trust"}
		}
	}
	return out
}

// maxSignerFileSize bounds a public key or trusted root read.
const maxSignerFileSize = 1 << 20

// memTree is a source's folder held in memory, as a skillTree.
type memTree struct {
	entries map[string][]workspacefs.Entry // by folder, "" for the root
	files   map[string]SourceFile
	at      string
}

func newMemTree(files []SourceFile) *memTree {
	t := &memTree{entries: map[string][]workspacefs.Entry{}, files: map[string]SourceFile{}}
	for _, f := range files {
		if f.Document {
			continue
		}
		dir, name := path.Split(f.Path)
		dir = strings.TrimSuffix(dir, "/")
		typ := fs.FileMode(0)
		switch {
		case f.Dir:
			typ = fs.ModeDir
			if _, ok := t.entries[f.Path]; !ok {
				t.entries[f.Path] = nil
			}
		case f.Link:
			typ = fs.ModeSymlink
		case f.Other:
			typ = fs.ModeIrregular
		}
		t.entries[dir] = append(t.entries[dir], workspacefs.Entry{Name: name, Type: typ})
		t.files[f.Path] = f
	}
	for _, es := range t.entries {
		slices.SortFunc(es, func(a, b workspacefs.Entry) int { return strings.Compare(a.Name, b.Name) })
	}
	return t
}

func (t *memTree) Entries() ([]workspacefs.Entry, error) { return t.entries[t.at], nil }

func (t *memTree) Sub(name string) (skillTree, error) {
	p := path.Join(t.at, name)
	if f, ok := t.files[p]; !ok || !f.Dir {
		return nil, fs.ErrNotExist
	}
	return &memTree{entries: t.entries, files: t.files, at: p}, nil
}

func (t *memTree) ReadRegular(name string, limit int64) ([]byte, error) {
	f, ok := t.files[path.Join(t.at, name)]
	if !ok || f.Dir || f.Link || f.Other {
		return nil, fs.ErrNotExist
	}
	if int64(len(f.Data)) > limit {
		return nil, workspacefs.ErrTooLarge
	}
	return f.Data, nil
}

func (t *memTree) Executable(name string) (bool, error) {
	return t.files[path.Join(t.at, name)].Executable, nil
}

func (t *memTree) Close() error { return nil }

// SourceSkills are the skills files of src hold, by name, each with the digest
// skillsync.lock records for it: every folder at the top of files that holds a
// SKILL.md, or those src includes. What a skill directory cannot hold is a
// problem at the file, and so is an included skill files lack.
func SourceSkills(src RemoteSource, files []SourceFile) (map[string][32]byte, Problems) {
	tree := newMemTree(files)
	var names []string
	if len(src.Include) > 0 {
		names = slices.Clone(src.Include)
	} else {
		top, _ := tree.Entries()
		for _, e := range top {
			if f, ok := tree.files[path.Join(e.Name, "SKILL.md")]; e.Type.IsDir() && ok && !f.Dir {
				names = append(names, e.Name)
			}
		}
	}
	skills := map[string][32]byte{}
	var problems Problems
	for _, name := range names {
		at := sourceAt(src, name)
		d, err := tree.Sub(name)
		if err != nil {
			problems = append(problems, Problem{Pos: Position{File: at}, Message: fmt.Sprintf("source %s has no skill directory %s", src.Name, name),
				Hint: "check include against the repository, or its path"})
			continue
		}
		if !isSkillName(name) {
			problems = append(problems, Problem{Pos: Position{File: at}, Message: fmt.Sprintf("the skill directory %s is not named as a skill can be", name),
				Hint: "use " + skillNameRequirements + "; leave it out with include"})
			continue
		}
		read, err := walkTree(d, at)
		var problem *dirProblem
		switch {
		case errors.As(err, &problem):
			problems = append(problems, problem.Problems...)
		case err != nil:
			problems = append(problems, Problem{Pos: Position{File: at}, Message: err.Error()})
		default:
			skills[name] = read.sum
		}
	}
	return skills, problems
}
