package controller

import (
	"fmt"
	"strings"

	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
)

// NamesTaken are the problems of a plan's skills withheld because a person's file
// holds their name: one per skill, at the declaration of the name.
func NamesTaken(reg *registry.Registry, withheld []desired.Withheld) registry.Problems {
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
