package observed

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// A skill directory skillsync writes can hold supporting files beside its
// SKILL.md (scripts, references, assets), which carry no banner: the SKILL.md's
// manifest names each with its digest. So a supporting file is skillsync's only
// when an intact SKILL.md names it, and edited by hand when its content no
// longer has the digest named; every other file is a person's.

// MaxSkillDirEntries bounds the entries of one skill directory a scan walks.
const MaxSkillDirEntries = 10_000

// maxSupportDepth bounds how deep a scan walks into a skill directory.
const maxSupportDepth = 32

// supportWalk walks one skill directory for its supporting files.
type supportWalk struct {
	sd *skillDir
	// named is what the manifest of an intact SKILL.md names; claimed what the
	// manifest of one edited by hand names, which proves nothing.
	named, claimed map[string]banner.ManifestEntry
	owner          string
	temps          map[string]bool
	entries        int
}

// scanSupporting walks the skill directory skill, whose entries are given, for
// the files beside its SKILL.md: only where skillsync may write, when there is no
// SKILL.md or it carries skillsync's banner; a person's skill is theirs whole.
func (sd *skillDir) scanSupporting(skill workspacefs.Dir, entries []workspacefs.Entry) {
	if sd.holdsPersonsSkill() || hasEntry(entries, SkillFile) && sd.skillFile == Unowned {
		return
	}
	w := supportWalk{sd: sd, named: map[string]banner.ManifestEntry{}, claimed: map[string]banner.ManifestEntry{}, temps: map[string]bool{}}
	for _, e := range sd.manifest {
		if sd.skillFile == Owned {
			w.named[e.Path] = e
		} else {
			w.claimed[e.Path] = e
		}
	}
	for _, f := range sd.files {
		if clients.IsSkillFile(f.Path) {
			w.owner = f.Owner
		}
	}
	for _, t := range sd.temps {
		w.temps[t] = true
	}
	w.walk(skill, "", entries, 0)
	w.swappedOut()
}

// walk looks at the entries of the folder sub of the skill directory, opened as
// dir.
func (w *supportWalk) walk(dir workspacefs.Dir, sub string, entries []workspacefs.Entry, depth int) {
	sd := w.sd
	for _, e := range entries {
		rel := path.Join(sub, e.Name)
		at := path.Join(sd.path, rel)
		if w.entries++; w.entries > MaxSkillDirEntries || depth > maxSupportDepth {
			// Not a skill's: what skillsync would write here cannot be told from
			// a person's file, so none of it is written.
			sd.unscanned = fmt.Sprintf("%s holds more than %d entries or nests more than %d deep, which skillsync does not look through; move what is not the skill's out of it",
				sd.path, MaxSkillDirEntries, maxSupportDepth)
			return
		}
		switch {
		case sub == "" && (strings.EqualFold(e.Name, SkillFile) || slices.Contains(sideFiles[""], e.Name)):
			// Read as every skill directory's.
		case slices.Contains(sideFiles[sub], e.Name):
			// A side file, read by scanSideFiles.
		case banner.IsTempName(e.Name) && e.Type.IsRegular():
			w.temp(dir, e.Name, at)
		case e.Type&fs.ModeSymlink != 0:
			// Never followed, and never written through: a wanted file there or
			// below is a conflict.
			sd.files = append(sd.files, File{Path: at, Reason: at + " is a symlink", Link: true})
		case e.Type.IsDir():
			sd.folders = append(sd.folders, at)
			w.descend(dir, e.Name, rel, depth)
		case !e.Type.IsRegular():
			sd.files = append(sd.files, File{Path: at, Reason: at + " is not a regular file", Obstruction: true})
		default:
			w.file(dir, e.Name, rel, at)
		}
		if sd.err != nil || sd.unscanned != "" {
			return
		}
	}
}

// temp adds the temp-named file name of dir, at in the workspace, if it is what
// an interrupted write of skillsync's left: the start of a generated file, or a
// supporting file staged under the name its content gives it.
func (w *supportWalk) temp(dir workspacefs.Dir, name, at string) {
	if w.temps[at] {
		return
	}
	data, err := dir.ReadRegular(name, banner.MaxSupportingFileSize)
	switch {
	case err != nil:
	case banner.IsPartial(data) || banner.IsStaged(name, data):
		w.sd.temps = append(w.sd.temps, at)
	case w.sd.skillFile != Modified:
		// Perhaps a staged supporting file a kill cut short: its name is the
		// digest of content not all there. Only the plan, which knows what
		// content is wanted there, can tell.
		w.sd.staged = append(w.sd.staged, File{Path: at, Bytes: data, Digest: sha256.Sum256(data)})
	}
}

// swappedOut marks Supporting, of the files the walk took for staged files a
// kill perhaps cut short, each that is the old file an update swapped out and a
// kill left: its bytes are whole what the manifest of the intact SKILL.md names
// for a file beside it, and its name is the staged name of what that file holds
// now, the new content swapped in.
func (w *supportWalk) swappedOut() {
	if len(w.named) == 0 {
		return
	}
	now := map[string][32]byte{}
	for _, f := range w.sd.files {
		now[f.Path] = f.Digest
	}
	for i := range w.sd.staged {
		f := &w.sd.staged[i]
		digest := hex.EncodeToString(f.Digest[:])
		for rel, e := range w.named {
			p := path.Join(w.sd.path, rel)
			if sum, ok := now[p]; ok && e.Digest == digest && path.Dir(p) == path.Dir(f.Path) && banner.StagedNameOf(sum) == path.Base(f.Path) {
				f.Supporting, f.Bytes = true, nil
				break
			}
		}
	}
}

// descend walks the folder name of dir, rel in the skill directory.
func (w *supportWalk) descend(dir workspacefs.Dir, name, rel string, depth int) {
	if l, ok := w.sd.listedAt(rel); ok {
		w.walk(l.dir, rel, l.entries, depth+1)
		return
	}
	sub, err := dir.Sub(name)
	var entries []workspacefs.Entry
	if err == nil {
		defer sub.Close()
		entries, err = sub.Entries()
	}
	if err != nil {
		w.sd.err = fmt.Errorf("read %s: %w", path.Join(w.sd.path, rel), workspacefs.Cause(err))
		return
	}
	if len(entries) == 0 && len(sideFiles[rel]) == 0 && (w.madeFor(rel) || inStagedFolder(path.Join(path.Base(w.sd.path), rel))) {
		w.sd.emptySubdirs = append(w.sd.emptySubdirs, path.Join(w.sd.path, rel))
	}
	w.walk(sub, rel, entries, depth+1)
}

// listedAt is the directory rel of the skill directory when scanSideFiles
// listed it.
func (sd *skillDir) listedAt(rel string) (listedDir, bool) {
	for _, l := range sd.listed {
		if l.rel == rel {
			return l, true
		}
	}
	return listedDir{}, false
}

// madeFor says the folder rel is on the way to a file the manifest names: one
// skillsync made, which an empty one is left of. A person's empty folder stays.
func (w *supportWalk) madeFor(rel string) bool {
	for p := range w.named {
		if strings.HasPrefix(p, rel+"/") {
			return true
		}
	}
	return false
}

// inStagedFolder says the folder rel of a target directory (a skill directory
// or a folder in one) is, or is in, one of a temp name: a folder skillsync made
// for new files, whose files it stages there before putting it in place by a
// rename, left by a run stopped meanwhile.
func inStagedFolder(rel string) bool {
	return slices.ContainsFunc(strings.Split(rel, "/"), banner.IsTempName)
}

// InStagedFolder says the file p is a leftover of a folder of a temp name: any
// file in a skill directory of one, whose files are written under their own
// names before it is renamed into place (scanStagedSkillDir), or a temp-named
// file in a folder of one in a skill directory (see inStagedFolder). Only
// skillsync stages files there, so it is a leftover whatever it holds, even cut
// short by a kill while it was written: a run that no longer wants the file
// could not tell it by its bytes.
func InStagedFolder(p string) bool {
	skill, dir := clients.SkillDirOf(p), path.Dir(p)
	if skill == "" || !strings.HasPrefix(p, skill+"/") {
		return false
	}
	return banner.IsTempName(path.Base(skill)) ||
		banner.IsTempName(path.Base(p)) && inStagedFolder(strings.TrimPrefix(dir, path.Dir(skill)+"/"))
}

// file looks at the regular file name of dir, rel in the skill directory and at
// in the workspace: skillsync's when the manifest names it, a person's if not.
func (w *supportWalk) file(dir workspacefs.Dir, name, rel, at string) {
	sd := w.sd
	entry, named := w.named[rel]
	_, byEdited := w.claimed[rel]
	if !named && !byEdited {
		sd.files = append(sd.files, File{Path: at, Reason: "no manifest of skillsync's in " + path.Join(sd.path, SkillFile) + " names it"})
		return
	}
	data, stamp, err := dir.ReadStamped(name, banner.MaxSupportingFileSize)
	switch {
	case errors.Is(err, workspacefs.ErrTooLarge):
		sd.files = append(sd.files, File{Path: at, Reason: at + " is larger than any file skillsync writes"})
		return
	case errors.Is(err, workspacefs.ErrNotRegular):
		sd.files = append(sd.files, File{Path: at, Reason: at + " is not a regular file"})
		return
	case err != nil:
		sd.err = fmt.Errorf("read %s: %w", at, workspacefs.Cause(err))
		return
	}
	sd.stamps = append(sd.stamps, Stamped{at, stamp})
	f := File{Path: at, Bytes: data, Digest: sha256.Sum256(data)}
	if workspacefs.ExecutableBits {
		exec, err := dir.Executable(name)
		if err != nil {
			sd.err = fmt.Errorf("read %s: %w", at, workspacefs.Cause(err))
			return
		}
		f.Executable = &exec
	}
	if byEdited {
		// A line a person can add proves nothing: the file is theirs, though
		// read, so that --force may find it already as wanted.
		f.Reason = "its SKILL.md was edited by hand, so the manifest in it does not prove the file is skillsync's"
		sd.files = append(sd.files, f)
		return
	}
	want, _ := hex.DecodeString(entry.Digest)
	f.Owner, f.Supporting = w.owner, true
	if bytes.Equal(f.Digest[:], want) {
		f.Ownership, f.Bytes = Owned, nil
	} else {
		f.Ownership = Modified
	}
	sd.files = append(sd.files, f)
}

// NotWrittenYet is st with every supporting file at a path of unwritten whose
// content is not the digest its manifest names taken for a person's: skillsync
// named the path in a SKILL.md before it put its own file there
// (state.UnwrittenFile), so a file there that is not skillsync's content is one a
// person put there meanwhile, not an edit of skillsync's.
func (st State) NotWrittenYet(unwritten map[string]bool) State {
	changed := false
	for p := range unwritten {
		f, ok := st.Files[p]
		if !ok || !f.Supporting || f.Ownership != Modified {
			continue
		}
		if !changed {
			st.Files, changed = maps.Clone(st.Files), true
		}
		f.Ownership, f.Supporting, f.Owner = Unowned, false, ""
		f.Reason = "its SKILL.md named it before skillsync put its file there, so this one is not skillsync's"
		st.Files[p] = f
	}
	return st
}
