package plan

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/observed"
)

const p = ".claude/skills/intent/SKILL.md"

var (
	wantFile = desired.File{Path: p, Owner: "capability/intents.propose", Bytes: []byte("new")}
	owned    = func(b string) observed.File {
		return observed.File{Path: p, Ownership: observed.Owned, Owner: "capability/x", Bytes: []byte(b)}
	}
	modified  = observed.File{Path: p, Ownership: observed.Modified, Owner: "capability/x", Bytes: []byte("edited")}
	unowned   = observed.File{Path: p, Ownership: observed.Unowned, Reason: "no skillsync banner", Bytes: []byte("mine")}
	otherWant = desired.File{Path: ".qwen/skills/other/SKILL.md", Owner: "capability/other", Bytes: []byte("x")}
)

// TestPlanTable covers every cell of the plan table in docs/ownership.md, with and without --force.
func TestPlanTable(t *testing.T) {
	type cell struct {
		name   string
		have   *observed.File
		wanted bool
		force  bool
		want   Action // "" means the path is not in the plan at all
	}
	own := func(b string) *observed.File { f := owned(b); return &f }
	cells := []cell{
		{"nothing, wanted", nil, true, false, Create},
		{"nothing, wanted, force", nil, true, true, Create},
		{"owned same bytes, wanted", own("new"), true, false, None},
		{"owned same bytes, wanted, force", own("new"), true, true, None},
		{"owned same bytes, not wanted", own("new"), false, false, Delete},
		{"owned other bytes, wanted", own("old"), true, false, Update},
		{"owned other bytes, not wanted", own("old"), false, false, Delete},
		{"owned other bytes, not wanted, force", own("old"), false, true, Delete},
		{"modified, wanted", &modified, true, false, Conflict},
		{"modified, not wanted", &modified, false, false, Conflict},
		{"modified, wanted, force", &modified, true, true, Update},
		{"modified, not wanted, force", &modified, false, true, Delete},
		{"unowned, wanted", &unowned, true, false, Conflict},
		{"unowned, wanted, force", &unowned, true, true, Conflict},
		{"unowned, not wanted", &unowned, false, false, ""},
		{"unowned, not wanted, force", &unowned, false, true, ""},
	}
	for _, c := range cells {
		t.Run(c.name, func(t *testing.T) {
			want := desired.State{Files: map[string]desired.File{otherWant.Path: otherWant}}
			if c.wanted {
				want.Files[p] = wantFile
			}
			have := observed.State{Files: map[string]observed.File{}}
			if c.have != nil {
				have.Files[p] = *c.have
			}
			plan := Make(want, have, Options{Force: c.force})
			got := Action("")
			for _, inSync := range plan.InSync {
				if inSync == p {
					got = None
				}
			}
			for _, ch := range plan.Changes {
				if ch.Path == p {
					got = ch.Action
					if ch.Action == Update || ch.Action == Create {
						if string(ch.New) != "new" {
							t.Errorf("writes %q, want the desired bytes", ch.New)
						}
					}
					if c.have != nil && string(ch.Old) != string(c.have.Bytes) {
						t.Errorf("plan expects %q on disk, observed %q", ch.Old, c.have.Bytes)
					}
				}
			}
			if got != c.want {
				t.Errorf("action = %q, want %q", got, c.want)
			}
			if plan.Refused != "" {
				t.Errorf("unexpectedly refused: %s", plan.Refused)
			}
		})
	}
}

func TestPlanOwnerOfOrphanComesFromBanner(t *testing.T) {
	plan := Make(desired.State{Files: map[string]desired.File{otherWant.Path: otherWant}},
		observed.State{Files: map[string]observed.File{p: owned("old")}}, Options{})
	if got := plan.Changes[0]; got.Path != p || got.Action != Delete || got.Owner != "capability/x" {
		t.Errorf("orphan change = %+v", got)
	}
}

func TestPlanRefusesToEmptyTheWorkspace(t *testing.T) {
	have := observed.State{Files: map[string]observed.File{p: owned("old")}}
	plan := Make(desired.State{Files: map[string]desired.File{}}, have, Options{})
	if plan.Refused == "" || !plan.Emptying {
		t.Fatalf("a plan deleting every generated file with nothing desired was not refused as emptying: %+v", plan)
	}
	if allowed := Make(desired.State{Files: map[string]desired.File{}}, have, Options{AllowEmpty: true}); allowed.Refused != "" || allowed.Count(Delete) != 1 {
		t.Errorf("--allow-empty plan = %+v", allowed)
	}
	if nothing := Make(desired.State{Files: map[string]desired.File{}}, observed.State{}, Options{}); nothing.Refused != "" {
		t.Error("an empty plan on an empty workspace was refused")
	}
}

func TestPlanBlockedDirectoryIsAConflict(t *testing.T) {
	have := observed.State{Files: map[string]observed.File{}, Blocked: map[string]string{".claude/skills": ".claude is a symlink"}}
	plan := Make(desired.State{Files: map[string]desired.File{p: wantFile}}, have, Options{Force: true})
	want := []Change{{Path: p, Action: Conflict, Owner: wantFile.Owner, Reason: ".claude is a symlink"}}
	if diff := cmp.Diff(want, plan.Changes, cmpopts.IgnoreUnexported(Change{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestPlanCleansTempFilesAndSortsByPath(t *testing.T) {
	tmp := ".claude/skills/intent/.skillsync-1.tmp"
	plan := Make(
		desired.State{Files: map[string]desired.File{p: wantFile, otherWant.Path: otherWant}},
		observed.State{Files: map[string]observed.File{}, TempFiles: []string{tmp}}, Options{})
	var got []string
	for _, c := range plan.Changes {
		got = append(got, string(c.Action)+" "+c.Path)
	}
	want := []string{"cleanup " + tmp, "create " + p, "create " + otherWant.Path}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if plan.Pending() != 3 {
		t.Errorf("Pending = %d, want 3", plan.Pending())
	}
}

// A file a person edited says what Force would do with it, or did, so the caller
// can say how to ask for that.
func TestPlanOfAHandEditedFileSaysWhatForceDoes(t *testing.T) {
	for _, c := range []struct {
		wanted, force bool
		action        Action
		reason        string
		override      Override
	}{
		{true, false, Conflict, "edited by hand; kept", ForceRestores},
		{false, false, Conflict, "edited by hand, no longer declared; kept", ForceDeletes},
		{true, true, Update, "edited by hand; restored", ForceRestored},
		{false, true, Delete, "orphan: its declaration is gone or withheld", NotOverridden},
	} {
		want := desired.State{Files: map[string]desired.File{otherWant.Path: otherWant}}
		if c.wanted {
			want.Files[p] = wantFile
		}
		plan := Make(want, observed.State{Files: map[string]observed.File{p: modified}}, Options{Force: c.force})
		if got := plan.Changes[0]; got.Action != c.action || got.Reason != c.reason || got.Override != c.override {
			t.Errorf("wanted %v, force %v: change = %+v", c.wanted, c.force, got)
		}
	}
}

func TestPlanRefusesAWorkspaceThatLinksOutside(t *testing.T) {
	have := observed.State{Files: map[string]observed.File{p: owned("old")}, Escapes: []string{".claude/skills"}}
	plan := Make(desired.State{Files: map[string]desired.File{p: wantFile}}, have, Options{Force: true, AllowEmpty: true})
	if !strings.Contains(plan.Refused, ".claude/skills") || plan.Emptying {
		t.Errorf("refused = %q, emptying %v", plan.Refused, plan.Emptying)
	}
}
