package plan

import (
	"path"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/observed"
)

// holdSkillDirs keeps every file of a skill directory with supporting files as
// it is when any of them is kept. Its SKILL.md's manifest names the supporting
// files skillsync wrote: written while a person's file is kept at a path it
// names, it would claim that file; and a supporting file written while the
// SKILL.md is kept would be a file no manifest names, a person's. A wanted file
// below something that is no directory (a symlink, a person's file) is kept too.
func holdSkillDirs(changes []Change, have observed.State) {
	held := map[string]string{} // skill directory -> why
	supported := map[string]bool{}
	for _, c := range changes {
		if c.Supporting {
			supported[skillDirOf(c.Path)] = true
		}
	}
	for p, f := range have.Files {
		if f.Supporting {
			supported[skillDirOf(p)] = true
		}
	}
	if len(supported) == 0 {
		return
	}
	// What the plan removes is no obstacle: a supporting file that becomes a
	// folder, or a folder a file, is deleted before the create.
	removed := map[string]bool{}
	for _, c := range changes {
		if c.Action == Delete || c.Action == Cleanup {
			removed[c.Path] = true
		}
	}
	for i := range changes {
		c := &changes[i]
		dir := skillDirOf(c.Path)
		if !supported[dir] {
			continue
		}
		if c.Action == Create {
			switch below := notADirectory(c.Path, dir, have, removed); {
			case below != "":
				c.Action, c.want, c.New = Conflict, nil, nil
				c.Reason = below + " is not a directory; kept"
			case have.Folders[c.Path] && !emptied(c.Path, have, removed):
				c.Action, c.want, c.New, c.Obstruction = Conflict, nil, nil, true
				c.Reason = c.Path + " is a directory; kept"
			case c.Supporting && have.Unscanned[dir] != "":
				c.Action, c.want, c.New = Conflict, nil, nil
				c.Reason = have.Unscanned[dir] + "; kept"
			}
		}
		if c.Action == Conflict && (c.Supporting || clients.IsSkillFile(c.Path)) {
			if _, ok := held[dir]; !ok {
				held[dir] = c.Path + " is kept (" + strings.TrimSuffix(c.Reason, "; kept") + ")"
			}
		}
	}
	for i := range changes {
		c := &changes[i]
		why, ok := held[skillDirOf(c.Path)]
		if !ok || !(c.Supporting || clients.IsSkillFile(c.Path)) {
			continue
		}
		switch c.Action {
		case Create, Update, Delete:
			c.Action, c.want, c.New, c.Override = Conflict, nil, nil, NotOverridden
			c.Reason = "not written while " + why
		}
	}
}

// notADirectory is the path between the skill directory dir and p, exclusive,
// that the scan found as something other than a directory and the plan does not
// remove, or "".
func notADirectory(p, dir string, have observed.State, removed map[string]bool) string {
	for q := path.Dir(p); q != dir && strings.HasPrefix(q, dir+"/"); q = path.Dir(q) {
		if _, ok := have.Files[q]; ok && !removed[q] {
			return q
		}
	}
	return ""
}

// emptied says the plan removes everything in the folder dir: every file the
// scan found in it and every leftover of skillsync's it cleans up there (what a
// run stopped with a file moved aside leaves), and every folder in it is on the
// way to one or removed itself (a folder of someone's, even empty, stays, and so
// does dir), or dir itself, empty, which a manifest named a file in (what a run
// stopped between deleting that file and its folder leaves).
func emptied(dir string, have observed.State, removed map[string]bool) bool {
	if removed[dir] {
		return true
	}
	var gone []string
	for p := range removed {
		if _, file := have.Files[p]; !file && strings.HasPrefix(p, dir+"/") {
			gone = append(gone, p) // a leftover the cleanup removes
		}
	}
	for p := range have.Files {
		if strings.HasPrefix(p, dir+"/") {
			if !removed[p] {
				return false
			}
			gone = append(gone, p)
		}
	}
	for f := range have.Folders {
		if strings.HasPrefix(f, dir+"/") && !slices.ContainsFunc(gone, func(p string) bool { return p == f || strings.HasPrefix(p, f+"/") }) {
			return false
		}
	}
	return len(gone) > 0
}
