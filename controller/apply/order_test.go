package apply

import (
	"testing"

	"github.com/skillsync/skillsync/controller/plan"
)

func TestOrderPutsAManifestBetweenItsFilesUpdatesAndCreates(t *testing.T) {
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
