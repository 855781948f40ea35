package apply

import (
	"testing"

	"github.com/skillsync/skillsync/controller/plan"
)

func TestOrderPutsAManifestAfterItsFilesChanges(t *testing.T) {
	d := ".agents/skills/s/"
	pl := plan.Plan{Changes: []plan.Change{
		{Path: d + "SKILL.md", Action: plan.Update},
		{Path: d + "ref/SKILL.md", Action: plan.Update, Supporting: true},
		{Path: d + "new.md", Action: plan.Create, Supporting: true},
		{Path: d + "gone.md", Action: plan.Delete, Supporting: true},
		{Path: ".agents/skills/plain/SKILL.md", Action: plan.Update},
		{Path: ".agents/skills/old/SKILL.md", Action: plan.Delete},
		{Path: d + ".skillsync-0123456789abcdef.tmp", Action: plan.Cleanup},
	}}
	o := orderOf(pl)
	paths := func(cs []*plan.Change) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Path)
		}
		return out
	}
	for _, step := range []struct {
		name      string
		got, want []string
	}{
		{"cleanups", paths(o.cleanups), []string{d + ".skillsync-0123456789abcdef.tmp"}},
		// A supporting file named SKILL.md deeper in is no manifest.
		{"writes", paths(o.writes), []string{d + "ref/SKILL.md", ".agents/skills/plain/SKILL.md"}},
		{"supportDeletes", paths(o.supportDeletes), []string{d + "gone.md"}},
		{"manifests", paths(o.manifests), []string{d + "SKILL.md"}},
		{"supportCreates", paths(o.supportCreates), []string{d + "new.md"}},
		{"deletes", paths(o.deletes), []string{".agents/skills/old/SKILL.md"}},
	} {
		if len(step.got) != len(step.want) {
			t.Errorf("%s = %v, want %v", step.name, step.got, step.want)
			continue
		}
		for i := range step.got {
			if step.got[i] != step.want[i] {
				t.Errorf("%s = %v, want %v", step.name, step.got, step.want)
			}
		}
	}
	if ready := o.ready(o.manifests, map[string]bool{".agents/skills/s": true}); len(ready) != 0 {
		t.Errorf("a manifest whose files did not all change was ready: %v", paths(ready))
	}
}

// Only the creates of a skill directory that deletes a supporting file wait for
// the deletes (a file that becomes a folder); every other is staged ahead.
func TestOnlyCreatesBesideADeleteWaitForIt(t *testing.T) {
	pl := plan.Plan{Changes: []plan.Change{
		{Path: ".agents/skills/a/gone.md", Action: plan.Delete, Supporting: true},
		{Path: ".agents/skills/a/gone.md/new.md", Action: plan.Create, Supporting: true},
		{Path: ".agents/skills/b/new.md", Action: plan.Create, Supporting: true},
	}}
	o := orderOf(pl)
	ahead, waiting := o.split(o.supportCreates, true)
	if len(ahead) != 1 || ahead[0].Path != ".agents/skills/b/new.md" || len(waiting) != 1 || waiting[0].Path != ".agents/skills/a/gone.md/new.md" {
		t.Errorf("deleting: ahead %v, waiting %v", ahead, waiting)
	}
	if ahead, waiting := o.split(o.supportCreates, false); len(ahead) != 2 || len(waiting) != 0 {
		t.Errorf("deletes held back: ahead %v, waiting %v; want every create ahead", ahead, waiting)
	}
}
