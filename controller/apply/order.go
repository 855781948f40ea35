package apply

import (
	"path"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/controller/plan"
)

// A skill directory with supporting files is proved skillsync's by its
// SKILL.md's manifest, so the order of a plan's changes is what keeps every
// moment of it provable, whenever a run stops:
//
//  1. a supporting file's update before the SKILL.md naming its new digest (a
//     run stopped between leaves a file as desired, which the plan takes as
//     such);
//  2. a supporting file's delete before the SKILL.md that no longer names it
//     (stopped between, the manifest names a file that is gone);
//  3. the SKILL.md, once every one of those in its directory is done;
//  4. a supporting file's create after the SKILL.md naming it (stopped between,
//     the manifest names a file still to write);
//  5. any other delete, a SKILL.md's after its supporting files'.
//
// Anything else has no order to keep and goes with the updates.
type order struct {
	cleanups, writes, supportDeletes, manifests, supportCreates, deletes []*plan.Change
}

func orderOf(pl plan.Plan) order {
	withSupport := map[string]bool{}
	for _, c := range pl.Changes {
		if c.Supporting && c.Action != plan.Conflict && c.Action != plan.None {
			withSupport[skillDirOf(c.Path)] = true
		}
	}
	var o order
	for i := range pl.Changes {
		c := &pl.Changes[i]
		switch {
		case c.Action == plan.Cleanup:
			o.cleanups = append(o.cleanups, c)
		case c.Action == plan.Delete && c.Supporting:
			o.supportDeletes = append(o.supportDeletes, c)
		case c.Action == plan.Delete:
			o.deletes = append(o.deletes, c)
		case c.Action == plan.Create && c.Supporting:
			o.supportCreates = append(o.supportCreates, c)
		case (c.Action == plan.Create || c.Action == plan.Update) && withSupport[skillDirOf(c.Path)] && clients.IsSkillFile(c.Path):
			o.manifests = append(o.manifests, c)
		case c.Action == plan.Create || c.Action == plan.Update:
			o.writes = append(o.writes, c)
		}
	}
	return o
}

// ready are the changes of todo whose skill directory is not among those whose
// earlier steps were not all done.
func (o order) ready(todo []*plan.Change, notDone map[string]bool) []*plan.Change {
	var out []*plan.Change
	for _, c := range todo {
		if !notDone[skillDirOf(c.Path)] {
			out = append(out, c)
		}
	}
	return out
}

// skillDirOf is the skill directory p is in, or p's directory outside one.
func skillDirOf(p string) string {
	if dir := clients.SkillDirOf(p); dir != "" {
		return dir
	}
	return path.Dir(p)
}
