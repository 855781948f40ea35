package desired

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired/registry"
)

// Taken are the skill names a person's own file holds where skillsync would write
// the skill: per name, each SKILL.md path it wants and the person's file found
// there (the same path, or one differing only in case).
type Taken map[string]map[string]string

// Add records that want, the SKILL.md of the skill name, is a person's file found.
func (t Taken) Add(name, want, found string) {
	if t[name] == nil {
		t[name] = map[string]string{}
	}
	t[name][want] = found
}

// WithholdTaken keeps every skill whose name a person's file holds in one of its
// targets out of all its targets, so that a name means one thing in every client.
// The SKILL.md where a person's file is stays wanted, for the plan to report it as
// a conflict and keep the file; every other file of the skill is withheld, with
// the person's files as the reason.
func (st State) WithholdTaken(taken Taken) State {
	if len(taken) == 0 {
		return st
	}
	type skillIn struct{ skill, target string }
	withheld := map[skillIn]bool{}
	for p, f := range st.Files {
		mine, ok := taken[f.Skill]
		if _, kept := mine[p]; !ok || kept {
			continue
		}
		delete(st.Files, p)
		if _, beside := mine[path.Join(clients.SkillDirOf(p), SkillFile)]; beside || withheld[skillIn{f.Skill, f.Target}] {
			continue // a side file of the person's own skill directory, or reported
		}
		withheld[skillIn{f.Skill, f.Target}] = true
		found := slices.Sorted(maps.Values(mine))
		st.Withheld = append(st.Withheld, Withheld{Skill: f.Skill, Owner: f.Owner, Target: f.Target, HandWritten: found,
			Reason: "hand-written at " + strings.Join(found, ", ") + "; a name must mean one thing in every client"})
	}
	SortWithheld(st.Withheld)
	return st
}

// NamesTaken are the problems of a plan's skills withheld because a person's file
// holds their name: one per skill, at the declaration of the name.
func NamesTaken(reg *registry.Registry, withheld []Withheld) registry.Problems {
	var ps registry.Problems
	seen := map[string]bool{}
	for _, w := range withheld {
		if len(w.HandWritten) == 0 || seen[w.Skill] {
			continue
		}
		seen[w.Skill] = true
		pos, _ := reg.NameAt(w.Owner)
		ps = append(ps, registry.Problem{Pos: pos,
			Message: fmt.Sprintf("skill name %q is taken by a hand-written skill at %s, so skillsync generates %s in no target",
				w.Skill, strings.Join(w.HandWritten, ", "), w.Owner),
			Hint: "rename it, leave that directory out with the skill's targets, or remove the hand-written skill"})
	}
	return ps.Sorted()
}
