package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// spec.skillDirs declares skill directories by glob.

// matchedSkillDirs adds to reg a skill for every directory a pattern of
// spec.skillDirs matches that holds a SKILL.md.
func (l *loader) matchedSkillDirs(reg *Registry) {
	for i, pattern := range reg.Config.Spec.SkillDirs {
		pos := itemAt(reg.config, i, "spec", "skillDirs").Position()
		clean, p := l.resolvePattern(pattern, pos)
		if p != nil {
			l.add(*p)
			continue
		}
		dirs, err := matchDirs(l.r, clean)
		if err != nil && l.failed(pattern, err) {
			return
		}
		if err != nil {
			l.add(Problem{Pos: pos, Message: fmt.Sprintf("cannot list the skill directories %q matches: %v", pattern, workspacefs.Cause(err)),
				Hint: "a directory it lists must be readable"})
			continue
		}
		reg.matchedDirs = append(reg.matchedDirs, dirs...)
		type found struct {
			skill Skill
			rel   string // "" where the directory resolves outside
		}
		var skills []found
		var rels []string
		for _, dir := range dirs {
			if _, err := l.r.Lstat(path.Join(dir, "SKILL.md")); err != nil {
				continue
			}
			f := found{skill: Skill{Name: path.Base(dir), Spec: SkillSpec{Dir: dir}, pattern: i + 1, doc: reg.config}}
			if rel, p := l.resolveInside(dir, dir, pos); p != nil {
				l.add(*p)
			} else {
				f.rel = rel
				rels = append(rels, rel)
			}
			skills = append(skills, f)
		}
		walked := walkSkillDirs(l.r, rels)
		for _, f := range skills {
			if f.rel != "" {
				l.fillFromDir(&f.skill, f.rel, pos, walked[0])
				walked = walked[1:]
			}
			reg.Skills = append(reg.Skills, f.skill)
		}
		if len(skills) == 0 {
			l.add(Problem{Pos: pos, Message: fmt.Sprintf("skillDirs pattern %q matches no directory holding a SKILL.md", pattern),
				Hint: "check the pattern, relative to " + ConfigName + ", or remove it"})
		}
	}
}

// matchDirs lists the directories of r the clean glob pattern matches, sorted.
func matchDirs(r workspacefs.FS, clean string) ([]string, error) {
	current := []string{"."}
	for _, seg := range strings.Split(clean, "/") {
		var next []string
		for _, dir := range current {
			if !strings.ContainsAny(seg, `*?[\`) {
				if info, err := r.Stat(path.Join(dir, seg)); err == nil && info.IsDir() {
					next = append(next, path.Join(dir, seg))
				}
				continue
			}
			entries, err := r.ReadDir(dir)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			for _, e := range entries {
				p := path.Join(dir, e.Name())
				if MatchSegment(seg, e.Name()) {
					if info, err := r.Stat(p); err == nil && info.IsDir() {
						next = append(next, p)
					}
				}
			}
		}
		current = next
	}
	slices.Sort(current)
	return current, nil
}
