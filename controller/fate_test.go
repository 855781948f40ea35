package controller

import (
	"errors"
	"slices"
	"testing"

	"github.com/skillsync/skillsync/controller/apply"
	"github.com/skillsync/skillsync/controller/plan"
)

func TestResultsSayWhatBecameOfEachChange(t *testing.T) {
	changes := []plan.Change{
		{Path: "same", Action: plan.None},
		{Path: "made", Action: plan.Create},
		{Path: "failed", Action: plan.Update},
		{Path: "kept", Action: plan.Cleanup},
		{Path: "deferred", Action: plan.Delete},
		{Path: "unreached", Action: plan.Create},
		{Path: "edited", Action: plan.Conflict},
	}
	out := Outcome{Plan: plan.Plan{Changes: changes}, SettleWhy: "registry/a.yaml changed 1s ago"}
	out.Applied = []apply.Applied{
		{Change: &out.Plan.Changes[1]},
		{Change: &out.Plan.Changes[2], Err: errors.New("read-only file system")},
		{Change: &out.Plan.Changes[3], Kept: "operation not permitted", Undone: true},
	}
	out.Deferred = []*plan.Change{&out.Plan.Changes[4]}

	want := []struct {
		fate    Fate
		notDone string
	}{
		{InSync, ""}, {Made, ""}, {FailedApply, ""}, {LeftUndone, ""},
		{NotReached, "not done: waits for the inputs to settle (registry/a.yaml changed 1s ago)"},
		{NotReached, "not done"}, {Proposed, ""},
	}
	got := slices.Collect(out.Results(false))
	if len(got) != len(want) {
		t.Fatalf("%d results for %d changes", len(got), len(want))
	}
	for i, r := range got {
		if r.Path != changes[i].Path || r.Fate != want[i].fate || r.NotDone != want[i].notDone {
			t.Errorf("result %d = %s fate %d %q, want %s fate %d %q", i, r.Path, r.Fate, r.NotDone, changes[i].Path, want[i].fate, want[i].notDone)
		}
	}
	if got[2].Err == nil || got[3].Kept == "" {
		t.Errorf("the attempts' records are lost: %+v %+v", got[2].Applied, got[3].Applied)
	}

	for _, o := range []struct {
		name  string
		out   Outcome
		check bool
	}{
		{"--check", Outcome{Plan: plan.Plan{Changes: changes}}, true},
		{"a refused plan", Outcome{Plan: plan.Plan{Changes: changes, Refused: "it would delete every generated file"}}, false},
	} {
		for i, r := range slices.Collect(o.out.Results(o.check)) {
			want := Proposed
			if changes[i].Action == plan.None {
				want = InSync
			}
			if r.Fate != want {
				t.Errorf("%s: %s fate %d, want %d", o.name, r.Path, r.Fate, want)
			}
		}
	}
}
