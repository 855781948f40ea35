package controller

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// sortedUnion gives what sorting all the lists together and dropping repeats
// gives, whichever of them come sorted.
func TestSortedUnionIsTheSortOfAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"", ".agents", ".agents/skills", ".agents/skills/a", ".agents/skills/a/SKILL.md", ".agents/skills/a/agents",
		".claude", ".claude/skills", ".claude/skills/B", ".claude/skills/b", ".claude/skills/b/SKILL.md", "registry", "registry/a.yaml", "ü"}
	for range 2000 {
		var lists [][]string
		var all []string
		for range rng.IntN(4) {
			var l []string
			for range rng.IntN(8) {
				l = append(l, names[rng.IntN(len(names))])
			}
			if rng.IntN(2) == 0 {
				slices.Sort(l)
			}
			lists = append(lists, l)
			all = append(all, l...)
		}
		slices.Sort(all)
		want := slices.Compact(all)
		if got := sortedUnion(lists...); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("sortedUnion(%q) = %q, want %q", lists, got, want)
		}
	}
}
