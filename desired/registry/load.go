package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

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
		if info, err := os.Stat(filepath.Join(d, ConfigName)); err == nil && info.Mode().IsRegular() {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%w in %s or any parent directory (run skillsync init, or pass --workspace DIR)", ErrNoWorkspace, abs)
		}
	}
}

// Load reads skillsync.yaml under root and every registry document it names, and
// validates them. It returns Problems for anything malformed or invalid, all at once;
// a non-Problems error means the workspace could not be read at all.
func Load(root string) (*Registry, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, Problems{{Pos: Position{File: root}, Message: "workspace directory cannot be read: " + unwrapPath(err).Error(),
			Hint: "pass --workspace a directory that holds " + ConfigName}}
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, Problems{{Pos: Position{File: root}, Message: "workspace directory cannot be read: " + unwrapPath(err).Error()}}
	}
	defer r.Close()
	l := &loader{root: real, r: r}
	reg := l.load()
	if reg.config.src != nil {
		l.add(Validate(reg)...)
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
	r, err := os.OpenRoot(reg.Root)
	if err != nil {
		return false
	}
	defer r.Close()
	same := func(file string, want Source) bool {
		data, err := workspacefs.ReadFile(r, file, maxInputSize)
		return err == nil && SourceOf(data) == want
	}
	if reg.config.src == nil || !same(ConfigName, reg.Sources[ConfigName]) {
		return false
	}
	l := &loader{root: reg.Root, r: r}
	if !slices.Equal(l.registryFiles(reg), reg.Files) || len(l.problems) > 0 {
		return false
	}
	for _, f := range reg.Files {
		if !same(f, reg.Sources[f]) {
			return false
		}
	}
	for _, s := range reg.Skills {
		if s.BodyPath != "" && !same(s.BodyPath, SourceOf([]byte(s.Body))) {
			return false
		}
	}
	return true
}

// maxInputSize bounds every input file read.
const maxInputSize = 16 << 20

type loader struct {
	root     string
	r        *os.Root
	problems Problems
}

func (l *loader) add(ps ...Problem) { l.problems = append(l.problems, ps...) }

func (l *loader) load() *Registry {
	reg := &Registry{Root: l.root, ConfigFile: ConfigName, malformed: map[document]bool{}, Sources: map[string]Source{}}
	data, err := workspacefs.ReadFile(l.r, ConfigName, maxInputSize)
	if err != nil {
		l.add(Problem{Pos: Position{File: ConfigName}, Message: "cannot read workspace config: " + workspacefs.Cause(err).Error(),
			Hint: "the workspace root holds " + ConfigName + " as a regular file; run skillsync init to start one"})
		return reg
	}
	reg.Sources[ConfigName] = SourceOf(data)
	_, docs, ps := parseSource(ConfigName, data)
	l.add(ps...)
	if len(ps) > 0 {
		return reg
	}
	if len(docs) != 1 {
		l.add(Problem{Pos: Position{File: ConfigName, Line: 1}, Message: fmt.Sprintf("expected one Workspace document, found %d", len(docs)),
			Hint: "skillsync.yaml holds exactly one document of kind Workspace"})
		return reg
	}
	reg.config = docs[0]
	l.decode(reg, docs[0], &reg.Config)
	l.checkHeader(docs[0], reg.Config.APIVersion, reg.Config.Kind, "Workspace")

	files := l.registryFiles(reg)
	reg.Files = files
	for _, file := range files {
		l.loadFile(reg, file)
	}
	return reg
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
		matches, p := l.glob(pattern, pos)
		if p != nil {
			l.add(*p)
			continue
		}
		if len(matches) == 0 {
			l.add(Problem{Pos: pos, Message: fmt.Sprintf("registry glob %q matches no file", pattern), Hint: "check the pattern; it is relative to " + ConfigName})
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
	data, err := workspacefs.ReadFile(l.r, file, maxInputSize)
	if err != nil {
		l.add(Problem{Pos: Position{File: file}, Message: "cannot read registry file: " + workspacefs.Cause(err).Error()})
		return
	}
	reg.Sources[file] = SourceOf(data)
	l.addDocuments(reg, file, data)
}

// rereader reads file again, for a position in it, as long as it still is want.
func (l *loader) rereader(file string, want Source) func() []byte {
	root := l.root
	return func() []byte {
		r, err := os.OpenRoot(root)
		if err != nil {
			return nil
		}
		defer r.Close()
		data, err := workspacefs.ReadFile(r, file, maxInputSize)
		if err != nil || SourceOf(data) != want {
			return nil
		}
		return data
	}
}

// addDocuments parses one registry file's content into reg.
func (l *loader) addDocuments(reg *Registry, file string, data []byte) {
	src, docs, ps := parseSource(file, data)
	l.add(ps...)
	if src != nil {
		want, read := reg.Sources[file]
		if !read {
			want = SourceOf(data)
		}
		defer src.release(l.rereader(file, want))
	}
	for _, doc := range docs {
		kind := ""
		if k := mappingValue(doc.root(), "kind"); k != nil {
			kind = k.Value
		}
		switch kind {
		case "Capability":
			var d object[CapabilitySpec]
			l.decode(reg, doc, &d)
			l.checkHeader(doc, d.APIVersion, d.Kind, "")
			reg.Capabilities = append(reg.Capabilities, Capability{ID: d.Metadata.Name, Spec: d.Spec, doc: doc})
		case "Skill":
			var d object[SkillSpec]
			l.decode(reg, doc, &d)
			l.checkHeader(doc, d.APIVersion, d.Kind, "")
			s := Skill{Name: d.Metadata.Name, Spec: d.Spec, Body: d.Spec.Body, doc: doc}
			if d.Spec.BodyFile != "" {
				s.BodyPath = path.Clean(path.Join(path.Dir(file), filepath.ToSlash(d.Spec.BodyFile)))
				s.Body = l.readBodyFile(doc, file, d.Spec.BodyFile)
			}
			reg.Skills = append(reg.Skills, s)
		case "Profile":
			var d object[ProfileSpec]
			l.decode(reg, doc, &d)
			l.checkHeader(doc, d.APIVersion, d.Kind, "")
			reg.Profiles = append(reg.Profiles, Profile{Name: d.Metadata.Name, Spec: d.Spec, doc: doc})
		default:
			l.add(Problem{Pos: doc.at("kind").Position(), Message: fmt.Sprintf("unknown kind %q", kind), Hint: "registry documents are of kind Capability, Skill or Profile"})
		}
	}
}

func (l *loader) readBodyFile(doc document, file, bodyFile string) string {
	pos := doc.at("spec", "bodyFile").Position()
	rel, p := l.resolveInside(path.Join(path.Dir(file), filepath.ToSlash(bodyFile)), bodyFile, pos)
	if p != nil {
		l.add(*p)
		return ""
	}
	data, err := workspacefs.ReadFile(l.r, rel, maxInputSize)
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
	real, err := filepath.EvalSymlinks(filepath.Join(l.root, filepath.FromSlash(clean)))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return clean, nil
		}
		return "", &Problem{Pos: pos, Message: fmt.Sprintf("cannot resolve %q: %v", original, unwrapPath(err))}
	}
	if !l.inside(real) {
		return "", escape
	}
	return clean, nil
}

func (l *loader) inside(real string) bool {
	return real == l.root || strings.HasPrefix(real, l.root+string(filepath.Separator))
}

// glob expands a registry pattern one path segment at a time, so no directory is
// listed before it is known to be inside the workspace.
func (l *loader) glob(pattern string, pos Position) ([]string, *Problem) {
	clean, p := l.resolvePattern(pattern, pos)
	if p != nil {
		return nil, p
	}
	current := []string{"."}
	segments := strings.Split(clean, "/")
	for i, seg := range segments {
		last := i == len(segments)-1
		var next []string
		for _, dir := range current {
			for _, cand := range l.expand(dir, seg) {
				kind, p := l.classify(cand, pattern, pos)
				if p != nil {
					l.add(*p) // report it, and keep the glob's other matches
					continue
				}
				switch {
				case !last && kind == kindDir:
					next = append(next, cand)
				case last && kind == kindFile:
					next = append(next, cand)
				case last && kind == kindDir && isRegistryName(cand):
					return nil, &Problem{Pos: pos, Message: fmt.Sprintf("registry path %s is a directory, not a file", cand), Hint: "replace it with a YAML or JSON file, or narrow the glob"}
				}
			}
		}
		current = next
	}
	sort.Strings(current)
	return current, nil
}

func (l *loader) resolvePattern(pattern string, pos Position) (string, *Problem) {
	escape := &Problem{Pos: pos, Message: fmt.Sprintf("registry glob %q reaches outside the workspace", pattern), Hint: "globs are relative to " + ConfigName + " and stay inside its directory"}
	if pattern == "" || filepath.IsAbs(pattern) || strings.HasPrefix(pattern, "/") || strings.ContainsRune(pattern, 0) {
		return "", escape
	}
	if _, err := path.Match(pattern, ""); err != nil {
		return "", &Problem{Pos: pos, Message: fmt.Sprintf("registry glob %q is malformed: %v", pattern, err)}
	}
	clean := path.Clean(filepath.ToSlash(pattern))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", escape
	}
	return clean, nil
}

func (l *loader) expand(dir, seg string) []string {
	if !strings.ContainsAny(seg, `*?[\`) {
		return []string{path.Join(dir, seg)}
	}
	entries, err := workspacefs.ReadDir(l.r, dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(seg, ".") {
			continue
		}
		if ok, _ := path.Match(seg, e.Name()); ok {
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	return out
}

type entryKind int

const (
	kindMissing entryKind = iota
	kindFile
	kindDir
	kindOther
)

func (l *loader) classify(rel, pattern string, pos Position) (entryKind, *Problem) {
	full := filepath.Join(l.root, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		return kindMissing, nil
	}
	if !l.inside(real) {
		return kindMissing, &Problem{Pos: pos, Message: fmt.Sprintf("registry glob %q matches %s, which leads outside the workspace", pattern, rel), Hint: "registry files and directories must be inside the workspace, symlinks included"}
	}
	info, err := os.Stat(real)
	switch {
	case err != nil:
		return kindMissing, nil
	case info.IsDir():
		return kindDir, nil
	case info.Mode().IsRegular():
		return kindFile, nil
	}
	return kindOther, nil
}

func isRegistryName(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
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
