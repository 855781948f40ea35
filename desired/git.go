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

// BuildTargetInGit is BuildTarget for a workspace in git, each file marked for
// the target's git files (see WithGitFiles). Ignore mode ignores every file.
// Commit mode builds the skills of the declared profile, committed, and adds the
// skills only the active profile makes, ignored: a local profile adds skills
// where git ignores them and never changes a committed file.
func BuildTargetInGit(reg *registry.Registry, profile Profile, git Git, target string) State {
	active := BuildTarget(reg, profile, target)
	switch git.Mode {
	case registry.GeneratedIgnore:
		for p, f := range active.Files {
			f.gitIgnored = true
			active.Files[p] = f
		}
		return active
	case registry.GeneratedCommit:
	default:
		return active
	}
	st := BuildTarget(reg, git.Declared, target)
	for p, f := range active.Files {
		if _, committed := st.Files[p]; !committed {
			f.gitIgnored = true
			st.Files[p] = f
		}
	}
	st.Profile, st.Withheld = active.Profile, nil
	for _, w := range active.Withheld {
		if _, built := st.Files[path.Join(clients.Dir(w.Target), w.Skill, SkillFile)]; !built {
			st.Withheld = append(st.Withheld, w)
		}
	}
	return st
}

// GitLines are the lines one entry of a target directory, a skill directory,
// adds to the target's git files: a line per generated file in it.
type GitLines struct {
	Attributes []string // files git commits, each marked generated
	Ignore     []string // files git is to ignore
}

// GitLinesByEntry are the lines each skill directory of the target directory dir
// adds to its git files, by the directory's name, as the files of st make them.
func (st State) GitLinesByEntry(dir string) map[string]GitLines {
	out := map[string]GitLines{}
	for p, f := range st.Files {
		rel, ok := strings.CutPrefix(p, dir+"/")
		name, _, _ := strings.Cut(rel, "/")
		if !ok || f.Skill == "" {
			continue
		}
		lines := out[name]
		if f.gitIgnored {
			lines.Ignore = append(lines.Ignore, "/"+gitPattern(rel))
		} else {
			lines.Attributes = append(lines.Attributes, "/"+gitPattern(rel)+" "+gitfiles.Generated)
		}
		out[name] = lines
	}
	return out
}

// WithGitFiles adds the git files of target to st, made of the lines of every
// skill directory in it (GitLinesByEntry, or kept from an earlier build): in
// commit mode a .gitattributes marking each committed file generated, and a
// .gitignore naming each ignored one, each file only where it has a line to hold.
// So a target directory has at most one git file that git sees. Each lists itself
// too, and is optional: where a person's file is at its path, that file stays.
func (st State) WithGitFiles(git Git, target string, lines map[string]GitLines) State {
	if git.Mode == "" {
		return st
	}
	dir := clients.Dir(target)
	var attributes, ignore []string
	for _, l := range lines {
		attributes = append(attributes, l.Attributes...)
		ignore = append(ignore, l.Ignore...)
	}
	slices.Sort(attributes)
	slices.Sort(ignore)
	add := func(name, self string, lines []string) {
		if len(lines) == 0 {
			return
		}
		p := path.Join(dir, name)
		content := self + "\n" + strings.Join(lines, "\n") + "\n"
		st.Files[p] = File{Path: p, Target: target, Owner: GitOwner(target), Optional: true, side: content}
	}
	add(gitfiles.Attributes, "/"+gitfiles.Attributes+" "+gitfiles.Generated, attributes)
	add(gitfiles.Ignore, "/"+gitfiles.Ignore, ignore)
	return st
}

// gitPattern is the pattern of .gitignore and .gitattributes that matches the
// path rel alone. A blank would end a pattern of .gitattributes, and one at the end
// is dropped from a pattern of .gitignore: the class [ ] matches it in both. The
// glob characters themselves are refused in supporting files' names.
func gitPattern(rel string) string { return strings.ReplaceAll(rel, " ", "[ ]") }

// GitOwner is the owner of the git files of target: the target, not a skill.
func GitOwner(target string) string { return "target/" + target }
