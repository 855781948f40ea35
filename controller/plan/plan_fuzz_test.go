package plan

import (
	"fmt"
	"testing"

	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/observed"
)

// expected is the plan table of docs/ownership.md, written out as its own oracle: the action for one
// path from what is on disk and whether it is wanted. "" means not in the plan.
func expected(present bool, own observed.Ownership, same, wanted, force bool) Action {
	switch {
	case !present && wanted:
		return Create
	case !present:
		return ""
	case own == observed.Unowned && wanted:
		return Conflict
	case own == observed.Unowned:
		return ""
	case own == observed.Modified && !force:
		return Conflict
	case own == observed.Modified && wanted:
		return Update
	case own == observed.Modified:
		return Delete
	case !wanted:
		return Delete
	case same:
		return None
	}
	return Update
}

// FuzzPlan builds random desired/observed pairs and checks every path's action
// against the table, plus the empty-set guard.
func FuzzPlan(f *testing.F) {
	f.Add([]byte{0x01, 0x03, 0x07, 0x0b, 0x13, 0x02}, false, false)
	f.Add([]byte{0x06, 0x0a, 0x0e}, true, false)
	f.Add([]byte{0x06}, false, true)
	f.Fuzz(func(t *testing.T, cells []byte, force, allowEmpty bool) {
		if len(cells) > 64 {
			cells = cells[:64]
		}
		want := desired.State{Files: map[string]desired.File{}}
		have := observed.State{Files: map[string]observed.File{}}
		type cell struct {
			present, wanted, same bool
			own                   observed.Ownership
		}
		cellsByPath := map[string]cell{}
		for i, b := range cells {
			p := fmt.Sprintf(".claude/skills/s%d/SKILL.md", i)
			c := cell{wanted: b&1 != 0, present: b&2 != 0, own: observed.Ownership((b >> 2) % 3), same: b&16 != 0}
			cellsByPath[p] = c
			if c.wanted {
				want.Files[p] = desired.File{Path: p, Owner: "capability/x", Bytes: []byte("new")}
			}
			if c.present {
				content := "old"
				if c.same {
					content = "new"
				}
				have.Files[p] = observed.File{Path: p, Ownership: c.own, Bytes: []byte(content)}
			}
		}
		plan := Make(want, have, Options{Force: force, AllowEmpty: allowEmpty})
		got := map[string]Action{}
		for _, p := range plan.InSync {
			got[p] = None
		}
		for _, ch := range plan.Changes {
			if _, dup := got[ch.Path]; dup {
				t.Fatalf("two actions for %s", ch.Path)
			}
			got[ch.Path] = ch.Action
		}
		for p, c := range cellsByPath {
			if w := expected(c.present, c.own, c.same, c.wanted, force); got[p] != w {
				t.Fatalf("%s %+v force=%v: planned %q, the table says %q", p, c, force, got[p], w)
			}
		}
		refuse := len(want.Files) == 0 && plan.Count(Delete) > 0 && !allowEmpty
		if (plan.Refused != "") != refuse {
			t.Fatalf("refused=%q, want refused=%v (desired %d, deletes %d, allowEmpty %v)", plan.Refused, refuse, len(want.Files), plan.Count(Delete), allowEmpty)
		}
	})
}
