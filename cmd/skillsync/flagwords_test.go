package main

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/plan"
)

// The library names no flag; the command line's messages read as the docs quote
// them, the flag in its place.
func TestFlagsAreNamedWhereTheLibraryLeavesThemOut(t *testing.T) {
	emptying := plan.Plan{Refused: "nothing is desired, so the plan would delete all 18 generated files", Emptying: true}
	for _, c := range []struct{ got, want string }{
		{withForce("edited by hand; kept", plan.ForceRestores), "edited by hand; kept (--force restores it)"},
		{withForce("edited by hand, no longer declared; kept", plan.ForceDeletes), "edited by hand, no longer declared; kept (--force deletes it)"},
		{withForce("edited by hand; restored", plan.ForceRestored), "edited by hand; restored by --force"},
		{withForce("orphan: its declaration is gone or withheld", plan.NotOverridden), "orphan: its declaration is gone or withheld"},
		{refusal(emptying), "nothing is desired, so the plan would delete all 18 generated files; if the registry really is empty on purpose, run again with --allow-empty"},
		{refusal(plan.Plan{Refused: "symlinks lead outside the workspace"}), "symlinks lead outside the workspace"},
		{flagWords(controller.Outcome{Plan: emptying}.Failure()).Error(),
			"refused: nothing is desired, so the plan would delete all 18 generated files; if the registry really is empty on purpose, run again with --allow-empty"},
		{flagWords(&controller.UnsettledError{Deletes: 2, Why: "registry/a.yaml changed 5ms ago", Settle: 2 * time.Second}).Error(),
			"2 delete(s) not applied: registry/a.yaml changed 5ms ago; deletes wait until the inputs have been unchanged for 2s (--settle); run again once they are saved"},
		{flagWords(&controller.UnsettledError{Deletes: 1, Why: "an input changed 1ms ago", Settle: time.Second, Err: errors.New("disk full")}).Error(),
			"disk full\n1 delete(s) not applied: an input changed 1ms ago; deletes wait until the inputs have been unchanged for 1s (--settle); run again once they are saved"},
	} {
		if c.got != c.want {
			t.Errorf("got  %q\nwant %q", c.got, c.want)
		}
	}
	if err := flagWords(&controller.UnsettledError{Err: os.ErrPermission}); !errors.Is(err, os.ErrPermission) {
		t.Errorf("the worded error %v no longer wraps what failed", err)
	}
	if err := errors.New("disk"); flagWords(err) != err {
		t.Error("an error no flag changes was reworded")
	}
}
