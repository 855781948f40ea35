package observed

import (
	"path"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// PersonalSkills are the skills found in the clients' personal skill
// directories: per directory, relative to the home directory, the names of the
// skills it holds.
type PersonalSkills map[string]map[string]bool

// Personal lists the skills in every client's personal directories in home: each
// subdirectory that holds a SKILL.md. A directory that cannot be read holds none.
func Personal(home workspacefs.FS) PersonalSkills {
	out := PersonalSkills{}
	for _, c := range clients.All {
		for _, dir := range c.Personal {
			if _, listed := out[dir]; listed {
				continue
			}
			names := map[string]bool{}
			entries, _ := home.ReadDir(dir)
			for _, e := range entries {
				if info, err := home.Stat(path.Join(dir, e.Name(), SkillFile)); err == nil && info.Mode().IsRegular() {
					names[e.Name()] = true
				}
			}
			out[dir] = names
		}
	}
	return out
}
