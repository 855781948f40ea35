package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/skillsync/skillsync/internal/parallel"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// ConfigName is the workspace configuration file at the root of every workspace.
const ConfigName = "skillsync.yaml"

// ErrNoWorkspace means no skillsync.yaml was found.
var ErrNoWorkspace = errors.New("no " + ConfigName + " found")

// FindRoot walks up from dir to the first directory holding skillsync.yaml, the way
// git finds its repository.
func FindRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		info, err := workspacefs.StatIn(d, ConfigName)
		if err == nil && info.Mode().IsRegular() {
			return d, nil
		}
		if workspacefs.OutOfResources(err) {
			return "", fmt.Errorf("look for %s in %s: %w", ConfigName, d, workspacefs.Explain(unwrapPath(err)))
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%w in %s or any parent directory (run skillsync init, or pass --workspace DIR)", ErrNoWorkspace, abs)
		}
	}
}

// Load reads skillsync.yaml under root and every registry document it names,
// through sys, and validates them. It returns Problems for anything malformed or
// invalid, all at once; a non-Problems error means the workspace could not be
// read at all. The registry reads its files again through sys.
func Load(sys workspacefs.System, root string) (*Registry, error) {
	return LoadCached(sys, root, nil)
}

// LoadCached is Load decoding only the registry files cache does not hold as
// they are now, and keeping in it what this load decoded; a nil cache decodes
// every file.
func LoadCached(sys workspacefs.System, root string, cache *Cache) (*Registry, error) {
	return LoadConfig(sys, root, ConfigName, cache)
}

// LoadConfig is LoadCached for a workspace whose config is the file config,
// relative to root, rather than root's own skillsync.yaml: the user workspace
// keeps its config in the user's config directory and its skills in the home
// directory. Every path the config names is relative to config's directory.
func LoadConfig(sys workspacefs.System, root, config string, cache *Cache) (*Registry, error) {
	return LoadReading(sys, root, config, cache, nil)
}

// LoadReading is LoadConfig with the skills of the sources skillsync.yaml
// declares, read through sources as skillsync.lock pins them; LoadConfig leaves
// them out.
func LoadReading(sys workspacefs.System, root, config string, cache *Cache, sources SourceReader) (*Registry, error) {
	return load(sys, root, config, cache, sources, nil)
}

// LoadWithLock is LoadReading with lock in place of skillsync.lock: what a
// workspace would be if lock were written, so that update writes no lock the
// workspace would refuse.
func LoadWithLock(sys workspacefs.System, root, config string, sources SourceReader, lock Lock) (*Registry, error) {
	return load(sys, root, config, nil, sources, &lock)
}

func load(sys workspacefs.System, root, config string, cache *Cache, sources SourceReader, lock *Lock) (*Registry, error) {
	real, err := workspacefs.RealPath(root)
	if workspacefs.OutOfResources(err) {
		return nil, fmt.Errorf("read the workspace %s: %w", root, workspacefs.Explain(unwrapPath(err)))
	}
	if err != nil {
		return nil, Problems{{Pos: Position{File: root}, Message: "workspace directory cannot be read: " + unwrapPath(err).Error(),
			Hint: "pass --workspace a directory that holds " + ConfigName}}
	}
	r, err := sys.Open(real)
	if workspacefs.OutOfResources(err) {
		return nil, fmt.Errorf("open the workspace %s: %w", root, workspacefs.Explain(unwrapPath(err)))
	}
	if err != nil {
		return nil, Problems{{Pos: Position{File: root}, Message: "workspace directory cannot be read: " + unwrapPath(err).Error()}}
	}
	defer r.Close()
	l := &loader{root: real, config: config, r: r, sys: sys, cache: cache, decoded: map[string]decodedFile{}, sources: sources, lock: lock}
	reg := l.load()
	if l.err == nil {
		cache.keep(l.decoded)
	}
	if l.err != nil {
		return reg, l.err
	}
	if reg.config.src != nil {
		l.add(validate(reg, cache.memo())...)
	}
	if len(l.problems) > 0 {
		return reg, l.problems.Sorted()
	}
	return reg, nil
}

// Unchanged reports whether loading reg.Root again would read exactly the files and
// bytes reg was loaded from: the config, the registry files its globs match now,
// and every bodyFile. A caller about to act on reg under a lock uses it to skip
// loading, validating and rendering again.
func Unchanged(reg *Registry) bool {
	r, err := reg.System().Open(reg.Root)
	if err != nil {
		return false
	}
	defer r.Close()
	same := func(file string, want Source) bool {
		data, err := r.ReadFile(file, maxInputSize)
		return err == nil && SourceOf(data) == want
	}
	if reg.config.src == nil || !same(reg.ConfigFile, reg.Sources[reg.ConfigFile]) {
		return false
	}
	l := &loader{root: reg.Root, config: reg.ConfigFile, r: r, sys: reg.System()}
	if !slices.Equal(l.registryFiles(reg), reg.Files) || len(l.problems) > 0 || l.err != nil {
		return false
	}
	for _, f := range reg.Files {
		if !same(f, reg.Sources[f]) {
			return false
		}
	}
	if src, read := reg.Sources[reg.lockFile]; read && !same(reg.lockFile, src) {
		return false
	}
	for _, s := range reg.Skills {
		if s.BodyPath != "" && !same(s.BodyPath, SourceOf([]byte(s.Body))) {
			return false
		}
	}
	// A few directories at a time, keeping only whether each is the same, not
	// what it holds.
	changed := parallel.Each(len(reg.Skills), func(i int) error {
		s := reg.Skills[i]
		if s.Dir == "" || s.Origin != nil {
			return nil
		}
		if read, err := walkSkillDir(r, s.Dir); err != nil || read.sum != s.dirSum {
			return errSkillDirChanged
		}
		return nil
	})
	if changed != nil {
		return false
	}
	var matched []string
	for _, pattern := range reg.SkillDirPatterns() {
		dirs, err := matchDirs(r, path.Clean(filepath.ToSlash(pattern)))
		if err != nil {
			return false
		}
		matched = append(matched, dirs...)
	}
	return slices.Equal(matched, reg.matchedDirs)
}

var errSkillDirChanged = errors.New("a skill directory changed")

// maxInputSize bounds every input file read.
const maxInputSize = 16 << 20

type loader struct {
	root     string
	config   string // the config file, relative to root
	r        workspacefs.FS
	sys      workspacefs.System
	problems Problems
	// err is the first failure that is no fault of the inputs (out of open files,
	// memory, an I/O error): a load that meets one is not a verdict on them.
	err error
	// cache holds what files decoded to in an earlier load, and decoded what they
	// decode to in this one.
	cache   *Cache
	decoded map[string]decodedFile
	// unlisted says the globs or a file they matched could not be read whole: the
	// files are no listing for the cache to trust.
	unlisted bool
	// sources reads what the lock pins; nil leaves the sources out.
	sources SourceReader
	// lock, when not nil, stands for skillsync.lock.
	lock *Lock
	// policy is the organisation's policy, once read (policyRead), and
	// whether it could be.
	policy               *Policy
	policyRead, policyOK bool
}

func (l *loader) add(ps ...Problem) { l.problems = append(l.problems, ps...) }

// failed records err as the load's failure when it is the machine's, not the
// input's (workspacefs.OutOfResources), and says whether it was.
func (l *loader) failed(what string, err error) bool {
	if !workspacefs.OutOfResources(err) {
		return false
	}
	if l.err == nil {
		l.err = fmt.Errorf("read %s: %w", what, workspacefs.Explain(workspacefs.Cause(err)))
	}
	return true
}

func (l *loader) load() *Registry {
	reg := &Registry{Root: l.root, ConfigFile: l.config, malformed: map[document]bool{}, Sources: map[string]Source{}, sys: l.sys}
	data, err := l.r.ReadFile(l.config, maxInputSize)
	if err != nil && l.failed(l.config, err) {
		return reg
	}
	if err != nil {
		l.add(Problem{Pos: Position{File: l.config}, Message: "cannot read workspace config: " + workspacefs.Cause(err).Error(),
			Hint: "the workspace holds " + l.config + " as a regular file; run skillsync init to start one"})
		return reg
	}
	reg.Sources[l.config] = SourceOf(data)
	_, docs, ps := parseSource(l.config, data)
	l.add(ps...)
	if len(ps) > 0 {
		return reg
	}
	if len(docs) != 1 {
		l.add(Problem{Pos: Position{File: l.config, Line: 1}, Message: fmt.Sprintf("expected one Workspace document, found %d", len(docs)),
			Hint: "skillsync.yaml holds exactly one document of kind Workspace"})
		return reg
	}
	reg.config = docs[0]
	l.decode(reg, docs[0], &reg.Config)
	l.checkHeader(docs[0], reg.Config.APIVersion, reg.Config.Kind, "Workspace")

	files, changed, epoch, trusted := l.cache.trusted(reg.Sources[l.config])
	if !trusted {
		problems := len(l.problems)
		files = l.registryFiles(reg)
		l.unlisted = len(l.problems) > problems
	}
	reg.Files = files
	l.presize(reg, files)
	var ahead *parallel.Ahead[readFile]
	if l.cache == nil && len(files) > 1 {
		// Without a cache every file is parsed: the next ones while this one decodes.
		ahead = startReadAhead(l.r, files)
		defer ahead.Close()
	}
	for i, file := range files {
		if d, ok := l.cache.unchanged(file); trusted && !changed[file] && ok {
			reg.Sources[file] = d.src
			l.replay(reg, d)
			l.decoded[file] = d
			continue
		}
		if ahead != nil {
			l.loadRead(reg, file, ahead.Take(i))
			continue
		}
		l.loadFile(reg, file)
	}
	// A load that met a problem with the files themselves (one unreadable, a glob
	// that matches none) is no listing to trust: the next reads them again.
	l.cache.list(reg.Sources[l.config], files, !l.unlisted && l.err == nil, epoch)
	l.matchedSkillDirs(reg)
	l.lockedSources(reg)
	l.checkMCPTrust(reg)
	selectRecorded(reg)
	reg.Capabilities = overridden(reg)
	l.scanSnapshots(reg)
	return reg
}

// presize makes room in reg for the declarations of files the cache holds, so
// that replaying thousands does not grow the slices again and again.
func (l *loader) presize(reg *Registry, files []string) {
	caps, skills := 0, 0
	for _, file := range files {
		if d, ok := l.cache.unchanged(file); ok {
			caps, skills = caps+len(d.capabilities), skills+len(d.skills)
		}
	}
	reg.Capabilities = make([]Capability, 0, caps+caps/8)
	reg.Skills = make([]Skill, 0, skills+skills/8)
}

// decode fills out from a document strictly; a document with problems is marked so
// validation does not report the same mistake a second time.
func (l *loader) decode(reg *Registry, doc document, out any) {
	ps := decodeStrict(doc.file(), doc.root(), out)
	if len(ps) > 0 {
		reg.malformed[doc] = true
	}
	l.add(ps...)
}

func (l *loader) checkHeader(doc document, apiVersion, kind, wantKind string) {
	if apiVersion != APIVersion {
		l.add(Problem{Pos: doc.at("apiVersion").Position(), Message: fmt.Sprintf("apiVersion %q is not supported", apiVersion), Hint: "write apiVersion: " + APIVersion})
	}
	if wantKind != "" && kind != wantKind {
		l.add(Problem{Pos: doc.at("kind").Position(), Message: fmt.Sprintf("kind %q where %s was expected", kind, wantKind), Hint: "write kind: " + wantKind})
	}
}

func (l *loader) registryFiles(reg *Registry) []string {
	seen := map[string]bool{}
	var files []string
	for i, pattern := range reg.Config.Spec.Registry {
		pos := itemAt(reg.config, i, "spec", "registry").Position()
		problems := len(l.problems)
		matches := l.glob(pattern, pos)
		if len(matches) == 0 && len(l.problems) == problems && l.err == nil {
			l.add(reg.unmatched(pattern, pos))
		}
		for _, m := range matches {
			if !seen[m] {
				seen[m] = true
				files = append(files, m)
			}
		}
	}
	return files
}

func (l *loader) loadFile(reg *Registry, file string) {
	data, err := l.r.ReadFile(file, maxInputSize)
	l.loadRead(reg, file, readFile{data: data, err: err})
}

// loadRead loads the registry file file as read, and parsed if it was.
func (l *loader) loadRead(reg *Registry, file string, read readFile) {
	if read.err != nil && l.failed(file, read.err) {
		return
	}
	if read.err != nil {
		l.unlisted = true
		l.add(Problem{Pos: Position{File: file}, Message: "cannot read registry file: " + workspacefs.Cause(read.err).Error(),
			Hint: "a registry file is a readable regular file; fix its permissions or narrow the glob"})
		return
	}
	reg.Sources[file] = SourceOf(read.data)
	l.decodeFile(reg, file, read)
}

// rereader reads file again, for a position in it, as long as it still is want.
func (l *loader) rereader(file string, want Source) func() []byte {
	root, sys := l.root, l.sys
	return func() []byte {
		r, err := sys.Open(root)
		if err != nil {
			return nil
		}
		defer r.Close()
		data, err := r.ReadFile(file, maxInputSize)
		if err != nil || SourceOf(data) != want {
			return nil
		}
		return data
	}
}

// addDocuments parses one registry file's content, as read, into reg.
func (l *loader) addDocuments(reg *Registry, file string, read readFile) {
	want, seen := reg.Sources[file]
	if !seen {
		want = SourceOf(read.data)
	}
	l.addDocumentsOf(reg, file, read, l.rereader(file, want), false)
}

// addDocumentsOf parses the registry file named file, as read, into reg; reread
// gives its bytes again for a position. A source's file (fromSource) has no
// files beside it in the workspace: a Skill in it has its body inline.
func (l *loader) addDocumentsOf(reg *Registry, file string, read readFile, reread func() []byte, fromSource bool) {
	var src *source
	var docs []document
	var taken map[int]Capability
	byPiece := false
	if l.cache != nil && !fromSource {
		src, docs, taken, byPiece = parseByPiece(file, read.data, l.cache.earlier(file))
	}
	if !byPiece {
		var ps Problems
		src, docs, ps = read.parse(file)
		l.add(ps...)
	}
	if src != nil {
		defer src.release(reread)
	}
	for _, doc := range docs {
		if c, ok := taken[doc.index]; ok {
			c.doc = doc
			reg.Capabilities = append(reg.Capabilities, c)
			continue
		}
		problems, capabilities := len(l.problems), len(reg.Capabilities)
		l.addDocument(reg, doc, file, fromSource)
		if byPiece && (len(l.problems) > problems || reg.malformed[doc] || len(reg.Capabilities) != capabilities+1) {
			// Known by its bytes only as a capability that decoded cleanly: what
			// another kind holds (a body file, a skill directory) is not in them.
			src.sums[doc.index] = [32]byte{}
		}
	}
}

// addDocument decodes doc, a document of file, into reg.
func (l *loader) addDocument(reg *Registry, doc document, file string, fromSource bool) {
	kind := ""
	if k := mappingValue(doc.root(), "kind"); k != nil {
		kind = k.Value
	}
	switch kind {
	case "Capability":
		var d Object[CapabilitySpec]
		l.decode(reg, doc, &d)
		l.checkHeader(doc, d.APIVersion, d.Kind, "")
		reg.Capabilities = append(reg.Capabilities, Capability{ID: d.Metadata.Name, Spec: d.Spec, doc: doc, owner: CapabilityOwner(d.Metadata.Name)})
	case "Skill":
		var d Object[SkillSpec]
		l.decode(reg, doc, &d)
		l.checkHeader(doc, d.APIVersion, d.Kind, "")
		s := Skill{Name: d.Metadata.Name, Spec: d.Spec, Body: d.Spec.Body, doc: doc}
		if fromSource && (d.Spec.Dir != "" || d.Spec.BodyFile != "") {
			key := "dir"
			if d.Spec.Dir == "" {
				key = "bodyFile"
			}
			l.add(Problem{Pos: doc.at("spec", key).Position(), Message: fmt.Sprintf("skill %s of a source has its %s in another file, which the source does not give", s.Name, key),
				Hint: "a source's Skill documents carry their body inline (spec.body); its skill directories come as folders of the source"})
			return
		}
		if d.Spec.Dir != "" {
			l.readSkillDir(doc, file, d, &s)
		} else if d.Spec.BodyFile != "" {
			s.BodyPath = path.Clean(path.Join(path.Dir(file), filepath.ToSlash(d.Spec.BodyFile)))
			s.Body = l.readBodyFile(doc, file, d.Spec.BodyFile)
		}
		reg.Skills = append(reg.Skills, s)
	case "Profile":
		var d Object[ProfileSpec]
		l.decode(reg, doc, &d)
		l.checkHeader(doc, d.APIVersion, d.Kind, "")
		reg.Profiles = append(reg.Profiles, Profile{Name: d.Metadata.Name, Spec: d.Spec, doc: doc})
	default:
		l.add(Problem{Pos: doc.at("kind").Position(), Message: fmt.Sprintf("unknown kind %q", kind), Hint: "registry documents are of kind Capability, Skill or Profile"})
	}
}

func (l *loader) readBodyFile(doc document, file, bodyFile string) string {
	pos := doc.at("spec", "bodyFile").Position()
	rel, p := l.resolveInside(path.Join(path.Dir(file), filepath.ToSlash(bodyFile)), bodyFile, pos)
	if p != nil {
		l.add(*p)
		return ""
	}
	data, err := l.r.ReadFile(rel, maxInputSize)
	if err != nil && l.failed(rel, err) {
		return ""
	}
	if err != nil {
		l.add(Problem{Pos: pos, Message: fmt.Sprintf("cannot read bodyFile %s: %v", rel, workspacefs.Cause(err)), Hint: "bodyFile is relative to the file that declares the skill"})
		return ""
	}
	return string(data)
}

// resolveInside checks that a workspace-relative path stays inside the root, also
// after following symlinks, before anything at it is read.
func (l *loader) resolveInside(rel, original string, pos Position) (string, *Problem) {
	escape := &Problem{Pos: pos, Message: fmt.Sprintf("path %q leads outside the workspace", original), Hint: "paths must stay inside " + l.root}
	if filepath.IsAbs(original) || path.IsAbs(filepath.ToSlash(original)) || strings.ContainsRune(original, 0) {
		return "", escape
	}
	clean := path.Clean(rel)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", escape
	}
	intoOutput := func(out string) *Problem {
		return &Problem{Pos: pos, Message: fmt.Sprintf("path %q leads into %s, where skillsync writes", original, out),
			Hint: "an input inside a target directory or " + StateDir + "/ would be rewritten by the run that reads it; keep it elsewhere"}
	}
	if out := l.outputDir(filepath.Join(l.root, filepath.FromSlash(clean))); out != "" {
		return "", intoOutput(out)
	}
	real, err := l.r.EvalSymlinks(clean)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return clean, nil
		}
		if l.failed(clean, err) {
			return "", &Problem{Pos: pos, Message: "not read: " + l.err.Error()}
		}
		return "", &Problem{Pos: pos, Message: fmt.Sprintf("cannot resolve %q: %v", original, unwrapPath(err))}
	}
	if !l.inside(real) {
		return "", escape
	}
	if out := l.outputDir(real); out != "" {
		return "", intoOutput(out)
	}
	return clean, nil
}

func (l *loader) inside(real string) bool {
	return real == l.root || strings.HasPrefix(real, l.root+string(filepath.Separator))
}

// outputDir is the directory skillsync writes into (a target's skill directory or
// its state directory) that holds real, a resolved path inside the workspace; "" if
// none does. Names are compared without regard to case, as a case-insensitive
// filesystem would, so .Claude/Skills counts too.
func (l *loader) outputDir(real string) string {
	rel, err := filepath.Rel(l.root, real)
	if err != nil {
		return ""
	}
	rel = strings.ToLower(filepath.ToSlash(rel))
	for _, dir := range OutputDirs() {
		if rel == strings.ToLower(dir) || strings.HasPrefix(rel, strings.ToLower(dir)+"/") {
			return dir
		}
	}
	return ""
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
