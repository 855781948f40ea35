package observed

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/gitfiles"
	"github.com/skillsync/skillsync/internal/parallel"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// SkillFile is the one file per skill directory the clients read.
const SkillFile = "SKILL.md"

// Ownership says who a file on disk belongs to.
type Ownership int

const (
	// Unowned files belong to a person: no banner, or a banner for another path.
	Unowned Ownership = iota
	// Owned files carry a banner for their own path and an intact digest.
	Owned
	// Modified files carry a banner for their own path but were edited by hand.
	Modified
)

func (o Ownership) String() string {
	switch o {
	case Owned:
		return "owned"
	case Modified:
		return "modified"
	}
	return "unowned"
}

// File is one skill file found on disk.
type File struct {
	Path      string // workspace-relative, slash-separated
	Ownership Ownership
	Owner     string // from the banner, when there is one
	Reason    string // why an unowned file is not skillsync's
	// Digest is the SHA-256 of the file, for every regular file read. Bytes holds
	// the content too, except for skillsync's own unmodified files: those are
	// compared by digest, so a large workspace is not held in memory.
	Digest [32]byte
	Bytes  []byte
	// Obstruction marks something that is no file at all where skillsync would
	// write: a directory named SKILL.md, a file where a skill directory belongs.
	Obstruction bool
	// Converted marks a file that would carry skillsync's banner but for its line
	// endings or a byte-order mark: a generated file git or an editor converted.
	Converted bool
	// Link marks a symlink where the file or its directory goes: it may lead to
	// skillsync's own output, so it is no skill a person wrote.
	Link bool
	// Unreadable marks a file, or a skill directory's file, that skillsync may
	// not read: whose it is cannot be told, so it is kept, and it takes no name
	// from the other targets as a skill a person wrote would.
	Unreadable bool
	// Supporting marks a file of a skill directory that its SKILL.md's manifest
	// names, and Executable whether it has its execute bit (nil where files have
	// none).
	Supporting bool
	Executable *bool
}

// HandWrittenSkills lists the SKILL.md files of st that people wrote, sorted.
func (st State) HandWrittenSkills() []string {
	var out []string
	for p, f := range st.Files {
		if f.HandWritten() && clients.IsSkillFile(p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// HandWritten says f is a skill a person wrote: unowned, and no generated file in
// disguise (a copy whose banner names another path, one converted to CRLF or
// given a byte-order mark), no symlink and nothing that is no file.
func (f File) HandWritten() bool {
	return f.Ownership == Unowned && !f.Obstruction && !f.Converted && !f.Link && !f.Unreadable && f.Owner == ""
}

// State is everything Scan saw.
type State struct {
	Files map[string]File
	// Blocked maps a target directory skillsync must not write into to the reason.
	Blocked map[string]string
	// Obstructed holds the blocked directories that are files, not symlinks.
	Obstructed map[string]bool
	// Escapes lists the symlinks in or above the target directories that lead out
	// of the workspace: a workspace holding one is not written at all.
	Escapes []string
	// TempFiles are leftovers of an interrupted write, workspace-relative.
	TempFiles []string
	// EmptyDirs are skill directories with nothing in them: what a run killed
	// between deleting a SKILL.md and its directory leaves.
	EmptyDirs []string
	// Entries are the paths of everything in the target directories, sorted; the
	// plan needs them to find a name that differs from a wanted one only in case.
	Entries []string
	// Folders are the folders found in skill directories where skillsync may
	// write supporting files: a file cannot be written where one is.
	Folders map[string]bool
	// Unscanned maps a skill directory too large to look through to why: no
	// supporting file is written into it.
	Unscanned map[string]string
	// CutShort are temp-named files in skill directories that may be a staged
	// supporting file a kill cut short: a leftover if its name is the digest of
	// a wanted file there that begins with its bytes, or if it is in a folder of
	// a temp name (InStagedFolder). Those marked Supporting are leftovers
	// whatever is wanted: each is the old file an update swapped out before a
	// kill, known by its bytes, which the intact manifest of its skill directory
	// names for the file beside it, and by its name, the staged name of what that
	// file holds now.
	CutShort []File
	// Read holds every file the scan read and every skill or side-file
	// directory it listed, with the stamp of what it read there, taken before
	// reading it: an index of the pass need not stamp them again.
	Read  []Stamped
	links []string // every symlink met, to check for escapes
}

// Stamped is a path the scan read, and the stamp of what it read there.
type Stamped struct {
	Path  string
	Stamp workspacefs.Stamp
}

// Links are the symlinks the scan met (a target directory or one above it, a
// skill directory, a file or a side-file directory in one), in the order met:
// those the escape check resolves (see Escapes).
func (st State) Links() []string { return st.links }

// Scan reads each target directory one level deep, the way the clients discover
// skills. It never follows a symlink: a symlinked target directory is blocked and a
// symlinked skill directory or SKILL.md is a person's.
func Scan(sys workspacefs.System, root string, dirs []string) (State, error) {
	r, err := sys.Open(root)
	if err != nil {
		return State{}, err
	}
	defer r.Close()
	st := newState()
	sorted := append([]string(nil), dirs...)
	sort.Strings(sorted)
	for _, dir := range sorted {
		if err := st.scanDir(r, dir); err != nil {
			return State{}, err
		}
	}
	st.finish(r)
	return st, nil
}

func newState() State {
	return State{Files: map[string]File{}, Blocked: map[string]string{}, Obstructed: map[string]bool{},
		Folders: map[string]bool{}, Unscanned: map[string]string{}}
}

// finish puts what a scan found in order and finds the links among it that lead
// out of the workspace.
func (st *State) finish(r workspacefs.FS) {
	sort.Strings(st.TempFiles)
	sort.Strings(st.EmptyDirs)
	sort.Strings(st.Entries)
	st.Escapes = escapes(r, *st)
}

// block records that the target directory dir must not be used, for reason;
// link is the symlink on the way to it, when that is the reason.
func (st *State) block(dir, link, reason string) {
	st.Blocked[dir] = reason
	st.Obstructed[dir] = link == ""
	if link != "" {
		st.links = append(st.links, link)
	}
}

// MaxFileSize is the largest SKILL.md read; a larger one was not written by skillsync.
const MaxFileSize = 4 << 20

func (st *State) scanDir(root workspacefs.FS, dir string) error {
	exists, link, reason, err := plainDirectory(root, dir)
	if err != nil || !exists {
		return err
	}
	if reason != "" {
		st.block(dir, link, reason)
		return nil
	}
	target, err := root.OpenDir(dir)
	if err != nil {
		return fmt.Errorf("read %s: %w", dir, workspacefs.Cause(err))
	}
	defer target.Close()
	entries, err := target.Entries()
	if err != nil {
		return fmt.Errorf("read %s: %w", dir, workspacefs.Cause(err))
	}
	return st.scanEntries(target, dir, entries)
}

// scanEntries scans the entries of the target directory dir, opened as target, a
// few at a time, and adds what they hold.
func (st *State) scanEntries(target workspacefs.Dir, dir string, entries []workspacefs.Entry) error {
	found := make([]skillDir, len(entries))
	err := parallel.Each(len(entries), func(i int) error {
		found[i] = scanSkillDir(target, dir, entries[i])
		return found[i].err
	})
	if err != nil {
		return err
	}
	for _, sd := range found {
		st.Entries = append(st.Entries, sd.path)
		for _, f := range sd.files {
			st.Files[f.Path] = f
		}
		st.links = append(st.links, sd.links...)
		st.TempFiles = append(st.TempFiles, sd.temps...)
		if sd.empty {
			st.EmptyDirs = append(st.EmptyDirs, sd.path)
		}
		st.EmptyDirs = append(st.EmptyDirs, sd.emptySubdirs...)
		for _, f := range sd.folders {
			st.Folders[f] = true
		}
		if sd.unscanned != "" {
			st.Unscanned[sd.path] = sd.unscanned
		}
		st.CutShort = append(st.CutShort, sd.staged...)
		st.Read = append(st.Read, sd.stamps...)
	}
	return nil
}

// skillDir is what one entry of a target directory holds.
type skillDir struct {
	path  string // workspace-relative
	files []File
	// manifest is what the SKILL.md that carries skillsync's banner names, and
	// skillFile that SKILL.md's ownership: Unowned when there is none.
	manifest  []banner.ManifestEntry
	skillFile Ownership
	folders   []string // in it, where supporting files may be written
	unscanned string   // why it was not looked through to the end
	staged    []File   // temp-named files that may be staged files cut short
	stamps    []Stamped
	links     []string
	temps     []string
	empty     bool
	// emptySubdirs are folders of the skill directory with nothing in them
	// that skillsync made, and emptySideDirs the side files' folders with
	// nothing in them, skillsync's unless a person wrote the SKILL.md.
	emptySubdirs, emptySideDirs []string
	// listed are the side-file directories scanSideFiles opened and listed,
	// open until the skill directory is scanned, so the walk for supporting
	// files does not open and list them again.
	listed []listedDir
	err    error
}

// listedDir is a directory of a skill directory, opened and listed.
type listedDir struct {
	rel     string // in the skill directory
	dir     workspacefs.Dir
	entries []workspacefs.Entry
}

// closeListed closes the directories in listed.
func (sd *skillDir) closeListed() {
	for _, l := range sd.listed {
		l.dir.Close()
	}
	sd.listed = nil
}

// scanSkillDir reads one entry of the target directory dir, opened as target.
// The result is named so that the directories it kept open are closed, and
// dropped, in what it returns.
func scanSkillDir(target workspacefs.Dir, dir string, e workspacefs.Entry) (sd skillDir) {
	sd = skillDir{path: path.Join(dir, e.Name)}
	switch {
	case slices.Contains(gitfiles.Names, e.Name):
		sd.readTargetFile(target, e)
		return sd
	case banner.IsTempName(e.Name) && e.Type.IsRegular():
		sd.findTemp(target, e, sd.path)
		return sd
	case banner.IsTempName(e.Name) && e.Type.IsDir():
		sd.scanStagedSkillDir(target, e.Name)
		return sd
	case e.Type&fs.ModeSymlink != 0:
		sd.noFilesIn(sd.path, sd.path+" is a symlink", false)
		sd.links = append(sd.links, sd.path)
		return sd
	case !e.Type.IsDir():
		sd.noFilesIn(sd.path, sd.path+" is not a directory", true)
		return sd
	}
	skill, err := target.Sub(e.Name)
	var entries []workspacefs.Entry
	var stamp workspacefs.Stamp
	if err == nil {
		defer skill.Close()
		defer sd.closeListed()
		entries, stamp, err = skill.EntriesStamped()
	}
	if errors.Is(err, fs.ErrPermission) {
		for _, p := range generatedPaths(sd.path) {
			sd.files = append(sd.files, unreadable(p, sd.path))
		}
		return sd
	}
	if err != nil {
		sd.err = fmt.Errorf("read %s: %w", sd.path, workspacefs.Cause(err))
		return sd
	}
	sd.stamps = append(sd.stamps, Stamped{sd.path, stamp})
	sd.empty = len(entries) == 0
	twin, twinType := "", fs.FileMode(0)
	for _, e2 := range entries {
		rel := path.Join(sd.path, e2.Name)
		switch {
		case banner.IsTempName(e2.Name) && e2.Type.IsRegular():
			sd.findTemp(skill, e2, rel)
		case len(sideFiles[e2.Name]) > 0 && e2.Type.IsDir():
			sd.scanSideFiles(skill, e2.Name)
		case len(sideFiles[e2.Name]) > 0:
			sd.noFilesIn(rel, rel+" is not a directory", e2.Type&fs.ModeSymlink == 0)
			if e2.Type&fs.ModeSymlink != 0 {
				sd.links = append(sd.links, rel)
			}
		case e2.Name != SkillFile && strings.EqualFold(e2.Name, SkillFile):
			// The same file as SKILL.md where names are compared without case: a
			// person's, beside no SKILL.md or beside skillsync's, which macOS and
			// Windows cannot hold both of (caseTwinOfSkillFile).
			twin, twinType = rel, e2.Type
		case e2.Name != SkillFile && !slices.Contains(sideFiles[""], e2.Name):
		case e2.Type&fs.ModeSymlink != 0:
			sd.files = append(sd.files, File{Path: rel, Reason: rel + " is a symlink", Link: true})
			sd.links = append(sd.links, rel)
		case !e2.Type.IsRegular():
			sd.files = append(sd.files, File{Path: rel, Reason: rel + " is not a regular file", Obstruction: true})
		default:
			sd.read(skill, e2.Name, rel)
		}
	}
	if twin != "" {
		sd.caseTwinOfSkillFile(twin, twinType)
	}
	if !sd.holdsPersonsSkill() {
		// A run killed between deleting a side file and its folder leaves the
		// folder empty; in a skill a person wrote, skillsync wrote neither.
		sd.emptySubdirs = append(sd.emptySubdirs, sd.emptySideDirs...)
	}
	if sd.err == nil {
		sd.scanSupporting(skill, entries)
	}
	return sd
}

// caseTwinOfSkillFile records that twin, an entry of type typ whose name
// differs from SKILL.md only in case, stands where the skill directory's
// SKILL.md goes: in place of whatever was read at SKILL.md, it is kept there,
// and the directory with it. A regular file is a person's skill; a symlink (it
// may lead to skillsync's own SKILL.md) or anything that is no file is not,
// and takes no name from the other targets.
func (sd *skillDir) caseTwinOfSkillFile(twin string, typ fs.FileMode) {
	skillFile := path.Join(sd.path, SkillFile)
	sd.manifest, sd.skillFile = nil, Unowned
	sd.files = slices.DeleteFunc(sd.files, func(f File) bool { return f.Path == skillFile })
	sd.files = append(sd.files, File{Path: skillFile, Reason: twin + " differs from " + SkillFile + " only in case, the same file on macOS and Windows",
		Link: typ&fs.ModeSymlink != 0, Obstruction: typ&fs.ModeSymlink == 0 && !typ.IsRegular()})
}

// holdsPersonsSkill says the skill directory's SKILL.md is not skillsync's: a
// person's own, or a link or a folder by that name. A generated one that git
// converted is skillsync's still.
func (sd *skillDir) holdsPersonsSkill() bool {
	skillFile := path.Join(sd.path, SkillFile)
	return slices.ContainsFunc(sd.files, func(f File) bool { return f.Path == skillFile && f.Ownership == Unowned && !f.Converted })
}

// readTargetFile reads the entry e of a target directory that is no skill
// directory but a file skillsync writes there (a git file). A symlink there is
// never followed, so it is only noted.
func (sd *skillDir) readTargetFile(target workspacefs.Dir, e workspacefs.Entry) {
	switch {
	case e.Type&fs.ModeSymlink != 0:
		sd.files = append(sd.files, File{Path: sd.path, Reason: sd.path + " is a symlink", Link: true})
	case !e.Type.IsRegular():
		sd.files = append(sd.files, File{Path: sd.path, Reason: sd.path + " is not a regular file", Obstruction: true})
	default:
		sd.read(target, e.Name, sd.path)
	}
}

// noFilesIn records that nothing skillsync writes in dir (the skill directory, or
// a side file's directory in it) can be written, because dir is a symlink or no
// directory at all: each such file there is a person's, for the reason given.
func (sd *skillDir) noFilesIn(dir, reason string, obstruction bool) {
	for _, p := range generatedPaths(sd.path) {
		if p == dir || strings.HasPrefix(p, dir+"/") {
			sd.files = append(sd.files, File{Path: p, Reason: reason, Obstruction: obstruction, Link: !obstruction})
		}
	}
}

// generatedPaths are the files skillsync may write in the skill directory dir:
// its SKILL.md and every side file.
func generatedPaths(dir string) []string {
	paths := []string{path.Join(dir, SkillFile)}
	for sub, names := range sideFiles {
		for _, name := range names {
			paths = append(paths, path.Join(dir, sub, name))
		}
	}
	return paths
}

// read reads the file name of dir, which is rel in the workspace, and adds it
// as found: owned or not, or why it is no file skillsync could have written.
func (sd *skillDir) read(dir workspacefs.Dir, name, rel string) {
	data, stamp, err := dir.ReadStamped(name, MaxFileSize)
	switch {
	case errors.Is(err, workspacefs.ErrTooLarge):
		sd.files = append(sd.files, File{Path: rel, Reason: fmt.Sprintf("%s is larger than %d bytes", rel, MaxFileSize)})
	case errors.Is(err, workspacefs.ErrNotRegular):
		sd.files = append(sd.files, File{Path: rel, Reason: rel + " is not a regular file"})
	case errors.Is(err, fs.ErrPermission):
		sd.files = append(sd.files, unreadable(rel, rel))
	case err != nil:
		sd.err = fmt.Errorf("read %s: %w", rel, workspacefs.Cause(err))
	default:
		f := Classify(rel, data)
		if name == SkillFile && f.Ownership != Unowned {
			sd.manifest, sd.skillFile = banner.Manifest(data), f.Ownership
		}
		if f.Ownership == Owned {
			f.Bytes = nil
		}
		sd.files = append(sd.files, f)
		sd.stamps = append(sd.stamps, Stamped{rel, stamp})
	}
}

// unreadable is the file at p, which skillsync may not read: denied, p itself
// or the skill directory it is in, refuses it.
func unreadable(p, denied string) File {
	return File{Path: p, Reason: denied + " cannot be read (permission denied: make it readable, or move it away)", Unreadable: true}
}

// findTemp adds the entry e of dir, rel in the workspace, if it is what an
// interrupted write left.
func (sd *skillDir) findTemp(dir workspacefs.Dir, e workspacefs.Entry, rel string) {
	if !banner.IsTempName(e.Name) || !e.Type.IsRegular() {
		return
	}
	if data, err := dir.ReadRegular(e.Name, MaxFileSize); err == nil && banner.IsPartial(data) {
		sd.temps = append(sd.temps, rel)
	}
}

// sideFiles are the files skillsync may write beside SKILL.md, by the
// subdirectory of the skill directory they are in ("" for the skill directory):
// the files clients read there, and those for git.
var sideFiles = func() map[string][]string {
	out := map[string][]string{"": gitfiles.Names}
	for _, c := range clients.All {
		if c.HideFile != nil {
			dir, name := path.Split(c.HideFile.Path)
			dir = strings.TrimSuffix(dir, "/")
			out[dir] = append(out[dir], name)
		}
	}
	return out
}()

// scanSideFiles reads the side files in the subdirectory sub of skill: each is
// owned or not like a SKILL.md, and what an interrupted write left there is found
// as in the skill directory. Anything else there is a person's and is left out.
func (sd *skillDir) scanSideFiles(skill workspacefs.Dir, sub string) {
	d, err := skill.Sub(sub)
	var entries []workspacefs.Entry
	var stamp workspacefs.Stamp
	if err == nil {
		entries, stamp, err = d.EntriesStamped()
		if err != nil {
			d.Close()
		}
	}
	if err != nil {
		sd.err = fmt.Errorf("read %s: %w", path.Join(sd.path, sub), workspacefs.Cause(err))
		return
	}
	sd.listed = append(sd.listed, listedDir{rel: sub, dir: d, entries: entries})
	sd.stamps = append(sd.stamps, Stamped{path.Join(sd.path, sub), stamp})
	if len(entries) == 0 {
		sd.emptySideDirs = append(sd.emptySideDirs, path.Join(sd.path, sub))
	}
	for _, e := range entries {
		sd.findTemp(d, e, path.Join(sd.path, sub, e.Name))
	}
	for _, name := range sideFiles[sub] {
		if !hasEntry(entries, name) {
			continue
		}
		sd.read(d, name, path.Join(sd.path, sub, name))
	}
}

func hasEntry(entries []workspacefs.Entry, name string) bool {
	for _, e := range entries {
		if e.Name == name {
			return true
		}
	}
	return false
}

// Classify decides who owns the file at rel with the given content.
func Classify(rel string, data []byte) File {
	f := File{Path: rel, Bytes: data, Digest: sha256.Sum256(data)}
	mark, intact, err := banner.Inspect(data)
	switch {
	case err != nil && bytes.Contains(data, []byte("\r\n")) && !errors.Is(crlfErr(data), banner.ErrNoBanner):
		f.Reason, f.Converted = "skillsync banner with CRLF line endings (converted by git autocrlf or an editor?)", true
	case err != nil && bytes.HasPrefix(data, byteOrderMark) && !errors.Is(crlfErr(data[len(byteOrderMark):]), banner.ErrNoBanner):
		f.Reason, f.Converted = "skillsync banner after a byte-order mark (added by an editor?)", true
	case err != nil:
		f.Reason = "no skillsync banner"
	case mark.Path != rel:
		f.Owner = mark.Owner
		f.Reason = "banner names " + mark.Path + " (a copy is not skillsync's)"
	case !intact:
		f.Ownership, f.Owner = Modified, mark.Owner
	default:
		f.Ownership, f.Owner = Owned, mark.Owner
	}
	return f
}

// Sum is the SHA-256 of the file's content.
func (f File) Sum() [32]byte {
	if f.Bytes != nil && f.Digest == ([32]byte{}) {
		return sha256.Sum256(f.Bytes)
	}
	return f.Digest
}

// byteOrderMark is what some editors put at the start of a UTF-8 file.
var byteOrderMark = []byte("\xef\xbb\xbf")

func crlfErr(data []byte) error {
	_, _, err := banner.Parse(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")))
	return err
}

// escapes lists the symlinks the scan met (a target directory or a parent of one, a
// skill directory, a SKILL.md) whose target lies outside root. It resolves them
// only to compare paths; nothing behind them is read.
func escapes(root workspacefs.FS, st State) []string {
	realRoot, err := root.EvalSymlinks(".")
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range st.links {
		real, err := root.EvalSymlinks(l)
		if err == nil && real != realRoot && !strings.HasPrefix(real, realRoot+string(filepath.Separator)) {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// plainDirectory reports whether dir exists, and a reason it must not be used when
// it or any parent below root is a symlink (returned as link) or not a directory.
func plainDirectory(root workspacefs.FS, dir string) (exists bool, link, reason string, err error) {
	prefix := ""
	for _, part := range strings.Split(dir, "/") {
		prefix = path.Join(prefix, part)
		info, err := root.Lstat(prefix)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return false, "", "", nil
		case err != nil:
			return false, "", "", fmt.Errorf("read %s: %w", prefix, workspacefs.Cause(err))
		case info.Mode()&fs.ModeSymlink != 0:
			return true, prefix, prefix + " is a symlink; skillsync does not write through symlinks (make it a directory, or drop the target from spec.targets)", nil
		case !info.IsDir():
			return true, "", prefix + " is not a directory (move it away, or drop the target from spec.targets)", nil
		}
	}
	return true, "", "", nil
}
