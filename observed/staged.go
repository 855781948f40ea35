package observed

import (
	"crypto/sha256"
	"path"

	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// scanStagedSkillDir adds what the entry name of the target directory, a folder
// of a temp name, holds: a new skill directory whose files a run wrote under
// their own names and stopped before renaming it into place. Only skillsync
// makes a folder of that name, so every file in it, at any depth, is a leftover
// whatever it holds (a kill can cut any of them short), and so is every folder
// once emptied. A symlink or other special file in it is left alone, and the
// folders holding one with it.
func (sd *skillDir) scanStagedSkillDir(target workspacefs.Dir, name string) {
	d, err := target.Sub(name)
	if err != nil {
		return // gone meanwhile, or not ours to read: nothing to clean
	}
	defer d.Close()
	entries := 0
	sd.empty = sd.walkStaged(d, sd.path, 0, &entries)
}

// walkStaged adds the files of the staged folder dir, at in the workspace, as
// leftovers, and says whether dir holds nothing at all.
func (sd *skillDir) walkStaged(dir workspacefs.Dir, at string, depth int, entries *int) (empty bool) {
	list, err := dir.Entries()
	if err != nil {
		return false
	}
	for _, e := range list {
		rel := path.Join(at, e.Name)
		if *entries++; *entries > MaxSkillDirEntries || depth > maxSupportDepth {
			return false
		}
		switch {
		case e.Type.IsRegular():
			data, err := dir.ReadRegular(e.Name, banner.MaxSupportingFileSize)
			if err == nil {
				// Its digest is all the cleanup needs: the folder proves it a leftover.
				sd.staged = append(sd.staged, File{Path: rel, Digest: sha256.Sum256(data)})
			}
		case e.Type.IsDir():
			sub, err := dir.Sub(e.Name)
			if err != nil {
				continue
			}
			if sd.walkStaged(sub, rel, depth+1, entries) {
				sd.emptySubdirs = append(sd.emptySubdirs, rel)
			}
			sub.Close()
		}
	}
	return len(list) == 0
}
