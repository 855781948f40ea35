package observed

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

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
	sd      *skillDir
	named   map[string]banner.ManifestEntry
	owner   string
	temps   map[string]bool
	entries int
}

// scanSupporting walks the skill directory skill, whose entries are given, for
// the files beside its SKILL.md: only where skillsync may write, when there is no
// SKILL.md or it carries skillsync's banner; a person's skill is theirs whole.
func (sd *skillDir) scanSupporting(skill workspacefs.Dir, entries []workspacefs.Entry) {
	if hasEntry(entries, SkillFile) && sd.skillFile == Unowned {
		return
	}
	w := supportWalk{sd: sd, named: map[string]banner.ManifestEntry{}, temps: map[string]bool{}}
	for _, e := range sd.manifest {
		w.named[e.Path] = e
	}
	for _, f := range sd.files {
		if path.Base(f.Path) == SkillFile {
			w.owner = f.Owner
		}
	}
	for _, t := range sd.temps {
		w.temps[t] = true
	}
	w.walk(skill, "", entries, 0)
}

// walk looks at the entries of the folder sub of the skill directory, opened as
// dir.
func (w *supportWalk) walk(dir workspacefs.Dir, sub string, entries []workspacefs.Entry, depth int) {
	sd := w.sd
	for _, e := range entries {
		rel := path.Join(sub, e.Name)
		at := path.Join(sd.path, rel)
		if w.entries++; w.entries > MaxSkillDirEntries || depth > maxSupportDepth {
			sd.err = fmt.Errorf("%s holds more than %d entries, or nests more than %d deep, which no skill does; move what is not the skill's out of it",
				sd.path, MaxSkillDirEntries, maxSupportDepth)
			return
		}
		switch {
		case sub == "" && (strings.EqualFold(e.Name, SkillFile) || slices.Contains(sideFiles[""], e.Name)):
			// Read as every skill directory's.
		case slices.Contains(sideFiles[sub], e.Name):
			// A side file, read by scanSideFiles.
		case banner.IsTempName(e.Name) && e.Type.IsRegular():
			// Supporting files are staged under temp names too, with no banner to
			// tell them by: in a skill directory whose SKILL.md is skillsync's, the
			// exact name is enough.
			if sd.skillFile != Unowned && !w.temps[at] {
				sd.temps = append(sd.temps, at)
			}
		case e.Type&fs.ModeSymlink != 0:
			sd.files = append(sd.files, File{Path: at, Reason: at + " is a symlink", Link: true})
			sd.links = append(sd.links, at)
		case e.Type.IsDir():
			w.descend(dir, e.Name, rel, depth)
		case !e.Type.IsRegular():
			sd.files = append(sd.files, File{Path: at, Reason: at + " is not a regular file", Obstruction: true})
		default:
			w.file(dir, e.Name, rel, at)
		}
		if sd.err != nil {
			return
		}
	}
}

// descend walks the folder name of dir, rel in the skill directory.
func (w *supportWalk) descend(dir workspacefs.Dir, name, rel string, depth int) {
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
	if len(entries) == 0 && len(sideFiles[rel]) == 0 {
		w.sd.emptySubdirs = append(w.sd.emptySubdirs, path.Join(w.sd.path, rel))
	}
	w.walk(sub, rel, entries, depth+1)
}

// file looks at the regular file name of dir, rel in the skill directory and at
// in the workspace: skillsync's when the manifest names it, a person's if not.
func (w *supportWalk) file(dir workspacefs.Dir, name, rel, at string) {
	sd := w.sd
	entry, named := w.named[rel]
	if !named {
		sd.files = append(sd.files, File{Path: at, Reason: "no manifest of skillsync's in " + path.Join(sd.path, SkillFile) + " names it"})
		return
	}
	data, err := dir.ReadRegular(name, banner.MaxSupportingFileSize)
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
	f := File{Path: at, Owner: w.owner, Bytes: data, Digest: sha256.Sum256(data), Supporting: true}
	if workspacefs.ExecutableBits {
		exec, err := dir.Executable(name)
		if err != nil {
			sd.err = fmt.Errorf("read %s: %w", at, workspacefs.Cause(err))
			return
		}
		f.Executable = &exec
	}
	want, _ := hex.DecodeString(entry.Digest)
	switch {
	case bytes.Equal(f.Digest[:], want):
		f.Ownership, f.Bytes = Owned, nil
	case sd.skillFile == Owned:
		f.Ownership = Modified
	default:
		f.Owner, f.Supporting = "", false
		f.Reason = "its SKILL.md was edited by hand, so the manifest in it does not prove the file is skillsync's"
	}
	sd.files = append(sd.files, f)
}
