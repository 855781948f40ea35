package desired

import (
	"path"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/gitfiles"
)

// Git is how the workspace's git repository is to treat generated files; the zero
// value is a workspace outside git, where none of this applies.
type Git struct {
	// Mode is registry.GeneratedCommit or registry.GeneratedIgnore.
	Mode string
	// Declared is the workspace's own profile (spec.profile): in commit mode, the
	// files committed are those it makes, whatever profile is active here.
	Declared Profile
}

// BuildTargetInGit is BuildTarget for a workspace in git. Ignore mode adds a
// .gitignore beside every generated skill. Commit mode builds the skills of the
// declared profile, each with a .gitattributes marking it generated, and adds the
// skills only the active profile makes, each with a .gitignore: a local profile
// adds skills where git ignores them and never changes a committed file.
func BuildTargetInGit(reg *registry.Registry, profile Profile, git Git, target string) State {
	active := BuildTarget(reg, profile, target)
	switch git.Mode {
	case registry.GeneratedIgnore:
		return active.beside(active.Files, gitfiles.Ignore, ignoring(active.Files))
	case registry.GeneratedCommit:
	default:
		return active
	}
	committed := BuildTarget(reg, git.Declared, target)
	extras := map[string]File{}
	for p, f := range active.Files {
		if _, ok := committed.Files[p]; !ok {
			extras[p] = f
		}
	}
	st := committed.beside(committed.Files, gitfiles.Attributes, attributes)
	for p, f := range extras {
		st.Files[p] = f
	}
	st = st.beside(extras, gitfiles.Ignore, ignoring(extras))
	st.Profile, st.Withheld = active.Profile, nil
	for _, w := range active.Withheld {
		if _, built := st.Files[path.Join(clients.Dir(w.Target), w.Skill, SkillFile)]; !built {
			st.Withheld = append(st.Withheld, w)
		}
	}
	return st
}

// beside adds the file name to the directory of each SKILL.md of files, owned
// like it, holding what content gives for that directory.
func (st State) beside(files map[string]File, name string, content func(dir string) string) State {
	for p, f := range files {
		if path.Base(p) != SkillFile {
			continue
		}
		dir := path.Dir(p)
		side := path.Join(dir, name)
		st.Files[side] = File{Path: side, Target: f.Target, Skill: f.Skill, Owner: f.Owner, from: f.from, side: content(dir)}
	}
	return st
}

// ignoring is the .gitignore of each skill directory of files: the files
// skillsync writes there, itself included, one by one, so that git still sees
// whatever a person adds beside them.
func ignoring(files map[string]File) func(dir string) string {
	byDir := map[string][]string{}
	for p := range files {
		if dir := clients.SkillDirOf(p); dir != "" {
			byDir[dir] = append(byDir[dir], "/"+strings.TrimPrefix(p, dir+"/"))
		}
	}
	return func(dir string) string {
		names := append([]string{"/" + gitfiles.Ignore}, byDir[dir]...)
		slices.Sort(names)
		return strings.Join(names, "\n") + "\n"
	}
}

// attributes is the .gitattributes of every skill directory.
func attributes(string) string { return gitfiles.AttributesContent }
