package registry

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/gitfiles"
	"github.com/skillsync/skillsync/internal/parallel"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// A skill directory (spec.dir) is read whole: its SKILL.md gives the skill's
// front matter and body, and every other file is a supporting file, copied into
// each target byte for byte. What a copy could not carry faithfully, or could
// carry out of the directory, is refused rather than dropped or followed.
const (
	// MaxSkillEntries bounds the files and folders of one skill directory.
	MaxSkillEntries = 1000
	// MaxSkillBytes bounds the size of one skill directory's files together;
	// banner.MaxSupportingFileSize bounds each.
	MaxSkillBytes = 64 << 20
	// maxSkillDepth bounds how deep a skill directory nests.
	maxSkillDepth = 16
)

// SupportFile is a file of a skill directory beside its SKILL.md.
type SupportFile struct {
	Path       string // relative to the skill directory, slash-separated
	Data       []byte
	Sum        [32]byte // of Data
	Executable bool
}

// skillDir is what a skill directory holds, as read.
type skillDir struct {
	skill []byte // SKILL.md
	files []SupportFile
	sides map[string][]byte // the client side files it holds (clientSideFile), by path
	dirs  []string          // workspace-relative, the directory itself first
	sum   [32]byte          // of every name, mode and byte read
}

// readSkillDir reads the skill directory dir, relative to file, into s: its
// front matter and body, and its supporting files.
func (l *loader) readSkillDir(doc document, file string, d Object[SkillSpec], s *Skill) {
	pos := doc.at("spec", "dir").Position()
	if given := fieldsBesideDir(d.Spec); len(given) > 0 {
		l.add(Problem{Pos: pos, Message: fmt.Sprintf("skill %s has dir and %s", s.Name, strings.Join(given, ", ")),
			Hint: "a skill directory's SKILL.md front matter and body say these; keep them there"})
		return
	}
	rel, p := l.resolveInside(path.Join(path.Dir(file), filepath.ToSlash(d.Spec.Dir)), d.Spec.Dir, pos)
	if p != nil {
		l.add(*p)
		return
	}
	read, err := walkSkillDir(l.r, rel)
	l.fillFromDir(s, rel, pos, walkedDir{read, err})
}

// fillFromDir fills s from the skill directory rel, as walked, or adds the
// problems with it at pos.
func (l *loader) fillFromDir(s *Skill, rel string, pos Position, walked walkedDir) {
	if info, err := l.r.Lstat(rel); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		l.add(Problem{Pos: pos, Message: fmt.Sprintf("the skill directory %s is a symlink", rel),
			Hint: "name the directory it leads to; a skill directory holds no links"})
		return
	}
	s.Dir = rel
	read, err := walked.read, walked.err
	var problem *dirProblem
	switch {
	case errors.As(err, &problem):
		l.add(problem.Problems...)
		return
	case err != nil && l.failed(rel, err):
		return
	case err != nil:
		l.add(Problem{Pos: pos, Message: fmt.Sprintf("cannot read the skill directory %s: %v", rel, workspacefs.Cause(err)),
			Hint: "dir is relative to the file that declares the skill"})
		return
	}
	l.fillFromRead(s, rel, read)
}

// fillFromRead fills s from what its skill directory rel holds, as read.
func (l *loader) fillFromRead(s *Skill, rel string, read skillDir) {
	s.Dir = rel
	s.Files, s.dirSum = read.files, read.sum
	if s.Origin == nil {
		s.dirs = read.dirs
	}
	skillFile := path.Join(rel, "SKILL.md")
	fm, body, bodyLine, ps := parseSkillFile(skillFile, read.skill)
	if len(ps) > 0 {
		l.add(ps...)
		return
	}
	dirName := path.Base(rel)
	if s.Origin != nil {
		dirName = path.Base(s.Origin.Dir)
	}
	if fm.Name != s.Name || dirName != s.Name {
		l.add(Problem{Pos: Position{File: skillFile, Line: fm.nameLine}, Message: fmt.Sprintf("name %q, the directory %q and metadata.name %q differ", fm.Name, dirName, s.Name),
			Hint: "a client finds a skill by its directory's name: make all three the same"})
		return
	}
	s.Spec.Description, s.Spec.License, s.Spec.Compatibility = fm.Description, fm.License, fm.Compatibility
	s.Spec.Metadata, s.Spec.AllowedTools = fm.Metadata, fm.allowedTools
	s.Spec.DisableModelInvocation, s.Spec.UserInvocable, s.Spec.Paths = fm.DisableModelInvocation, fm.UserInvocable, fm.Paths
	s.Spec.ArgumentHint, s.Spec.Model, s.Spec.Context, s.Spec.Agent = fm.ArgumentHint, fm.Model, fm.Context, fm.Agent
	s.Body, s.bodyLine, s.keyLines = body, bodyLine, fm.keyLines
	l.add(s.takeSideFiles(rel, read.sides)...)
}

// fieldsBesideDir names what a Skill with dir must leave to its SKILL.md.
func fieldsBesideDir(spec SkillSpec) []string {
	var out []string
	for field, given := range map[string]bool{
		"description": spec.Description != "", "body": spec.Body != "", "bodyFile": spec.BodyFile != "",
		"license": spec.License != "", "compatibility": spec.Compatibility != "", "metadata": spec.Metadata != nil,
		"allowedTools": spec.AllowedTools != "", "disableModelInvocation": spec.DisableModelInvocation,
		"userInvocable": spec.UserInvocable != nil, "paths": spec.Paths != nil, "argumentHint": spec.ArgumentHint != "",
		"model": spec.Model != "", "context": spec.Context != "", "agent": spec.Agent != "",
	} {
		if given {
			out = append(out, field)
		}
	}
	slices.Sort(out)
	return out
}

// walkSkillDir reads the skill directory dir: every file, each folder, and a
// digest of all of it. A problem with what it holds is a *dirProblem at the file;
// any other error is the disk's. The directory is opened once and read through
// its descriptor, a system call per file, not a walk from the root per file.
func walkSkillDir(r workspacefs.FS, dir string) (skillDir, error) {
	d, err := r.OpenDir(dir)
	if err != nil {
		return skillDir{}, err
	}
	defer d.Close()
	return walkTree(diskTree{d}, dir)
}

// skillTree is a skill directory as the walk reads it: a directory of the disk,
// or a folder of a source's commit held in memory.
type skillTree interface {
	Entries() ([]workspacefs.Entry, error)
	Sub(name string) (skillTree, error)
	ReadRegular(name string, limit int64) ([]byte, error)
	Executable(name string) (bool, error)
	Close() error
}

// diskTree is a directory of the disk as a skillTree.
type diskTree struct{ workspacefs.Dir }

func (d diskTree) Sub(name string) (skillTree, error) {
	sub, err := d.Dir.Sub(name)
	if err != nil {
		return nil, err
	}
	return diskTree{sub}, nil
}

// walkTree reads the skill directory d, named root in messages.
func walkTree(d skillTree, root string) (skillDir, error) {
	w := skillWalk{root: root, hash: sha256.New()}
	if err := w.walk(d, "", 0); err != nil {
		return skillDir{}, err
	}
	if w.out.skill == nil && len(w.problems) == 0 {
		w.problems = append(w.problems, Problem{Pos: Position{File: root}, Message: "the skill directory has no SKILL.md",
			Hint: "a skill directory holds SKILL.md, with its front matter and body, and any files it uses"})
	}
	if len(w.problems) > 0 {
		return skillDir{}, &dirProblem{w.problems}
	}
	slices.SortFunc(w.out.files, func(a, b SupportFile) int { return strings.Compare(a.Path, b.Path) })
	w.hash.Sum(w.out.sum[:0])
	return w.out, nil
}

// walkedDir is what walkSkillDir returned for one directory.
type walkedDir struct {
	read skillDir
	err  error
}

// walkSkillDirs walks each of dirs, a few at a time: reading a thousand skill
// directories one after another waits on the disk a thousand times in turn.
func walkSkillDirs(r workspacefs.FS, dirs []string) []walkedDir {
	out := make([]walkedDir, len(dirs))
	parallel.Each(len(dirs), func(i int) error {
		out[i].read, out[i].err = walkSkillDir(r, dirs[i])
		return nil
	})
	return out
}

// dirProblem is what a skill directory holds that it cannot, as an error: the
// walk goes on past a problem with one file, to name them all, and stops at a
// limit.
type dirProblem struct{ Problems }

func (p *dirProblem) Error() string {
	lines := make([]string, len(p.Problems))
	for i, q := range p.Problems {
		lines[i] = q.String()
	}
	return strings.Join(lines, "; ")
}

// ReadSkillDir reads the skill directory dir of r as spec.dir would: its
// SKILL.md, and every other file, a client's side file (agents/openai.yaml)
// among them, sorted by path. What a skill directory
// cannot hold is an error naming the file.
func ReadSkillDir(r workspacefs.FS, dir string) (skillFile []byte, files []SupportFile, err error) {
	read, err := walkSkillDir(r, dir)
	files = read.files
	for p, data := range read.sides {
		files = append(files, SupportFile{Path: p, Data: data, Sum: sha256.Sum256(data)})
	}
	slices.SortFunc(files, func(a, b SupportFile) int { return strings.Compare(a.Path, b.Path) })
	return read.skill, files, err
}

type skillWalk struct {
	root    string
	out     skillDir
	entries int
	bytes   int64
	hash    hash.Hash
	// problems are those found so far with what the directory holds.
	problems Problems
}

// walk reads the folder sub of the skill directory ("" for the directory
// itself), open as d.
func (w *skillWalk) walk(d skillTree, sub string, depth int) error {
	dir := path.Join(w.root, sub)
	w.out.dirs = append(w.out.dirs, dir)
	entries, err := d.Entries()
	if err != nil {
		return err
	}
	folded := map[string]string{}
	for _, e := range entries {
		rel := path.Join(sub, e.Name)
		at := path.Join(w.root, rel)
		if err := checkSupportName(sub, e.Name, rel); err != "" {
			w.problems = append(w.problems, Problem{Pos: Position{File: at}, Message: err, Hint: "rename or remove it in the skill directory"})
			continue
		}
		// macOS and Windows fold case, and macOS Unicode forms too: two names
		// equal under both are one file there.
		key := strings.ToLower(norm.NFC.String(e.Name))
		if other, ok := folded[key]; ok {
			msg := fmt.Sprintf("%s and %s differ only in case, the same file on macOS and Windows", other, e.Name)
			if !strings.EqualFold(other, e.Name) {
				msg = fmt.Sprintf("%q and %q are one name written in two Unicode forms (composed and decomposed accents), the same file on macOS", other, e.Name)
			}
			w.problems = append(w.problems, Problem{Pos: Position{File: at}, Message: msg, Hint: "rename one of them"})
			continue
		}
		folded[key] = e.Name
		if w.entries++; w.entries > MaxSkillEntries {
			return &dirProblem{append(w.problems, Problem{Pos: Position{File: dir}, Message: fmt.Sprintf("the skill directory %s holds more than %d files and folders", w.root, MaxSkillEntries),
				Hint: "a skill is read whole into every client's context; keep what it needs, and move the rest out"})}
		}
		switch typ := e.Type; {
		case typ&fs.ModeSymlink != 0:
			w.problems = append(w.problems, Problem{Pos: Position{File: at}, Message: "a skill directory holds no symlinks: it could lead out of the directory, and clients copy it differently",
				Hint: "put the file itself in the skill directory"})
		case typ.IsDir() && depth+1 >= maxSkillDepth:
			return &dirProblem{append(w.problems, Problem{Pos: Position{File: at}, Message: fmt.Sprintf("the skill directory nests more than %d levels deep", maxSkillDepth), Hint: "flatten it"})}
		case typ.IsDir():
			fmt.Fprintf(w.hash, "d %s\x00", rel)
			child, err := d.Sub(e.Name)
			if err != nil {
				return err
			}
			err = w.walk(child, rel, depth+1)
			child.Close()
			if err != nil {
				return err
			}
		case !typ.IsRegular():
			w.problems = append(w.problems, Problem{Pos: Position{File: at}, Message: "not a regular file or folder", Hint: "a skill directory holds files and folders only"})
		default:
			if err := w.read(d, e.Name, rel, at); err != nil {
				return err
			}
		}
	}
	return nil
}

// read reads the file name of d, rel in the skill directory and at in the
// workspace.
func (w *skillWalk) read(d skillTree, name, rel, at string) error {
	data, err := d.ReadRegular(name, banner.MaxSupportingFileSize)
	if errors.Is(err, workspacefs.ErrTooLarge) {
		w.problems = append(w.problems, Problem{Pos: Position{File: at}, Message: fmt.Sprintf("the file is larger than %d bytes, the most skillsync copies", banner.MaxSupportingFileSize),
			Hint: "keep large assets out of the skill; a client loads what a skill holds"})
		return nil
	}
	if err != nil {
		return err
	}
	if w.bytes += int64(len(data)); w.bytes > MaxSkillBytes {
		return &dirProblem{append(w.problems, Problem{Pos: Position{File: at}, Message: fmt.Sprintf("the skill directory %s holds more than %d bytes", w.root, MaxSkillBytes),
			Hint: "keep large assets out of the skill; a client loads what a skill holds"})}
	}
	exec := strings.HasPrefix(string(data), "#!")
	if x, err := d.Executable(name); err == nil && x {
		exec = true
	}
	fmt.Fprintf(w.hash, "f %s %v %d\x00", rel, exec, len(data))
	w.hash.Write(data)
	if rel == "SKILL.md" {
		w.out.skill = data
		return nil
	}
	if _, ok := clientSideFile(rel); ok {
		if w.out.sides == nil {
			w.out.sides = map[string][]byte{}
		}
		w.out.sides[rel] = data
		return nil
	}
	w.out.files = append(w.out.files, SupportFile{Path: rel, Data: data, Sum: sha256.Sum256(data), Executable: exec})
	return nil
}

// checkSupportName says why the entry name of the folder sub of a skill
// directory (rel in it) cannot be copied into a target, or "".
func checkSupportName(sub, name, rel string) string {
	switch {
	case banner.CheckManifestPath(rel) != nil:
		return "the name holds a control character, a backslash or bytes that are not UTF-8"
	case strings.ContainsAny(name, "*?[]"):
		return "the name holds a glob character (* ? [ ]), which the .gitignore and .gitattributes naming the generated copies would read as a pattern"
	case workspacefs.WindowsDeviceName(name):
		return "the name is a Windows device name, which Windows cannot create"
	case strings.ContainsAny(name, `:<>"|`):
		return `the name holds a character Windows cannot have in a file name (: < > " |)`
	case strings.HasSuffix(name, ".") || strings.HasSuffix(name, " "):
		return "the name ends in a dot or a space, which Windows drops, so it would be another file there"
	case banner.IsTempName(name):
		return "the name is one skillsync gives its own temp files (a skillsync command stopped midway leaves one)"
	case sub == "" && name != "SKILL.md" && strings.EqualFold(name, "SKILL.md"):
		return "differs from SKILL.md only in case, the same file on macOS and Windows"
	case sub == "" && slices.Contains(gitfiles.Names, name):
		return name + " in a skill directory is one skillsync removes from the targets (it writes one per target directory)"
	}
	for _, c := range clients.All {
		if c.HideFile != nil && rel != c.HideFile.Path && strings.EqualFold(rel, c.HideFile.Path) {
			return fmt.Sprintf("%s reads %s, and this name differs from it only in case", c.Name, c.HideFile.Path)
		}
	}
	return ""
}
